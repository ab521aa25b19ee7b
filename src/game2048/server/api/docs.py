"""``/docs``: Swagger UI served from files shipped in the package, with no outside code.

The assets (``swagger_ui/``: Swagger UI's ``swagger-ui-dist`` build, Apache
2.0, its LICENSE and NOTICE beside it) are served at ``/docs/assets``; the
page's start-up script is a file too (``init.js``), since the site's
Content-Security-Policy allows no inline script. FastAPI's own ``/docs`` and
``/redoc`` (which load from a CDN) are turned off in ``create_app``.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

ASSETS = Path(__file__).resolve().parent / "swagger_ui"

PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title} · API</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
<div id="swagger-ui" data-openapi-url="{openapi_url}"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/init.js"></script>
</body>
</html>
"""


def install(app: FastAPI) -> None:
    """Add ``GET /docs`` and its assets to ``app`` (built with ``docs_url=None, redoc_url=None``)."""
    page = PAGE.format(title=app.title, openapi_url=app.openapi_url or "/openapi.json")

    @app.get("/docs", include_in_schema=False)
    def docs() -> HTMLResponse:
        return HTMLResponse(page)

    app.mount("/docs/assets", StaticFiles(directory=ASSETS), name="docs-assets")
