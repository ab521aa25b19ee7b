"""HEAD wherever GET works: the same status and headers, no body.

FastAPI routes answer only the methods they declare, so ``HEAD /leaderboard``
would be 405. This pure ASGI middleware hands the app a GET and drops the
body on the way out; ``Content-Length`` stays that of the GET's body, as HTTP
asks. (The GET's work is done; for pages and small JSON that is cheap, and a
conditional HEAD with ``If-None-Match`` is as cheap as the 304 it gets.)
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send


class HeadAsGet:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return

        async def without_body(message: Message) -> None:
            if message["type"] == "http.response.body":
                if message.get("more_body", False):
                    return  # the last (empty) body message ends the answer
                message = {"type": "http.response.body", "body": b"", "more_body": False}
            await send(message)

        as_get = {**scope, "method": "GET"}  # a copy: the server keeps its own HEAD scope
        try:
            await self.app(as_get, receive, without_body)
        finally:
            if "route" in as_get:  # for the request log and metrics outside
                scope["route"] = as_get["route"]
