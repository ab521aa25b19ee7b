"""One error story: every refusal leaves as ``{"error": "..."}`` with a 4xx status, and a
stable ``code`` beside it where a client acts on the reason (``name_invisible``).

The statuses, and what each means, are listed once here (``STATUSES``): the
OpenAPI description, the route docs (``responses(...)``) and the handlers all
read them. A body the server cannot read (not JSON, not UTF-8, a number of
thousands of digits, nesting too deep, the wrong content type) is 422, like a
body that does not fit its schema; 413 is only for a body over the byte limit.
"""

from __future__ import annotations

import json
import logging
import sys
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException
from starlette.types import Send

log = logging.getLogger(__name__)


class ClientError(Exception):
    """A request the server refuses; ``status`` is the HTTP status to answer with, ``code``
    a stable word for what was refused (``name_invisible``, ``daily_tries_used``), where a client
    acts on it, and ``fields`` the figures a client needs to say it in its own words (a size, a
    count, a time as ISO 8601 UTC), sent beside ``error`` and ``code``."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None,
                 code: str | None = None, fields: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers
        self.code = code
        self.fields = fields or {}

    def body(self) -> dict[str, Any]:
        """The answer's JSON: ``{"error", "code"?, ...fields}``."""
        return {"error": self.message} | ({"code": self.code} if self.code else {}) | self.fields

#: Every status the API answers a client's mistake with, and what it means.
STATUSES: dict[int, str] = {
    403: "the token does not belong to this game, or the name key not to this name (code "
         "`name_key_wrong`)",
    404: "no such game (or path), or a record not public yet (a game in play, a daily game "
         "whose day lasts); or a name nobody holds (`name_not_held`), a recovery code that holds "
         "no name (`name_key_unknown`)",
    405: "the method is not allowed on this path",
    408: "the request's body did not arrive in time",
    409: "the game went on differently (a fork, or `at` ahead of its log), is finished, or is a "
         "daily game past its day; or a finish whose log is not the server's, or under a name held by "
         "another (code `name_held`, `name_confusable`)",
    413: "the request body is over the byte limit",
    422: "a body that cannot be read as JSON (or not UTF-8, or not application/json), a request "
         "that does not fit the schema (a log too long included), a move the rules refuse (nothing "
         "of the request is applied), or a record that does not verify",
    429: "too many requests or too much verification work from this address, or today's daily tries "
         "used by this browser (code `daily_tries_used`): see Retry-After",
}


#: Statuses some routes answer that are not the client's mistake, and what each means.
OTHER_STATUSES: dict[int, str] = {
    202: "accepted: the work is queued or running; ask again in a moment",
    304: "the client's copy (If-None-Match) is current",
    500: "the server could not do the work it was asked for (a review that failed); asking again "
         "will not help",
    503: "the server cannot take this work now (its review queue is full, or a store it needs is "
         "unavailable; nothing was changed that was not acknowledged): see Retry-After",
}


#: The codes of the refusals a player can meet, with the fields each one carries: a page says
#: them in the player's language from these, never from ``error``.
CODES: dict[str, tuple[str, ...]] = {
    "daily_tries_used": ("size", "tries", "next_at", "retry_after"),
    "rate_limited": ("retry_after",),
    "hints_paced": ("retry_after",),  # hints for a bare board, at a person's pace
    "cpu_spent": ("retry_after",),
    "game_finished": (),
    "game_gone": (),
    "day_over": (),
    "log_full": ("max",),
    "forked": (),
    "reviews_waiting": ("waiting",),
    "review_queue_full": ("retry_after",),
    # a finish's answer carries this one in ``name_not_held``: the game is recorded, the name not held
    "names_per_day": ("limit", "next_at"),
    # a holder's own names (/me): a recovery code that holds none, a name nobody holds, a wrong key
    "name_key_unknown": (),
    "name_not_held": (),
    "name_key_wrong": (),
}


class ErrorOut(BaseModel):
    error: str = Field(description="What was wrong, in words a person can act on.")
    code: str | None = Field(default=None, description="A stable word for the reason, where a client "
                             "acts on it or says it in its own words: a refused name's codes start "
                             "with `name_`; the others are listed in `CODES` (errors.py). Figures the "
                             "reason needs come beside it (`daily_tries_used`: `per`, `size`, `tries`, "
                             "`limit`, `retry_after`, `next_at`, `next_day`).")


def responses(*codes: int,
              models: dict[int, type[BaseModel]] | None = None) -> dict[int | str, dict[str, Any]]:
    """The ``responses=`` of a route that can answer these statuses (422 and 413 always apply
    to a route with a body; list them where they do). An answer's body is ``ErrorOut`` from
    400 up, none for 304, and ``models[code]`` where given (a 202's pending answer).

    >>> sorted(responses(404, 422))
    [404, 422]
    >>> responses(304)[304]["description"]
    "the client's copy (If-None-Match) is current"
    """
    out: dict[int | str, dict[str, Any]] = {}
    for code in codes:
        out[code] = {"description": STATUSES.get(code) or OTHER_STATUSES[code]}
        model = (models or {}).get(code) or (ErrorOut if code >= 400 else None)
        if model is not None:
            out[code]["model"] = model
    return out


def describe_statuses() -> str:
    """The status list for the API's description, one line each."""
    return "\n".join(f"- {code}: {text}" for code, text in sorted(STATUSES.items()))


def error_body(message: str) -> bytes:
    return json.dumps({"error": message}).encode()


async def send_error(send: Send, status: int, message: str, *, close: bool = False,
                     headers: dict[str, str] | None = None) -> None:
    """Answer from pure ASGI middleware in the API's error shape."""
    payload = error_body(message)
    raw = [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode())]
    raw += [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
    if close:
        raw.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": payload})


def install(app: FastAPI) -> None:
    """The exception handlers: ``ClientError``, schema errors, Starlette's HTTP errors, and a last
    resort that logs and answers 500."""

    @app.exception_handler(ClientError)
    async def refused(_request: Request, exc: ClientError) -> JSONResponse:
        return JSONResponse(exc.body(), status_code=exc.status, headers=exc.headers)

    @app.exception_handler(RequestValidationError)
    async def invalid(_request: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse({"error": describe_validation(exc.errors())}, status_code=422)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> JSONResponse:
        status = exc.status_code
        message = {
            404: f"nothing at {request.url.path}",
            405: f"{request.method} is not allowed on {request.url.path}",
        }.get(status, str(exc.detail))
        if status == 400:  # FastAPI's "error parsing the body": our bodies guard should have caught it
            status, message = 422, f"the body cannot be read: {exc.detail}"
        return JSONResponse({"error": message}, status_code=status, headers=getattr(exc, "headers", None))

    async def unavailable(_request: Request, exc: Exception) -> JSONResponse:
        if not store_down(exc):
            return await crash(_request, exc)
        log.warning("a store is unavailable: %s", str(exc).splitlines()[0] if str(exc) else exc)
        return JSONResponse(STORE_DOWN, status_code=503, headers={"Retry-After": str(STORE_RETRY)})

    for kind in _store_errors():
        app.add_exception_handler(kind, unavailable)

    @app.exception_handler(Exception)
    async def crash(_request: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error", exc_info=exc)
        return JSONResponse({"error": "internal error; nothing was stored"}, status_code=500)


#: Seconds a client waits before it asks again when a store is down.
STORE_RETRY = 5
STORE_DOWN = {"error": "a store the server needs is unavailable for a moment; try again (what was "
                       "acknowledged is kept)", "code": "store_unavailable"}


def _store_errors() -> list[type[Exception]]:
    """The exception classes a store that cannot be reached raises (``store_down`` decides)."""
    from sqlalchemy.exc import DBAPIError
    from sqlalchemy.exc import TimeoutError as PoolTimeout

    psycopg, redis = _drivers()
    # the live store's raw connections raise the driver's own errors
    kinds: list[type[Exception]] = [DBAPIError, PoolTimeout]
    if psycopg is not None:
        kinds += [psycopg.OperationalError, psycopg.InterfaceError]
    if redis is not None:
        kinds += [redis.exceptions.ConnectionError, redis.exceptions.TimeoutError]
    return kinds


def _drivers() -> tuple[Any, Any]:
    """psycopg and redis, each only if this process loaded it already: importing both costs a worker
    about 0.3 s of CPU at start, and a driver that was never loaded raised nothing. ``install`` runs
    after the app made its engine (which loads psycopg for PostgreSQL) and its stores (redis)."""
    return sys.modules.get("psycopg"), sys.modules.get("redis")


def store_down(exc: BaseException) -> bool:
    """Whether ``exc`` says the database or Redis cannot be reached (down, restarting, refusing,
    too slow): the player may retry, the request was not the client's mistake."""
    from sqlalchemy.exc import DBAPIError
    from sqlalchemy.exc import TimeoutError as PoolTimeout

    psycopg, redis = _drivers()
    if isinstance(exc, PoolTimeout):
        return True
    # the driver's own errors: a connection refused, cut (AdminShutdown) or lost
    if psycopg is not None and isinstance(exc, (psycopg.OperationalError, psycopg.InterfaceError)):
        return True
    if isinstance(exc, DBAPIError):
        return bool(exc.connection_invalidated) or type(exc.orig).__name__ in (
            "OperationalError", "InterfaceError", "AdminShutdown", "ConnectionFailure")
    return redis is not None and isinstance(exc, (redis.exceptions.ConnectionError,
                                                  redis.exceptions.TimeoutError,
                                                  redis.exceptions.BusyLoadingError))


def describe_validation(errors: object) -> str:
    """One line per problem, e.g. ``size: Input should be less than or equal to 6``."""
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
