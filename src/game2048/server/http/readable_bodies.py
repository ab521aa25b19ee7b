"""Bodies the server cannot read are refused at the door, in the API's error shape.

Pure ASGI middleware behind ``BodyLimit`` (so the body is already whole and
bounded): a request that carries a body must send it as ``application/json``,
in UTF-8, with numbers of at most ``MAX_DIGITS`` digits, no ``NaN`` or
``Infinity``, and nesting no deeper than the parser allows. Anything else is
422 with a message that says which, the same status as a body that does not
fit its schema, so a client has one rule to learn.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send

from ..errors import send_error
from .body_limit import replaying

#: No number in any request comes near this (seeds and scores are below 2^53, 16 digits).
MAX_DIGITS = 40


class Unreadable(ValueError):
    """Why a text cannot be read as JSON, in words for the client."""


def _number(text: str) -> float:
    if len(text) > MAX_DIGITS:
        raise Unreadable(f"a number in the body has {len(text)} characters; at most {MAX_DIGITS} are read")
    return float(text) if "." in text or "e" in text or "E" in text else int(text)


def _constant(name: str) -> float:
    raise Unreadable(f"{name} is not a JSON number")


def problem(content_type: bytes | None, body: bytes) -> str | None:
    """Why ``body`` cannot be read as JSON, or None when it can.

    >>> problem(b"application/json", b'{"size": 4}') is None
    True
    >>> problem(b"text/plain", b'{"size": 4}')
    'send the body as application/json (got text/plain)'
    >>> problem(b"application/json", b"\\xff")
    'the body is not UTF-8 text'
    """
    kind = (content_type or b"").split(b";")[0].strip().lower()
    if kind != b"application/json" and not kind.endswith(b"+json"):
        got = kind.decode("latin-1") or "no content type"
        return f"send the body as application/json (got {got})"
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return "the body is not UTF-8 text"
    try:
        read_json(text)
    except Unreadable as exc:
        return str(exc)
    return None


#: Made once: ``json.loads`` with hooks builds a decoder each call, which costs a message more than its parse.
_DECODER = json.JSONDecoder(parse_int=_number, parse_float=_number, parse_constant=_constant)


def read_json(text: str, what: str = "the body") -> Any:
    """``text`` parsed as JSON by the rules of every request body (HTTP or a WebSocket message),
    or ``Unreadable`` saying why not, whatever its size or depth.

    >>> read_json('[[1]]')
    [[1]]
    >>> read_json('[' * 100_000)
    Traceback (most recent call last):
    ...
    game2048.server.http.readable_bodies.Unreadable: the body is nested too deeply
    """
    try:
        return _DECODER.decode(text)
    except Unreadable:
        raise
    except RecursionError:
        raise Unreadable(f"{what} is nested too deeply") from None
    except ValueError as exc:
        raise Unreadable(f"{what} is not valid JSON: {exc}") from None


#: The operators' pages post HTML forms (``site/mod.py`` reads them): not JSON.
FORM_PATHS = ("/mod/",)


class ReadableBodies:
    """Refuse (422) a request whose body is not readable JSON; pass everything else on."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "OPTIONS", "DELETE")
                or scope["path"].startswith(FORM_PATHS)):
            await self.app(scope, receive, send)
            return
        message = await receive()
        body = message.get("body", b"") if message["type"] == "http.request" else b""
        if body:
            why = problem(dict(scope["headers"]).get(b"content-type"), body)
            if why is not None:
                await send_error(send, 422, why)
                return
        await self.app(scope, replaying([message], then=receive), send)
