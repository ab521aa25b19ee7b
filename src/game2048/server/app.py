"""The ASGI app: JSON API, leaderboard and replay pages, the browser game's files."""

from __future__ import annotations

import logging
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from sqlalchemy.orm import sessionmaker
from starlette.exceptions import HTTPException
from starlette.middleware.gzip import GZipMiddleware

from ..web.assets import STATIC_DIR, ReleaseStaticFiles
from . import api, play, views
from .bodylimit import BodyLimit
from .cache import AnswerCache
from .config import Settings
from .db import load_secret, make_engine, migrate
from .games import ClientError
from .ratelimit import RateLimiter

log = logging.getLogger(__name__)

DESCRIPTION = """\
Play 2048 with server-issued seeds. `POST /api/games` starts a game; play it
anywhere (the spawns follow from the seed); `POST /api/games/{id}/finish` sends
the move log, which the server replays before it keeps and ranks the score.

Every error answer is `{"error": "..."}` with a 4xx status: 403 wrong token,
404 unknown game, 409 already finished, 413 body or log too large, 422 a
request that does not fit the schema or a record that does not verify,
429 rate limit (see `Retry-After`).
"""


@asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    if app.state.settings.warm_solver:
        # numba loads (or, on a fresh install, compiles) the search once per process;
        # a daemon thread pays that now instead of the first player to ask for a hint
        threading.Thread(target=_warm_solver, name="warm-solver", daemon=True).start()
    yield


def _warm_solver() -> None:
    try:
        from ..solver import warm_up

        warm_up()
    except Exception:  # a hint will report its own error; serving goes on
        log.exception("could not load the solver at start")


def create_app(settings: Settings) -> FastAPI:
    """Build the app for ``settings``; the database is created and migrated first."""
    engine = make_engine(settings.database_url)
    migrate(engine)
    sessions = sessionmaker(engine, expire_on_commit=False)

    app = FastAPI(title="game2048", version="0.1.0", description=DESCRIPTION, lifespan=_lifespan)
    app.add_middleware(BodyLimit, limit=settings.max_body)
    app.add_middleware(GZipMiddleware, minimum_size=500)  # text answers travel compressed
    app.state.settings = settings
    app.state.engine = engine
    app.state.sessions = sessions
    app.state.secret = load_secret(sessions, settings.secret)
    app.state.answers = AnswerCache(settings.answer_ttl)
    app.state.limiters = {
        "games": RateLimiter(settings.rate_limit, settings.redis_url),
        "hint": RateLimiter(settings.hint_rate_limit, settings.redis_url),
    }
    _error_handlers(app)
    app.include_router(api.router)
    app.include_router(views.router)
    try:
        from ..pages import router as pages_router
    except ImportError:  # the content pages are optional
        pages_router = None
    if pages_router is not None:
        app.include_router(pages_router)

    app.include_router(play.router)
    # /static/<release>/… cached for a year, /static/… revalidated (web/assets.py)
    app.mount("/static", ReleaseStaticFiles(directory=STATIC_DIR), name="static")
    return app


def _error_handlers(app: FastAPI) -> None:
    """One error shape for everything: ``{"error": "..."}``."""

    @app.exception_handler(ClientError)
    async def client_error(_request: Request, exc: ClientError) -> JSONResponse:
        return JSONResponse({"error": exc.message}, status_code=exc.status, headers=exc.headers)

    @app.exception_handler(RequestValidationError)
    async def invalid(_request: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse({"error": describe_validation(exc.errors())}, status_code=422)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> JSONResponse:
        message = {
            404: f"nothing at {request.url.path}",
            405: f"{request.method} is not allowed on {request.url.path}",
        }.get(exc.status_code, str(exc.detail))
        return JSONResponse({"error": message}, status_code=exc.status_code,
                            headers=getattr(exc, "headers", None))

    @app.exception_handler(Exception)
    async def crash(_request: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error", exc_info=exc)
        return JSONResponse({"error": "internal error; nothing was stored"}, status_code=500)


def describe_validation(errors: object) -> str:
    """One line per problem, e.g. ``body.size: Input should be less than or equal to 6``."""
    parts = []
    for err in list(errors)[:3]:  # type: ignore[call-overload]
        loc = ".".join(str(p) for p in err.get("loc", ()) if p != "body") or "body"
        if err.get("type") == "json_invalid":
            parts.append("the body is not valid JSON")
        elif loc == "body" and err.get("type") in ("model_attributes_type", "dict_type"):
            parts.append("the body must be a JSON object (sent as application/json)")
        elif err.get("type") == "missing":
            parts.append(f"{loc}: required")
        else:
            parts.append(f"{loc}: {err.get('msg', 'invalid')}")
    return "; ".join(parts) or "invalid request"


def app_from_env() -> FastAPI:
    """App factory for ``uvicorn --factory`` (several workers): settings from the environment."""
    return create_app(Settings.from_env())
