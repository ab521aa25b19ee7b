"""Read a request body whole, within a byte limit and a time limit, before the app sees it.

A body over ``limit`` bytes is refused with 413 before anything parses it; a
body that has not arrived ``deadline`` seconds after its headers is refused
with 408 and the connection is closed, so a client that stalls its upload
holds nothing but its own socket. (uvicorn itself has no deadline for the
request headers: ``docs/deploy.md`` puts a proxy in front for that.)
"""

from __future__ import annotations

import asyncio

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..errors import send_error


class BodyLimit:
    """Pure ASGI middleware: reads at most ``limit`` bytes of a body within ``deadline`` seconds."""

    def __init__(self, app: ASGIApp, limit: int, deadline: float = 30.0) -> None:
        self.app = app
        self.limit = limit
        self.deadline = deadline

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and (not declared.isdigit() or len(declared) > 18
                                     or int(declared) > self.limit):
            await self._too_large(send)
            return
        chunks: list[bytes] = []
        size = 0
        try:
            async with asyncio.timeout(self.deadline):
                while True:
                    message = await receive()
                    if message["type"] != "http.request":  # the client went away
                        await self.app(scope, replaying([message]), send)
                        return
                    chunk = message.get("body", b"")
                    size += len(chunk)
                    if size > self.limit:
                        await self._too_large(send)
                        return
                    chunks.append(chunk)
                    if not message.get("more_body", False):
                        break
        except TimeoutError:
            await send_error(send, 408, f"the request body did not arrive within {self.deadline:g} s",
                             close=True)
            return
        body = b"".join(chunks)
        await self.app(scope, replaying([{"type": "http.request", "body": body, "more_body": False}],
                                      then=receive), send)

    async def _too_large(self, send: Send) -> None:
        await send_error(send, 413, f"the request body is over the {self.limit} byte limit", close=True)


def replaying(messages: list[Message], then: Receive | None = None) -> Receive:
    pending = list(messages)

    async def receive() -> Message:
        if pending:
            return pending.pop(0)
        if then is not None:
            return await then()  # later messages, e.g. http.disconnect
        return {"type": "http.disconnect"}

    return receive
