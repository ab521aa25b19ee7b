"""An answer that carries an ETag is gzipped once, and its gzipped form has an ETag of its own.

Pure ASGI, inside Starlette's ``GZipMiddleware`` (which passes on an answer
that already has a ``Content-Encoding``, and compresses the untagged ones).
A tagged answer never changes for its tag, so its compressed bytes are kept
in a bounded cache by that tag: a view of a long finished game's page costs a
lookup, not a compression. The gzipped form is tagged ``"<tag>-gzip"``, so a
cache in front never hands one encoding to a client that asked for the other
(RFC 9110 8.8.3: an ETag names one representation); ``conditional.matches``
accepts either form of the tag.

>>> gzip_tag('"abc"'), gzip_tag('W/"abc"')
('"abc-gzip"', 'W/"abc-gzip"')
"""

from __future__ import annotations

import gzip

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..caching.answers import BoundedLRU

#: Answers under this many bytes travel as they are (as GZipMiddleware's ``minimum_size``).
MINIMUM_SIZE = 500
#: Tagged answers above this many bytes are passed on as they come (nothing the app tags is near it).
MAX_BUFFERED = 8 * 1024 * 1024
#: Compressed answers kept per process.
CACHE_BYTES = 32 * 1024 * 1024
SUFFIX = "-gzip"


def gzip_tag(tag: str) -> str:
    return tag[:-1] + SUFFIX + '"' if tag.endswith('"') else tag


def accepts_gzip(scope: Scope) -> bool:
    return "gzip" in Headers(scope=scope).get("accept-encoding", "").lower()


class CompressTagged:
    def __init__(self, app: ASGIApp, cache_bytes: int = CACHE_BYTES) -> None:
        self.app = app
        self.compressed = BoundedLRU(cache_bytes)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not accepts_gzip(scope):
            await self.app(scope, receive, send)
            return
        scope, asked_gzip = _plain_conditions(scope)
        start: Message | None = None
        chunks: list[bytes] = []
        passing = False

        async def tagged_send(message: Message) -> None:
            nonlocal start, passing
            if passing:
                await send(message)
                return
            if message["type"] == "http.response.start":
                headers = Headers(raw=message.get("headers", []))
                tag = headers.get("etag")
                if tag is None or "content-encoding" in headers:
                    passing = True
                    await send(message)
                elif message["status"] == 304:
                    if not asked_gzip:  # the client holds the plain form: the answer names it
                        passing = True
                        await send(message)
                        return
                    out = MutableHeaders(raw=list(message.get("headers", [])))
                    out["etag"] = gzip_tag(tag)
                    out.add_vary_header("Accept-Encoding")
                    passing = True
                    await send({**message, "headers": out.raw})
                else:
                    start = message
                return
            if message["type"] != "http.response.body" or start is None:
                if start is not None:  # a body sent otherwise (pathsend): as it comes
                    passing = True
                    await send(start)
                await send(message)
                return
            chunks.append(message.get("body", b""))
            if message.get("more_body", False):
                if sum(map(len, chunks)) > MAX_BUFFERED:  # too large to keep: as it comes
                    passing = True
                    await send(start)
                    await send({"type": "http.response.body", "body": b"".join(chunks), "more_body": True})
                return
            await self._send_whole(start, b"".join(chunks), send)

        await self.app(scope, receive, tagged_send)

    async def _send_whole(self, start: Message, body: bytes, send: Send) -> None:
        headers = MutableHeaders(raw=list(start.get("headers", [])))
        headers.add_vary_header("Accept-Encoding")
        if len(body) >= MINIMUM_SIZE:
            tag = headers["etag"]
            packed = self.compressed.get(tag)
            if packed is None:
                packed = gzip.compress(body, compresslevel=6, mtime=0)
                self.compressed.put(tag, packed, len(packed))
            assert isinstance(packed, bytes)
            body = packed
            headers["etag"] = gzip_tag(tag)
            headers["content-encoding"] = "gzip"
            headers["content-length"] = str(len(body))
        await send({**start, "headers": headers.raw})
        await send({"type": "http.response.body", "body": body})


def _plain_conditions(scope: Scope) -> tuple[Scope, bool]:
    """``scope`` with the gzip forms of the tags in ``If-None-Match`` made plain (the app and the
    static files know only the plain tag), and whether the client named a gzip form."""
    headers = scope.get("headers", [])
    found = [v for k, v in headers if k == b"if-none-match"]
    marker = SUFFIX.encode() + b'"'
    if not any(marker in v for v in found):
        return scope, False
    plain = [(k, v.replace(marker, b'"') if k == b"if-none-match" else v) for k, v in headers]
    return {**scope, "headers": plain}, True
