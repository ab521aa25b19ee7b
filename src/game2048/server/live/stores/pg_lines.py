"""PostgreSQL connections for moves saved from the event loop (``DatabaseStore.save_async``).

An asyncio connection belongs to the event loop it was opened on, so each running
loop has a small pool of its own (``MovePool.on_loop``): at most ``size``
connections, in autocommit, set up by ``session_sql`` when opened (the moves'
``synchronous_commit``), taken one per statement and given back after it. A
connection whose statement failed is closed, not given back: the next one is
opened anew (a database that restarted leaves every kept connection dead).
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any


class _LoopPool:
    """One loop's connections: the idle ones, how many are open, and who waits for one."""

    def __init__(self, conninfo: str, session_sql: str, size: int, timeout: float) -> None:
        self.conninfo, self.session_sql, self.size, self.timeout = conninfo, session_sql, size, timeout
        self.idle: list[Any] = []
        self.open = 0
        self.freed = asyncio.Condition()

    async def take(self) -> Any:
        async with self.freed:
            while not self.idle and self.open >= self.size:
                await self.freed.wait()
            if self.idle:
                return self.idle.pop()
            self.open += 1
        try:
            return await self._connect()
        except BaseException:
            await self._closed()
            raise

    async def _connect(self) -> Any:
        import psycopg

        conn = await psycopg.AsyncConnection.connect(self.conninfo, autocommit=True,
                                                     connect_timeout=max(1, int(self.timeout)))
        await conn.execute(self.session_sql)
        return conn

    async def give_back(self, conn: Any) -> None:
        async with self.freed:
            self.idle.append(conn)
            self.freed.notify()

    async def _closed(self) -> None:
        async with self.freed:
            self.open -= 1
            self.freed.notify()

    async def drop(self, conn: Any) -> None:
        try:
            await conn.close()
        finally:
            await self._closed()

    async def close(self) -> None:
        idle, self.idle = self.idle, []
        for conn in idle:
            await self.drop(conn)


class MovePool:
    """Connections for moves, per running event loop."""

    def __init__(self, conninfo: str, session_sql: str, size: int, timeout: float) -> None:
        self.conninfo, self.session_sql, self.size, self.timeout = conninfo, session_sql, size, timeout
        self._pools: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LoopPool] = (
            weakref.WeakKeyDictionary())

    def _pool(self) -> _LoopPool:
        loop = asyncio.get_running_loop()
        pool = self._pools.get(loop)
        if pool is None:
            pool = self._pools[loop] = _LoopPool(self.conninfo, self.session_sql, self.size, self.timeout)
        return pool

    @asynccontextmanager
    async def connection(self) -> AsyncIterator[Any]:
        """A connection of this loop's pool for one statement; closed instead of given back if the
        statement failed."""
        pool = self._pool()
        conn = await pool.take()
        try:
            yield conn
        except BaseException:
            await pool.drop(conn)
            raise
        await pool.give_back(conn)

    async def close(self) -> None:
        """Close the running loop's idle connections (when the app stops)."""
        pool = self._pools.pop(asyncio.get_running_loop(), None)
        if pool is not None:
            await pool.close()
