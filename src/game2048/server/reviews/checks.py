"""The engine-like check of finished players' games, in the background.

A ranked players' game is ``checking`` from its finish (``games.standing``,
``records.standing``): the players' board leaves it out until the check is done. The check
(``solver.likeness``) compares its moves with the solver's on the positions
where the choice matters; a game that agrees beyond what non-engine play does
goes to the engines board, marked engine-like, with the figures kept beside
it (``GET /api/games/{id}`` and its review show them). ``EngineChecks`` runs
the checks of every unchecked game, oldest first, in a process of its own at
a lower CPU priority, and takes up what a stopped process left: the database
is the queue. Two processes that check one game at once write the same result.
With ``GAME2048_ENGINE_CHECK=inline`` the finish checks the game itself (for
tests and small sites), and ``off`` lists every game at once, unchecked (an
outcome people rarely reach is held for an operator in every mode).
"""

from __future__ import annotations

import contextlib
import json
import logging
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor
from typing import Any

from sqlalchemy import and_, func, select, update
from sqlalchemy.orm import Session, sessionmaker

from ...spawn import Seed
from ..records.standing import after_check
from ..storage.db import one_writer
from ..storage.models import GameRow
from .processes import end_with

log = logging.getLogger(__name__)

#: Seconds between looks for unchecked games when no finish wakes the checker.
POLL_SECONDS = 5.0
#: The names whose next games take turns (the longest waiting ones).
FAIR_AMONG = 200


def check(size: int, seed: Seed, log_text: str) -> dict[str, Any]:
    """The check's figures for a record (``solver.likeness``)."""
    from ...solver.likeness import likeness

    return likeness(size, seed, log_text)


def record_fields(result: dict[str, Any], size: int, max_tile: int,
                  hold_tiles: dict[int, int]) -> dict[str, Any]:
    """The ``games`` columns a finished check sets: engine_like, the figures, and where the game
    stands now (``records.standing.after_check``)."""
    moved = bool(result["engine_like"])
    return {"engine_like": moved, "likeness": json.dumps(result, separators=(",", ":")),
            **after_check(size, max_tile, moved, hold_tiles)}


#: What a ranked players' finish calls for its standing: ``(size, seed, log, max_tile)`` → columns.
Checking = Callable[[int, Seed, str, int], dict[str, Any]]


def at_finish(mode: str, hold_tiles: dict[int, int]) -> Checking:
    """What a ranked players' finish gets under ``mode`` (GAME2048_ENGINE_CHECK): the check itself
    (``inline``), ``checking`` for the background checker, or (``off``) only the outcome's hold."""
    if mode == "off":
        return lambda size, _seed, _log, max_tile: after_check(size, max_tile, False, hold_tiles)
    if mode == "inline":
        return lambda size, seed, log_text, max_tile: record_fields(check(size, seed, log_text), size,
                                                                    max_tile, hold_tiles)
    return lambda _size, _seed, _log, _tile: {"standing": "checking"}


def apply(session: Session, game_id: str, result: dict[str, Any], hold_tiles: dict[int, int]) -> None:
    """Keep a check's result and place the game (an operator's decision stays as it is)."""
    with one_writer(session):
        row = session.get(GameRow, game_id)
        if row is not None and row.standing == "checking" and not row.decided:
            fields = record_fields(result, row.size, row.max_tile or 0, hold_tiles)
            session.execute(update(GameRow).where(GameRow.id == game_id, GameRow.standing == "checking")
                            .values(**fields))
        session.commit()


def _start_worker(parent: int) -> None:
    """In the check's process: a lower priority (moves and finishes first), and an end with the
    server process (``processes.end_with``)."""
    with contextlib.suppress(OSError):
        os.nice(10)
    end_with(parent)


class EngineChecks:
    """The background checker of one server process (started and stopped by the app's lifespan)."""

    def __init__(self, sessions: sessionmaker[Session], hold_tiles: dict[int, int],
                 pool: Executor | None = None) -> None:
        self.sessions, self.hold_tiles = sessions, hold_tiles
        self._pool = pool
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        #: When this checker last checked a game of each name (round-robin between names).
        self._served: dict[str, float] = {}

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="engine-checks", daemon=True)
        self._thread.start()

    def wake(self) -> None:
        self._wake.set()

    def stop(self) -> None:
        self._stopping.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)

    def _executor(self) -> Executor:
        if self._pool is None:
            # spawned, as the review processes: not forked from a process whose threads may hold locks
            self._pool = ProcessPoolExecutor(max_workers=1, initializer=_start_worker,
                                             initargs=(os.getpid(),),
                                             mp_context=multiprocessing.get_context("spawn"))
        return self._pool

    def _run(self) -> None:
        while not self._stopping.is_set():
            try:
                worked = self.work_once()
            except Exception:  # a fault of ours: logged, and the next look tries again
                log.exception("engine-like check failed")
                worked = False
            if not worked:
                self._wake.wait(POLL_SECONDS)
                self._wake.clear()

    def work_once(self) -> bool:
        """Check one waiting game, if any; whether there was one.

        Fair between players, not oldest first: of each name's oldest waiting game, the one of the
        name this checker served longest ago (never, first) goes next, so a name that floods the
        queue with finished games waits its turn behind everyone else's next game."""
        with self.sessions() as session:
            firsts = (select(GameRow.name, func.min(GameRow.finished_at).label("at"))
                      .where(GameRow.standing == "checking", GameRow.finished_at.is_not(None))
                      .group_by(GameRow.name).order_by("at").limit(FAIR_AMONG).subquery())
            rows = session.execute(
                select(GameRow.id, GameRow.size, GameRow.seed, GameRow.log, GameRow.name)
                .join(firsts, and_(GameRow.name == firsts.c.name, GameRow.finished_at == firsts.c.at))
                .where(GameRow.standing == "checking")).all()
        if not rows:
            return False
        row = min(rows, key=lambda r: self._served.get(r.name or "", -1.0))
        if len(self._served) > 10 * FAIR_AMONG:  # names served long ago count as never served
            self._served = dict(sorted(self._served.items(), key=lambda kv: kv[1])[-FAIR_AMONG:])
        self._served[row.name or ""] = time.monotonic()
        result = self._executor().submit(check, row.size, row.seed, row.log or "").result()
        with self.sessions() as session:
            apply(session, row.id, result, self.hold_tiles)
        return True
