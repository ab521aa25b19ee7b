"""Redis connections for moves saved from the event loop (``RedisStore.save_async``).

A move's script sent through redis-py's asyncio client costs the server about
100 us of CPU a round trip, of which the client's pool and command layers (a
lock and a health check a command, the script's wrapper) about 30
(docs/deploy.md); a move needs none of them. Each running loop keeps its own
connections, made by redis-py from the store's URL (its password, database,
TLS and timeouts, and its reading of replies): a round trip takes an idle one
(or makes one), sends the script, reads its reply and gives the connection
back. One that failed or was interrupted midway (a reply that may still come
would answer the next command) is closed instead. A script Redis does not hold
(``NOSCRIPT``: Redis restarted or was flushed) is loaded and sent again.
"""

from __future__ import annotations

import asyncio
import weakref
from typing import Any

from redis.asyncio import ConnectionPool
from redis.exceptions import NoScriptError, ResponseError

#: Idle connections a loop keeps; more are closed when given back (a burst of concurrent moves).
KEEP_IDLE = 16


class MoveLines:
    """Connections for moves' scripts, per running event loop."""

    def __init__(self, url: str, timeout: float) -> None:
        self.url, self.timeout = url, timeout
        self._loops: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, tuple[Any, list[Any]]] = (
            weakref.WeakKeyDictionary())

    def _lines(self) -> tuple[Any, list[Any]]:
        """The running loop's connection maker (redis-py's pool, used only to make them) and idle list."""
        loop = asyncio.get_running_loop()
        held = self._loops.get(loop)
        if held is None:
            maker = ConnectionPool.from_url(self.url, socket_connect_timeout=self.timeout,
                                            socket_timeout=self.timeout)
            held = self._loops[loop] = (maker, [])
        return held

    async def run(self, script: Any, keys: list[str], args: list[Any]) -> Any:
        """The reply of ``script`` (a redis-py ``Script``: its text and SHA-1) run on ``keys`` and
        ``args``; redis-py's errors as its client raises them (a connection refused or too slow:
        ``ConnectionError``, ``TimeoutError``)."""
        try:
            return await self._call("EVALSHA", script.sha, len(keys), *keys, *args)
        except NoScriptError:
            await self._call("SCRIPT", "LOAD", script.script)
            return await self._call("EVALSHA", script.sha, len(keys), *keys, *args)

    async def _call(self, *command: Any) -> Any:
        maker, idle = self._lines()
        conn = idle.pop() if idle else maker.make_connection()
        try:
            if not conn.is_connected:  # a new one: its handshake (password, database) first
                await conn.connect()
            await conn.send_command(*command, check_health=False)
            reply = await conn.read_response()
        except ResponseError:  # an error reply: the connection is still in step
            await self._give_back(conn, idle)
            raise
        except BaseException:  # cut, too slow, or the caller gone before its reply came
            await conn.disconnect()
            raise
        await self._give_back(conn, idle)
        return reply

    @staticmethod
    async def _give_back(conn: Any, idle: list[Any]) -> None:
        if len(idle) < KEEP_IDLE:
            idle.append(conn)
        else:
            await conn.disconnect()

    async def close(self) -> None:
        """Close the running loop's idle connections (when the app stops)."""
        held = self._loops.pop(asyncio.get_running_loop(), None)
        if held is not None:
            idle = held[1]
            while idle:
                await idle.pop().disconnect()
