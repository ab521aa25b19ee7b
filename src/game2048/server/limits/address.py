"""Who the client is: the one address every limit counts."""

from __future__ import annotations

from starlette.requests import HTTPConnection


def client_address(connection: HTTPConnection) -> str:
    """The address the budget and the rate limits count (the proxy's view with --proxy-headers);
    ``connection`` is a request or a WebSocket."""
    return connection.client.host if connection.client else "unknown"
