"""The JSON API: schemas, the dependencies routes share, the routes by resource, and its OpenAPI docs."""
