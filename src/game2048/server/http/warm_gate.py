"""Requests under ``/api/`` wait while this worker loads the solver (``ops/warming.py``); the rest go on."""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

#: Paths that wait for the solver: everything that plays, hints, finishes or reads a game.
GATED = "/api/"


class WarmGate:
    """Pure ASGI middleware: holds requests under ``/api/`` while ``app.state.warming`` waits."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket") and scope["path"].startswith(GATED):
            warming = getattr(scope["app"].state, "warming", None)
            if warming is not None:
                await warming.wait()
        await self.app(scope, receive, send)
