// Starts Swagger UI on /docs. A file of its own because the site's
// Content-Security-Policy allows no inline script.
const root = document.getElementById("swagger-ui");
window.ui = SwaggerUIBundle({
  url: root.dataset.openapiUrl,
  dom_id: "#swagger-ui",
  deepLinking: true,
  validatorUrl: null, // never send the description to an outside validator
  presets: [SwaggerUIBundle.presets.apis],
  layout: "BaseLayout",
});
