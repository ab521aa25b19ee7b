"""Connections bounded per client, below the app: a cap on open connections per address, and a
deadline for each request's headers.

uvicorn counts connections for the whole worker (``limit_concurrency``): one
address that holds them all takes the worker from everyone. ``GuardedHTTP``
is the protocol ``game2048 serve`` gives uvicorn instead of its own: it wraps
uvicorn's (httptools or h11, and the WebSocket protocol a connection upgrades
to) and

- refuses a connection at once, with a 429 in the API's error shape, when its
  address (an IPv6 one by its /64) already holds ``GAME2048_MAX_CONNECTIONS``;
  WebSockets are connections too, so they count;
- closes a connection, with a 408, whose request line and headers have not all
  arrived ``GAME2048_HEADER_DEADLINE`` seconds after its first byte (or after
  it opened): uvicorn itself waits for them for ever.

Behind a proxy (``--proxy-headers``) the connections from the trusted proxy
addresses are not capped here: they are everyone's. The proxy caps per client
(``limit_conn`` in the nginx example of docs/deploy.md).

Counts are per worker process; the cap is per process.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections import Counter
from typing import Any

from ..clients.address import network_of

#: Open connections one address may hold in one worker (a browser opens about 6 and a socket).
DEFAULT_MAX_CONNECTIONS = 64
#: Seconds a connection has to deliver a request's line and headers.
DEFAULT_HEADER_DEADLINE = 10.0


def _raw_answer(status: int, reason: str, message: str, extra: str = "") -> bytes:
    body = json.dumps({"error": message}).encode()
    head = (f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\n"
            f"content-length: {len(body)}\r\n{extra}connection: close\r\n\r\n")
    return head.encode() + body


class _Limits:
    """GAME2048_MAX_CONNECTIONS and GAME2048_HEADER_DEADLINE, read once per process."""

    def __init__(self, env: dict[str, str] | None = None) -> None:
        from ..config import env_count, env_seconds

        env = dict(os.environ) if env is None else env
        self.max_connections = env_count(env.get("GAME2048_MAX_CONNECTIONS"), DEFAULT_MAX_CONNECTIONS)
        self.header_deadline = env_seconds(env.get("GAME2048_HEADER_DEADLINE"), DEFAULT_HEADER_DEADLINE)


_limits: _Limits | None = None
#: Open connections per address in this process.
open_connections: Counter[str] = Counter()


class _Transport:
    """The connection's transport as the wrapped protocol sees it: an upgrade to a WebSocket
    swaps the protocol inside the guard, so the guard sees the connection to its end."""

    def __init__(self, real: asyncio.Transport, guard: GuardedHTTP) -> None:
        self._real = real
        self._guard = guard

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    def set_protocol(self, protocol: asyncio.BaseProtocol) -> None:
        self._guard.upgraded(protocol)

    def get_protocol(self) -> asyncio.BaseProtocol:
        return self._guard.inner  # type: ignore[return-value]


class GuardedHTTP(asyncio.Protocol):
    """uvicorn's HTTP protocol (``http=GuardedHTTP``), with the per-address cap and the header
    deadline described above."""

    def __init__(self, config: Any, server_state: Any, app_state: Any, _loop: Any = None) -> None:
        global _limits
        from uvicorn.config import HTTP_PROTOCOLS
        from uvicorn.importer import import_from_string

        if _limits is None:
            _limits = _Limits()
        self.limits = _limits
        inner_class = import_from_string(HTTP_PROTOCOLS["auto"])
        self.inner: Any = inner_class(config=config, server_state=server_state, app_state=app_state,
                                      _loop=_loop)
        self.loop = _loop or asyncio.get_running_loop()
        trusted = config.forwarded_allow_ips if config.proxy_headers else ()
        self.trusted = {trusted} if isinstance(trusted, str) else set(trusted or ())
        self.key: str | None = None
        self.is_websocket = False
        self.timer: asyncio.TimerHandle | None = None
        self.cycle: Any = None

    # the cap
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport
        peer = transport.get_extra_info("peername")
        host = peer[0] if isinstance(peer, tuple) and peer else ""
        if host and "*" not in self.trusted and host not in self.trusted:
            key = network_of(host)
            if self.limits.max_connections and open_connections[key] >= self.limits.max_connections:
                transport.write(_raw_answer(  # type: ignore[attr-defined]
                    429, "Too Many Requests", f"this address already holds {self.limits.max_connections} "
                    "open connections; close one and try again", "retry-after: 5\r\n"))
                transport.close()
                self.inner = None
                return
            open_connections[key] += 1
            self.key = key
        self.inner.connection_made(_Transport(transport, self))  # type: ignore[arg-type]
        self._await_headers()

    def connection_lost(self, exc: Exception | None) -> None:
        self._release()
        if self.inner is not None:
            self.inner.connection_lost(exc)

    def _release(self) -> None:
        """The connection ended: it no longer counts against its address."""
        if self.key is not None:
            open_connections[self.key] -= 1
            if open_connections[self.key] <= 0:
                del open_connections[self.key]
            self.key = None
        self._stop_timer()

    # the header deadline
    def data_received(self, data: bytes) -> None:
        if self.inner is None:
            return
        if self.timer is None and not self.is_websocket:
            cycle = getattr(self.inner, "cycle", None)
            if cycle is None or cycle.response_complete:  # the first bytes of a next request
                self._await_headers()
        self.inner.data_received(data)
        started = getattr(self.inner, "cycle", None) is not self.cycle
        if self.timer is not None and (self.is_websocket or started):
            self._stop_timer()  # the headers are in: the body has a deadline of its own (BodyLimit)

    def _await_headers(self) -> None:
        if self.limits.header_deadline > 0 and not self.is_websocket:
            self.cycle = getattr(self.inner, "cycle", None)
            self.timer = self.loop.call_later(self.limits.header_deadline, self._headers_late)

    def _stop_timer(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def _headers_late(self) -> None:
        self.timer = None
        if self.transport.is_closing():
            return
        self.transport.write(_raw_answer(  # type: ignore[attr-defined]
            408, "Request Timeout",
            f"the request's headers did not arrive within {self.limits.header_deadline:g} s"))
        self.transport.close()

    def upgraded(self, protocol: asyncio.BaseProtocol) -> None:
        """The connection became a WebSocket (uvicorn swaps the protocol): past its handshake the
        guard has nothing left to do but give back the count when it ends, so the socket's bytes
        go to its protocol straight and it writes to the real transport (a game's every move is a
        message: passing each through the guard cost more than the guard's work)."""
        self.inner = protocol
        self.is_websocket = True
        self._stop_timer()
        real = self.transport
        if isinstance(getattr(protocol, "transport", None), _Transport):
            protocol.transport = real  # type: ignore[attr-defined]
        lost = protocol.connection_lost

        def connection_lost(exc: Exception | None) -> None:
            self._release()
            lost(exc)

        protocol.connection_lost = connection_lost  # type: ignore[method-assign]
        real.set_protocol(protocol)  # type: ignore[attr-defined]

    # the rest, as the wrapped protocol does it
    def eof_received(self) -> bool | None:
        return self.inner.eof_received() if self.inner is not None else None

    def pause_writing(self) -> None:
        if self.inner is not None:
            self.inner.pause_writing()

    def resume_writing(self) -> None:
        if self.inner is not None:
            self.inner.resume_writing()

    def shutdown(self) -> None:
        if self.inner is not None and hasattr(self.inner, "shutdown"):
            self.inner.shutdown()
