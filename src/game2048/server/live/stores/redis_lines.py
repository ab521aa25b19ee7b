"""Redis connections for moves saved from the event loop (``RedisStore.save_async``).

A move's script sent through redis-py's asyncio client cost the server about
100 us of CPU a round trip (bench/server.md): a connection taken from a pool
and given back, a lock and a health check a command, a reader task; a move
needs none of them. Each running loop keeps one connection of its own, on
which every move is sent as soon as it is made, without waiting for the
replies before it (pipelined): Redis answers a connection's commands in the
order they came, so each reply goes to the oldest caller still waiting. The
replies are read where the bytes arrive (``asyncio.Protocol``), with no task
between the socket and the caller.

- A caller gone before its reply (cancelled, timed out on its side) leaves its
  place: the reply is read and dropped, and the connection stays in step.
- A connection cut, or with a caller waiting longer than the store's timeout,
  is closed and every caller on it fails (``ConnectionError``,
  ``TimeoutError``); the next call makes a new one.
- A script Redis does not hold (``NOSCRIPT``: Redis restarted or was flushed)
  is loaded and sent again.
- A URL this reads whole (``redis://`` or ``unix://`` with a password, a user,
  a database, timeouts) is connected to here (``AUTH``, ``SELECT``); any other
  (TLS, ``rediss://``, or options redis-py would apply) goes through redis-py's
  own connections, one a call, kept idle between calls (``KEEP_IDLE``).
"""

from __future__ import annotations

import asyncio
import weakref
from typing import Any

from redis import exceptions as errors
from redis.asyncio import ConnectionPool
from redis.connection import UnixDomainSocketConnection, parse_url
from redis.exceptions import NoScriptError, ResponseError

from .pipeline import Pipelined

#: Idle redis-py connections a loop keeps (URLs read by redis-py); more are closed when given back.
KEEP_IDLE = 16

#: What ``parse_url`` may give for a URL whose connection is made here: anything else goes to redis-py.
_PLAIN = frozenset({"host", "port", "db", "username", "password", "path", "socket_timeout",
                    "socket_connect_timeout"})


class MoveLines:
    """Connections for moves' scripts, per running event loop."""

    def __init__(self, url: str, timeout: float, *, pipelined: bool = True) -> None:
        self.url, self.timeout = url, timeout
        self.address = _plain_address(url) if pipelined else None
        self._loops: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Held] = weakref.WeakKeyDictionary()

    def _held(self) -> _Held:
        loop = asyncio.get_running_loop()
        held = self._loops.get(loop)
        if held is None:
            held = self._loops[loop] = _Held(self.url, self.timeout)
        return held

    async def run(self, script: Any, keys: list[str], args: list[Any]) -> Any:
        """The reply of ``script`` (a redis-py ``Script``: its text and SHA-1) run on ``keys`` and
        ``args``; errors as redis-py's client raises them (a connection refused, cut or too slow:
        ``ConnectionError``, ``TimeoutError``; an error reply: ``ResponseError``)."""
        try:
            return await self.call("EVALSHA", script.sha, len(keys), *keys, *args)
        except NoScriptError:
            await self.call("SCRIPT", "LOAD", script.script)
            return await self.call("EVALSHA", script.sha, len(keys), *keys, *args)

    async def call(self, *command: Any) -> Any:
        """One command's reply."""
        held = self._held()
        if self.address is None:
            return await held.redis_py_call(command)
        line = held.line
        if line is None or line.failed is not None:
            line = await self._connect(held)
        return await line.call(_encode(command))

    async def _connect(self, held: _Held) -> _Line:
        """The loop's new connection: callers that find none share one attempt, and its failure
        (Redis down or unreachable: each would otherwise wait out a timeout of its own in turn)."""
        if held.connecting is None:
            held.connecting = asyncio.ensure_future(self._open(held))
            held.connecting.add_done_callback(_retrieved)
        return await asyncio.shield(held.connecting)

    async def _open(self, held: _Held) -> _Line:
        try:
            line = held.line = await _Line.open(self.address, self.timeout)  # type: ignore[arg-type]
        finally:
            held.connecting = None
        return line

    def connections(self) -> int:
        """How many connections the running loop holds open (kept or idle)."""
        held = self._held()
        line = held.line
        return len(held.idle) + (line is not None and line.failed is None)

    async def close(self) -> None:
        """Close the running loop's connections (when the app stops)."""
        held = self._loops.pop(asyncio.get_running_loop(), None)
        if held is not None:
            await held.close()


def _retrieved(attempt: asyncio.Future[Any]) -> None:
    """Mark a shared attempt's failure as seen, for when every caller of it was gone."""
    if not attempt.cancelled():
        attempt.exception()


def _plain_address(url: str) -> dict[str, Any] | None:
    """What connecting to ``url`` here takes, or None where redis-py should read it (TLS, options)."""
    try:
        parts = parse_url(url)
    except ValueError:
        return None  # redis-py says why, on the first call
    unix = parts.pop("connection_class", None)
    if unix not in (None, UnixDomainSocketConnection) or not _PLAIN.issuperset(parts):
        return None
    return {"path": parts.get("path"), "host": parts.get("host", "localhost"),
            "port": parts.get("port", 6379), "db": int(parts.get("db") or 0),
            "username": parts.get("username"), "password": parts.get("password")}


class _Held:
    """One loop's connections: the pipelined one, or redis-py's idle ones."""

    def __init__(self, url: str, timeout: float) -> None:
        self.url, self.timeout = url, timeout
        self.line: _Line | None = None
        self.connecting: asyncio.Future[_Line] | None = None
        self.maker: Any = None
        self.idle: list[Any] = []

    async def redis_py_call(self, command: tuple[Any, ...]) -> Any:
        """``command`` on an idle redis-py connection of this loop (or a new one), given back after
        its reply; closed instead if it failed or was interrupted (a reply may still come)."""
        if self.maker is None:
            self.maker = ConnectionPool.from_url(self.url, socket_connect_timeout=self.timeout,
                                                 socket_timeout=self.timeout)
        conn = self.idle.pop() if self.idle else self.maker.make_connection()
        try:
            if not conn.is_connected:  # a new one: its handshake (password, database) first
                await conn.connect()
            await conn.send_command(*command, check_health=False)
            reply = await conn.read_response()
        except ResponseError:  # an error reply: the connection is still in step
            await self._give_back(conn)
            raise
        except BaseException:
            await conn.disconnect()
            raise
        await self._give_back(conn)
        return reply

    async def _give_back(self, conn: Any) -> None:
        if len(self.idle) < KEEP_IDLE:
            self.idle.append(conn)
        else:
            await conn.disconnect()

    async def close(self) -> None:
        if self.line is not None:
            self.line.fail(errors.ConnectionError("the server stopped"))
            self.line = None
        while self.idle:
            await self.idle.pop().disconnect()


class _Line(Pipelined, asyncio.Protocol):
    """One connection to Redis whose commands are pipelined (``pipeline.Pipelined``)."""

    def __init__(self, timeout: float) -> None:
        super().__init__(timeout)
        self.transport: asyncio.Transport | None = None
        self.unread = b""
        self.paused: asyncio.Future[None] | None = None

    @classmethod
    async def open(cls, address: dict[str, Any], timeout: float) -> _Line:
        """A connection to ``address`` (``_plain_address``), its password and database sent first."""
        loop = asyncio.get_running_loop()
        line = cls(timeout)
        try:
            async with asyncio.timeout(timeout):
                if address["path"]:
                    await loop.create_unix_connection(lambda: line, address["path"])
                else:
                    await loop.create_connection(lambda: line, address["host"], address["port"])
        except TimeoutError as exc:  # asyncio.timeout's
            raise errors.TimeoutError(f"Timeout connecting to Redis: {exc}") from None
        except OSError as exc:
            raise errors.ConnectionError(f"Error connecting to Redis: {exc}") from None
        try:
            if address["password"] is not None:
                who = (address["username"],) if address["username"] else ()
                try:
                    await line.call(_encode(("AUTH", *who, address["password"])))
                except ResponseError as exc:
                    raise errors.AuthenticationError(str(exc)) from None
            if address["db"]:
                await line.call(_encode(("SELECT", address["db"])))
        except BaseException:
            line.fail(errors.ConnectionError("the connection's handshake failed"))
            raise
        return line

    async def call(self, command: bytes) -> Any:
        if self.paused is not None:  # the socket's buffer is full: Redis reads no more for now
            await asyncio.shield(self.paused)
        if self.failed is not None:
            raise self.failed
        self.transport.write(command)  # type: ignore[union-attr]
        return await self.expect()

    def too_slow(self) -> Exception:
        return errors.TimeoutError("Timeout reading from Redis")

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        buf = self.unread + data if self.unread else data
        at, end = 0, len(buf)
        try:
            while at < end:
                value, at = _reply(buf, at)
                reply = self.next_caller()
                if reply is None:  # its caller is gone: the reply is dropped, the rest stay in step
                    continue
                if type(value) is _Error:
                    reply.set_exception(value.exception())
                else:
                    reply.set_result(value)
        except _Short:
            pass
        except (_Garbled, ValueError, IndexError, RuntimeError) as exc:
            self.fail(errors.ConnectionError(f"Redis sent what is not a reply: {exc}"))
            return
        self.unread = buf[at:] if at < end else b""

    def connection_lost(self, exc: Exception | None) -> None:
        self.fail(errors.ConnectionError(f"Connection closed by server: {exc}" if exc
                                         else "Connection closed by server."))

    def pause_writing(self) -> None:
        self.paused = self.loop.create_future()

    def resume_writing(self) -> None:
        if self.paused is not None and not self.paused.done():
            self.paused.set_result(None)
        self.paused = None

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()
        if self.paused is not None and not self.paused.done():
            self.paused.set_result(None)


def _encode(command: tuple[Any, ...]) -> bytes:
    """``command`` as Redis reads it: an array of bulk strings.

    >>> _encode(("EVALSHA", "ab", 1, "k", 2.5))
    b'*5\\r\\n$7\\r\\nEVALSHA\\r\\n$2\\r\\nab\\r\\n$1\\r\\n1\\r\\n$1\\r\\nk\\r\\n$3\\r\\n2.5\\r\\n'
    """
    parts = [b"*%d\r\n" % len(command)]
    for arg in command:
        kind = type(arg)
        if kind is str:
            arg = arg.encode()
        elif kind is int:
            arg = b"%d" % arg
        elif kind is float:
            arg = repr(arg).encode()
        elif kind is not bytes:
            raise errors.DataError(f"a command's argument must be text, bytes or a number, "
                                   f"not {kind.__name__}")
        parts += (b"$%d\r\n" % len(arg), arg, b"\r\n")
    return b"".join(parts)


class _Short(Exception):
    """The bytes so far end inside a reply: wait for more."""


class _Garbled(Exception):
    """Bytes that are not a reply."""


class _Error(str):
    """An error reply, as text (the exception is raised to its caller, or kept inside an array)."""

    __slots__ = ()

    def exception(self) -> ResponseError:
        if self.startswith("NOSCRIPT"):
            return NoScriptError(self)
        if self.startswith("LOADING"):
            return errors.BusyLoadingError(self)
        return ResponseError(self)


def _reply(buf: bytes, at: int) -> tuple[Any, int]:
    """The reply that starts at ``buf[at]`` and where the next one starts; ``_Short`` if it does not
    end within ``buf``. Integers as ``int``, strings as ``bytes``, arrays as lists, nil as None, as
    redis-py reads them.

    >>> _reply(b"*2\\r\\n:1\\r\\n$3\\r\\nabc\\r\\n:7\\r\\n", 0)
    ([1, b'abc'], 17)
    >>> _reply(b"$-1\\r\\n", 0), _reply(b"+OK\\r\\n", 0)
    ((None, 5), (b'OK', 5))
    """
    end = buf.find(b"\r\n", at)
    if end < 0:
        raise _Short
    kind, line, at = buf[at], buf[at + 1:end], end + 2
    if kind == 58:  # ":" an integer
        return int(line), at
    if kind == 36:  # "$" a bulk string
        size = int(line)
        if size < 0:
            return None, at
        if len(buf) < at + size + 2:
            raise _Short
        return buf[at:at + size], at + size + 2
    if kind == 42:  # "*" an array
        size = int(line)
        if size < 0:
            return None, at
        items = []
        for _ in range(size):
            item, at = _reply(buf, at)
            items.append(item.exception() if type(item) is _Error else item)
        return items, at
    if kind == 43:  # "+" a status
        return bytes(line), at
    if kind == 45:  # "-" an error
        return _Error(line.decode(errors="replace")), at
    raise _Garbled(f"a reply cannot start with {bytes([kind])!r}")
