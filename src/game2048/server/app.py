"""The ASGI app: JSON API, leaderboard and replay pages, the browser game's files."""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse, HTMLResponse
from fastapi.staticfiles import StaticFiles

from .config import Settings

STATIC_DIR = Path(__file__).resolve().parent.parent / "web" / "static"

_PLACEHOLDER = (
    "<!doctype html><meta charset=utf-8><title>2048</title>"
    "<p>The browser game is not installed here. The API is at <a href=/docs>/docs</a>."
)


def create_app(settings: Settings) -> FastAPI:
    """Build the app for ``settings``; the database is migrated before it answers."""
    app = FastAPI(title="game2048", version="0.1.0")
    app.state.settings = settings

    @app.get("/", include_in_schema=False, response_model=None)
    def index() -> FileResponse | HTMLResponse:
        page = STATIC_DIR / "index.html"
        if page.is_file():
            return FileResponse(page, media_type="text/html")
        return HTMLResponse(_PLACEHOLDER)

    if STATIC_DIR.is_dir():
        app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    return app


def app_from_env() -> FastAPI:
    """App factory for ``uvicorn --factory`` (several workers): settings from the environment."""
    return create_app(Settings.from_env())
