"""One JSON line per request on standard error, and the request metrics.

Pure ASGI middleware, outermost, so it sees every answer (the 413 and 422 of
the body guards, 404s, the 500 of a crash). A line looks like::

    {"ts": "2026-01-02T03:04:05.678Z", "level": "info", "event": "request", "method": "POST",
     "route": "/api/games/{game_id}/finish", "path": "/api/games/Xy.../finish", "status": 200,
     "ms": 12.4, "bytes": 87, "client": "203.0.113.0/24"}

``route`` is the route's template (the metrics' label: a bounded set), ``path``
the path without its query. Tokens travel in bodies, which are never logged,
and the client address is cut to its network (/24 for IPv4, /48 for IPv6).
WebSocket sessions are logged when they end: ``"status": 101`` if accepted, 403 if refused.
"""

from __future__ import annotations

import ipaddress
import logging
import time

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .. import metrics

log = logging.getLogger("game2048.requests")

#: Paths longer than this are cut in the log line.
MAX_PATH = 200


def network(host: str | None) -> str:
    """The client's network, never its full address.

    >>> network("203.0.113.77"), network("2001:db8:1:2::5"), network("testclient")
    ('203.0.113.0/24', '2001:db8:1::/48', 'other')
    """
    try:
        address = ipaddress.ip_address(host or "")
    except ValueError:
        return "other"
    prefix = 24 if address.version == 4 else 48
    return str(ipaddress.ip_network(f"{address}/{prefix}", strict=False))


def route_of(scope: Scope, root_path: str = "") -> str:
    """The template of the route that answered (``/api/games/{game_id}``, ``/static/{path}``),
    or ``unmatched``; ``root_path`` is the scope's before routing (a mount adds its prefix)."""
    path = getattr(scope.get("route"), "path", None)
    if isinstance(path, str) and path:
        return path
    mounted = scope.get("root_path", "")
    if mounted != root_path:
        return mounted[len(root_path):] + "/{path}"
    if "endpoint" in scope:  # a plain route (/openapi.json): none of ours has parameters
        return scope.get("path", "unmatched")
    return "unmatched"


class RequestLog:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        root_path = scope.get("root_path", "")
        status = 500
        sent = 0

        async def observe(message: Message) -> None:
            nonlocal status, sent
            if message["type"] == "http.response.start":
                status = message["status"]
            elif message["type"] == "http.response.body":
                sent += len(message.get("body", b""))
            elif message["type"] == "websocket.accept":
                status = 101
            elif message["type"] == "websocket.close" and status == 500:
                status = 403  # closed before it was accepted
            await send(message)

        try:
            await self.app(scope, receive, observe)
        finally:
            seconds = time.perf_counter() - start
            method = scope.get("method", "WS")
            route = route_of(scope, root_path)
            metrics.observe_request(method, route, status, seconds)
            log.info("request", extra={"fields": {
                "event": "request", "method": method, "route": route,
                "path": scope.get("path", "")[:MAX_PATH], "status": status,
                "ms": round(seconds * 1000, 1), "bytes": sent,
                "client": network((scope.get("client") or (None,))[0]),
            }})
