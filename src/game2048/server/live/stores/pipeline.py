"""What the stores' pipelined connections share (``redis_lines``, ``pg_lines``): a connection that
sends each command as it comes, without waiting for the replies before it, and hands each reply to
the oldest caller still waiting (a server answers a connection's commands in the order they came).

A caller gone before its reply keeps its place until the reply comes and is dropped, so the
rest stay in step. The oldest caller's wait is watched by one timer a connection (moved on
lazily, not one a command): past ``timeout`` the connection is given up. A connection given up
(``fail``) is closed, and every caller still waiting gets the reason.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Any


class Pipelined:
    """A pipelined connection's callers, oldest first, each with when its command was sent."""

    def __init__(self, timeout: float) -> None:
        self.loop = asyncio.get_running_loop()
        self.timeout = timeout
        self.waiting: deque[tuple[asyncio.Future[Any], float]] = deque()
        #: Why the connection was given up; None while it is in use.
        self.failed: Exception | None = None
        self._watch: asyncio.TimerHandle | None = None

    def expect(self) -> asyncio.Future[Any]:
        """Note a command just sent: the future its reply will come in."""
        now = self.loop.time()
        reply = self.loop.create_future()
        self.waiting.append((reply, now))
        if self._watch is None:
            self._watch = self.loop.call_at(now + self.timeout, self._check)
        return reply

    def next_caller(self) -> asyncio.Future[Any] | None:
        """The oldest caller, for the reply that just came: None if it is gone, and the reply is
        dropped. ``RuntimeError`` for a reply no command asked for."""
        if not self.waiting:
            raise RuntimeError("a reply nobody asked for")
        reply = self.waiting.popleft()[0]
        return None if reply.done() else reply

    def _check(self) -> None:
        self._watch = None
        if not self.waiting or self.failed is not None:
            return
        due = self.waiting[0][1] + self.timeout
        if self.loop.time() >= due:
            self.fail(self.too_slow())
        else:
            self._watch = self.loop.call_at(due, self._check)

    def too_slow(self) -> Exception:
        """What the callers get when the oldest waited longer than ``timeout``."""
        return TimeoutError("no answer in time")

    def close(self) -> None:
        """Close the connection itself (``fail`` calls it once)."""

    def fail(self, exc: Exception) -> None:
        """Give the connection up: closed, and every caller still waiting gets ``exc``."""
        if self.failed is not None:
            return
        self.failed = exc
        if self._watch is not None:
            self._watch.cancel()
            self._watch = None
        self.close()
        while self.waiting:
            reply = self.waiting.popleft()[0]
            if not reply.done():
                reply.set_exception(exc)
