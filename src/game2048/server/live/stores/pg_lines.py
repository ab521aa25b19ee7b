"""PostgreSQL connections for moves saved from the event loop (``DatabaseStore.save_async``).

A move's one statement through psycopg's asyncio connection cost the server
about 80 us of CPU (a cursor, its query and parameters adapted, a
generator driven through the loop a step at a time, bench/server.md); a move
needs none of that. Each running loop keeps a few connections of its own,
made by psycopg from the store's URL (its TLS, password and options, and the
moves' session settings, ``session_sql``), and then driven through libpq
straight, in pipeline mode: a statement is prepared once a connection, each
call sends its parameters and a sync at once, without waiting for the
replies before it, and the results are read where the bytes arrive (a reader
on the socket), each handed to the oldest caller still waiting. A call takes
an idle connection, or opens one (at most ``size``), or else queues on the
one with the fewest waiting: a statement that waits for a lock holds up
only the calls behind it on its connection.

- A caller gone before its result leaves its place: the result is read and
  dropped (the statement may have run, as with any driver).
- An error result is raised to its caller as psycopg's error for it; the
  connection goes on (each statement has its own sync).
- A connection cut, or with a caller waiting longer than ``timeout``, is
  closed and every caller on it fails (``psycopg.OperationalError``); the
  next call opens a new one.
"""

from __future__ import annotations

import asyncio
import weakref
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import Any

from .pipeline import Pipelined

#: libpq's type numbers for a statement's parameters.
INT8, TEXT, TIMESTAMPTZ = 20, 25, 1184


@dataclass(frozen=True)
class Statement:
    """A statement prepared on each connection that runs it: ``$1``... its parameters, of ``types``."""

    name: str
    sql: str
    types: tuple[int, ...]

    @classmethod
    def of(cls, name: str, sql: str, types: tuple[int, ...]) -> Statement:
        """The statement of ``sql`` written with psycopg's ``%s`` placeholders.

        >>> Statement.of("s", "SELECT %s + %s", (INT8, INT8)).sql
        'SELECT $1 + $2'
        """
        parts = sql.split("%s")
        if len(parts) != len(types) + 1:
            raise ValueError(f"{len(parts) - 1} placeholders for {len(types)} types")
        return cls(name, "".join(f"{part}${i}" for i, part in enumerate(parts[:-1], 1)) + parts[-1], types)


class MoveLines:
    """Connections for moves' statements, per running event loop."""

    def __init__(self, conninfo: str, session_sql: str, size: int, timeout: float) -> None:
        self.conninfo, self.session_sql, self.size, self.timeout = conninfo, session_sql, size, timeout
        self._loops: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Held] = weakref.WeakKeyDictionary()

    async def run(self, statement: Statement, params: tuple[Any, ...]) -> int:
        """The rows ``statement`` changed (or returned), run with ``params`` (int, str, an aware
        datetime or None each); psycopg's errors (``OperationalError``: cut, refused or too slow)."""
        loop = asyncio.get_running_loop()
        held = self._loops.get(loop)
        if held is None:
            held = self._loops[loop] = _Held()
        while True:
            line = held.pick()
            room = len(held.lines) + held.opening < self.size
            if line is not None and (not line.waiting or not room):
                break
            if room:
                line = await self._open(held)
                break
            # every place is being opened: take one of those, or share the failure of the opening
            # (PostgreSQL down or unreachable: each would otherwise wait out a timeout in turn)
            failure = await held.opened()
            if failure is not None:
                raise failure
        return await line.run(statement, [_text(p) for p in params])

    async def _open(self, held: _Held) -> _Line:
        held.opening += 1
        failure: Exception | None = None
        try:
            line = await _Line.open(self.conninfo, self.session_sql, self.timeout)
            held.lines.append(line)
        except Exception as exc:
            failure = exc
            raise
        finally:
            held.opening -= 1
            held.open_done(failure)
        return line

    def connections(self) -> int:
        """How many connections the running loop holds open."""
        held = self._loops.get(asyncio.get_running_loop())
        return 0 if held is None else sum(line.failed is None for line in held.lines)

    async def close(self) -> None:
        """Close the running loop's connections (when the app stops)."""
        held = self._loops.pop(asyncio.get_running_loop(), None)
        if held is not None:
            import psycopg

            for line in held.lines:
                line.fail(psycopg.OperationalError("the server stopped"))


class _Held:
    """One loop's connections."""

    def __init__(self) -> None:
        self.lines: list[_Line] = []
        self.opening = 0
        self._opened: asyncio.Future[Exception | None] | None = None

    async def opened(self) -> Exception | None:
        """Wait until a connection being opened is open (None) or failed to open (why)."""
        if self._opened is None:
            self._opened = asyncio.get_running_loop().create_future()
        return await asyncio.shield(self._opened)

    def open_done(self, failure: Exception | None) -> None:
        if self._opened is not None:
            self._opened.set_result(failure)
            self._opened = None

    def pick(self) -> _Line | None:
        """An idle connection, else the one with the fewest callers waiting (None: none open)."""
        best, closed = None, False
        for line in self.lines:
            if line.failed is not None:
                closed = True
                continue
            if not line.waiting:
                return line
            if best is None or len(line.waiting) < len(best.waiting):
                best = line
        if closed:  # forgotten, so that new ones may be opened in their place
            self.lines = [line for line in self.lines if line.failed is None]
        return best


class _Line(Pipelined):
    """One connection in libpq's pipeline mode (``pipeline.Pipelined``); a statement is prepared on
    it the first time it runs there."""

    def __init__(self, conn: Any, timeout: float) -> None:
        from psycopg import pq

        super().__init__(timeout)
        self.conn, self.pg = conn, conn.pgconn  # psycopg's connection owns libpq's: kept with it
        self.fd = self.pg.socket
        status = pq.ExecStatus
        self.ok, self.tuples, self.sync = status.COMMAND_OK, status.TUPLES_OK, status.PIPELINE_SYNC
        self.result: Any = None
        self.prepared: set[str] = set()
        self.writing = False

    @classmethod
    async def open(cls, conninfo: str, session_sql: str, timeout: float) -> _Line:
        import psycopg

        try:
            async with asyncio.timeout(timeout + 1):
                conn = await psycopg.AsyncConnection.connect(conninfo, autocommit=True,
                                                             connect_timeout=max(1, int(timeout)))
                await conn.execute(session_sql)
        except TimeoutError:
            raise psycopg.OperationalError("connecting to PostgreSQL took too long") from None
        line = cls(conn, timeout)
        line.pg.nonblocking = 1
        line.pg.enter_pipeline_mode()
        line.loop.add_reader(line.fd, line._readable)
        return line

    async def run(self, statement: Statement, params: list[bytes | None]) -> int:
        if self.failed is not None:
            raise self.failed
        pg, name = self.pg, statement.name.encode()
        try:
            if statement.name not in self.prepared:
                self.prepared.add(statement.name)
                pg.send_prepare(name, statement.sql.encode(), statement.types)
                pg.pipeline_sync()
                self.expect().add_done_callback(partial(self._prepared, statement.name))
            pg.send_query_prepared(name, params)
            pg.pipeline_sync()
        except Exception as exc:  # libpq could not queue them: the connection is broken
            self.fail(exc)
            raise self.failed from None  # type: ignore[misc]
        done = self.expect()
        self._flush()
        return await done  # type: ignore[no-any-return]

    def _prepared(self, name: str, reply: asyncio.Future[int]) -> None:
        """A failed prepare is sent again by the next call (the call it came with fails by itself)."""
        if not reply.cancelled() and reply.exception() is not None:
            self.prepared.discard(name)

    def _flush(self) -> None:
        """Send what libpq holds; what the socket cannot take yet goes when it can."""
        if self.failed is not None:
            return
        try:
            left = self.pg.flush()
        except Exception as exc:
            self.fail(exc)
            return
        if left and not self.writing:
            self.writing = True
            self.loop.add_writer(self.fd, self._flush)
        elif not left and self.writing:
            self.writing = False
            self.loop.remove_writer(self.fd)

    def _readable(self) -> None:
        pg = self.pg
        try:
            pg.consume_input()
            while not pg.is_busy():
                result = pg.get_result()
                if result is None:  # the end of one statement's results, or nothing more for now
                    if self.result is None:
                        break
                    self._hand_out(self.result)
                    self.result = None
                elif result.status != self.sync:  # each statement's own sync says nothing
                    self.result = result
        except Exception as exc:  # the connection lost: libpq says so here
            self.fail(exc)

    def _hand_out(self, result: Any) -> None:
        status = result.status
        done = self.next_caller()
        if done is None:  # its caller is gone
            return
        if status == self.ok or status == self.tuples:
            done.set_result(result.command_tuples or 0)
        else:
            from psycopg import errors

            done.set_exception(errors.error_from_result(result, encoding="utf-8"))

    def too_slow(self) -> Exception:
        import psycopg

        return psycopg.OperationalError("PostgreSQL did not answer in time")

    def fail(self, exc: Exception) -> None:
        import psycopg

        if not isinstance(exc, psycopg.Error):
            exc = psycopg.OperationalError(str(exc) or type(exc).__name__)
        super().fail(exc)

    def close(self) -> None:
        self.loop.remove_reader(self.fd)
        if self.writing:
            self.loop.remove_writer(self.fd)
        self.pg.finish()


def _text(value: Any) -> bytes | None:
    """A parameter as PostgreSQL reads it in text.

    >>> from datetime import UTC
    >>> _text(12), _text("L"), _text(datetime(2026, 12, 6, 19, 0, tzinfo=UTC)), _text(None)
    (b'12', b'L', b'2026-12-06T19:00:00+00:00', None)
    """
    kind = type(value)
    if kind is int:
        return b"%d" % value
    if kind is str:
        return value.encode()  # type: ignore[no-any-return]
    if value is None:
        return None
    if isinstance(value, datetime) and value.tzinfo is not None:
        return value.isoformat().encode()
    raise TypeError(f"a move's parameter must be an int, a str, an aware datetime or None, "
                    f"not {kind.__name__}")
