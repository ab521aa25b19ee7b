"""A WebSocket's own channel, past the middleware, for the messages after its handshake.

Every pure ASGI middleware that wraps ``send`` (the request log, the exception
handlers) adds an await to each message a socket sends, and Starlette's
``WebSocket`` adds its state checks to each one both ways: a few microseconds a
message that the play socket, whose messages are moves, pays thousands of times
a game. ``RawChannel``, outermost, keeps the server's own ``receive`` and
``send`` of a WebSocket in its scope (``channel(scope)``), so the play socket
exchanges its messages on them after the handshake, which still goes through
every middleware (logged, counted, refused as before), as does its close.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

#: Where ``RawChannel`` keeps the server's ``(receive, send)`` in a WebSocket's scope.
SCOPE_KEY = "game2048.channel"


class RawChannel:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            scope[SCOPE_KEY] = (receive, send)
        await self.app(scope, receive, send)


def channel(scope: Scope) -> tuple[Receive, Send] | None:
    """The server's own ``(receive, send)`` of this WebSocket, if ``RawChannel`` kept them."""
    return scope.get(SCOPE_KEY)
