"""Group commit: the SQLite moves saved on the event loop's thread share one transaction.

On SQLite a move is played on the event loop's thread (it takes less time than
handing it to another one), and its commit cost more than its two statements
together. The moves saved during one turn of the loop (the messages of every
socket that arrived together) now go into one open transaction, committed once
at the end of that turn, or, when moves must survive a power cut
(``GAME2048_MOVE_DURABILITY=disk``), once ``DISK_WINDOW`` seconds later, with
the flush. No answer leaves before its move is committed: the socket awaits
its batch's commit first, so what was acknowledged is what the store has, as
before. A failed commit fails every move of the batch (the socket answers each
as a store error) and nothing of it is kept.

A batch needs company: while fewer than two movers (the play sockets open in
the process, and the HTTP moves in hand: ``mover()``) could send a move, each
save commits on its own (one socket's moves come one after another, each after
the answer before it, so they never meet in a turn of the loop). With company
that did not come (``LONE`` batches in a row of one move each), the next
``SOLO`` saves commit on their own, as PostgreSQL skips its ``commit_delay``
below ``commit_siblings``; then a batch is tried again.

The writer lock (``storage.db.one_writer_for``) is held from the batch's first
statement to its commit, so other writers (a finish in a thread, another
worker process) wait for at most one turn of the loop, or the window.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable, Iterator
from typing import Any

#: With ``disk`` durability, how long a batch stays open to gather more moves before its flush:
#: an fsync costs milliseconds, so moves arriving within that time share one.
DISK_WINDOW = 0.002
#: After this many batches in a row that held one move each, the next ``SOLO`` saves commit on
#: their own: a batch costs a little more than a commit when there is nobody to share it with.
LONE = 4
SOLO = 32


class Batch:
    """The moves waiting for one commit. Each awaits a ``waiter()`` of its own, done once the
    batch is on the store's disk (as the durability says) or failed with the commit's error: one
    awaiter cancelled (its socket gone) leaves the others waiting."""

    __slots__ = ("conn", "ended", "error", "handle", "loop", "moves", "thread", "waiters")

    def __init__(self, loop: asyncio.AbstractEventLoop, conn: Any) -> None:
        self.loop = loop
        self.conn = conn
        self.thread = threading.get_ident()  # the loop's: only its saves join
        self.handle: asyncio.Handle | None = None
        self.waiters: list[asyncio.Future[None]] = []
        self.ended = False
        self.error: BaseException | None = None
        self.moves = 0

    def waiter(self) -> asyncio.Future[None]:
        """A future of this awaiter's own: done at once if the batch has already ended."""
        done = self.loop.create_future()
        if not self.ended:
            self.waiters.append(done)
        elif self.error is None:
            done.set_result(None)
        else:
            done.set_exception(self.error)
        return done

    def end(self, exc: BaseException | None) -> None:
        self.ended, self.error = True, exc
        for waiter in self.waiters:
            if waiter.done():  # its socket went away meanwhile
                continue
            if exc is None:
                waiter.set_result(None)
            else:
                waiter.set_exception(exc)
        self.waiters.clear()


class GroupCommit:
    """A store's group commit on the thread of the event loop that holds it open (``with commits:``).

    A save joins the open batch only inside ``with commits:`` on that thread (the
    socket's move path); every other save, in any thread, commits on its own as
    before. ``joined`` is the batch the saves inside this thread's last ``with``
    joined (None if none did): the caller awaits a ``waiter()`` of it before it
    answers.
    """

    def __init__(self, writer: Any, drop: Callable[[Any], None], window: float = 0.0) -> None:
        self.writer = writer
        self.drop = drop  # lets go of a connection whose batch failed
        self.window = window
        self.batch: Batch | None = None
        self._here = threading.local()  # per thread: inside ``with``, and the batch it joined
        # like PostgreSQL's commit_siblings: batches of one move in a row mean nobody shares the
        # commit (a light load); then the next saves commit on their own, and a batch is tried again
        self.lone = 0
        self.solo = 0
        # the play sockets open and the HTTP moves in hand (``mover()``): a batch needs two
        self.movers = 0

    def __enter__(self) -> GroupCommit:
        here = self._here
        here.on, here.joined = True, None
        return self

    def __exit__(self, *exc: object) -> None:
        self._here.on = False

    @contextlib.contextmanager
    def mover(self) -> Iterator[None]:
        """Held by a play socket while it is open and by an HTTP move while it is in hand: someone
        who may save a move that could share a commit. With fewer than two, saves commit alone."""
        self.movers += 1
        try:
            yield
        finally:
            self.movers -= 1

    @property
    def joined(self) -> Batch | None:
        """The batch the saves inside this thread's last ``with`` joined (None if none did)."""
        return getattr(self._here, "joined", None)

    def here(self) -> bool:
        """Whether a save made now joins the batch: inside ``with`` on this thread, with no batch
        open on another thread's loop (a second loop's saves commit on their own), and unless the
        load is light enough that the save had better commit on its own (fewer than two
        ``movers``; ``LONE``, ``SOLO``)."""
        if not getattr(self._here, "on", False):
            return False
        batch = self.batch
        if batch is not None:
            return batch.thread == threading.get_ident()
        if self.movers < 2:
            return False
        if self.solo:
            self.solo -= 1
            return False
        return True

    def join(self, conn: Any) -> Batch:
        """The open batch, opened on ``conn`` (taking the writer lock) if there is none."""
        batch = self.batch
        if batch is None:
            self.writer.__enter__()
            loop = asyncio.get_running_loop()
            batch = self.batch = Batch(loop, conn)
            if self.window > 0:
                batch.handle = loop.call_later(self.window, self._commit, batch)
            else:
                batch.handle = loop.call_soon(self._commit, batch)
        batch.moves += 1
        self._here.joined = batch
        return batch

    def open_on(self, conn: Any) -> bool:
        """Whether ``conn`` holds the open batch's transaction (a read on it must not commit it)."""
        return self.batch is not None and self.batch.conn is conn

    def fail(self, exc: BaseException) -> None:
        """A statement of the batch failed: roll it all back; every move in it fails with ``exc``."""
        batch = self.batch
        if batch is not None:
            if batch.handle is not None:
                batch.handle.cancel()
            self._end(batch, exc)

    def _commit(self, batch: Batch) -> None:
        if self.batch is not batch:
            return
        try:
            batch.conn.commit()
        except Exception as exc:
            self._end(batch, exc)
        else:
            self._end(batch, None)

    def _end(self, batch: Batch, exc: BaseException | None) -> None:
        self.batch = None
        if batch.moves > 1:
            self.lone = 0
        else:
            self.lone += 1
            if self.lone >= LONE:
                self.lone, self.solo = 0, SOLO
        try:
            if exc is not None:
                self.drop(batch.conn)  # rolled back and closed: the next move opens a new one
        finally:
            self.writer.__exit__(None, None, None)
        batch.end(exc)
