"""Reviews of finished games: asked for once, made once in the background, kept.

The first request for a game's review queues it (a row in ``reviews``); every
server process with review workers claims queued reviews from the database
and grades the moves in a process pool of its own, at a lower CPU priority,
so that moves and finishes are served first. A claim is a conditional
``UPDATE … WHERE status = 'queued'``: exactly one process wins it, on any
number of workers and hosts sharing the database. A process working on a
review shows it is alive after every piece of the game it grades; a review
whose process stopped showing that (killed, host lost) is queued again, at
most ``MAX_ATTEMPTS`` times.

Plain functions over a session do the bookkeeping (``request_review``,
``claim``, ``report``, ``finish``); ``ReviewQueue`` is the background part.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import socket
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from ...spawn import Seed
from ..config import ReviewSettings
from ..errors import ClientError
from ..records.records import Record, get_record
from ..storage.db import one_writer
from ..storage.models import GameRow, ReviewRow
from .processes import end_with

log = logging.getLogger(__name__)

#: A running review whose process has not reported for this long is queued again.
LEASE = timedelta(minutes=5)
#: Seconds between looks at the queue when nothing wakes a worker (reviews queued by other processes).
POLL_SECONDS = 2.0
#: Times a review is started before it is given up as failed.
MAX_ATTEMPTS = 3


def preset_for(record: Record, settings: ReviewSettings) -> str:
    """The preset a game is reviewed with: the configured one, ``fast`` for very long games."""
    return settings.preset if record.moves <= settings.long_moves else "fast"


def twin(session: Session, game_id: str, preset: str) -> ReviewRow | None:
    """A done review, with ``preset``, of another game with the same content as ``game_id``'s
    (size, seed, start, log): a review depends on nothing else, so it is made once and copied.

    The same record kept five times as practice is reviewed once."""
    game = session.get(GameRow, game_id)
    if game is None or game.log is None:
        return None
    other = GameRow.__table__.alias("other")
    same_start = other.c.start.is_(None) if game.start is None else other.c.start == game.start
    return session.scalars(
        select(ReviewRow).join(other, other.c.id == ReviewRow.game_id)
        .where(ReviewRow.status == "done", ReviewRow.preset == preset, ReviewRow.game_id != game_id,
               other.c.size == game.size, other.c.seed == game.seed, other.c.log == game.log, same_start)
        .limit(1)
    ).first()


def request_review(
    session: Session, record: Record, client: str, settings: ReviewSettings, now: datetime | None = None
) -> ReviewRow:
    """The review row of ``record``'s game, queued now if nobody asked before.

    Refuses (ClientError, nothing written) a client that already has
    ``settings.per_client`` reviews waiting (429), and any new review while
    ``settings.queue`` are waiting (503, not the client's fault).
    """
    from ...solver.review import graded_count

    row = session.get(ReviewRow, record.id)
    if row is not None:
        return row
    client = client[:64]
    waiting = (ReviewRow.status == "queued") | (ReviewRow.status == "running")
    mine = session.scalar(
        select(func.count()).select_from(ReviewRow).where(ReviewRow.client == client, waiting)
    )
    if (mine or 0) >= settings.per_client:
        raise ClientError(429, f"you have {mine} reviews waiting; ask again when one is done",
                          {"Retry-After": "30"}, code="reviews_waiting", fields={"waiting": mine})
    preset = preset_for(record, settings)
    made = twin(session, record.id, preset)
    if made is not None:  # made before for the same content: copied, no work, no place in the queue
        row = ReviewRow(game_id=record.id, status="done", preset=preset, client=client, total=made.total,
                        done=made.done, attempts=0, requested_at=now or datetime.now(UTC),
                        finished_at=now or datetime.now(UTC), result=made.result)
        with one_writer(session):
            session.add(row)
            try:
                session.commit()
            except IntegrityError:
                session.rollback()
                return session.get(ReviewRow, record.id, populate_existing=True)  # type: ignore[return-value]
        return row
    queued = session.scalar(select(func.count()).select_from(ReviewRow).where(ReviewRow.status == "queued"))
    if (queued or 0) >= settings.queue:
        raise ClientError(503, "the review queue is full; try again in a few minutes", {"Retry-After": "120"},
                          code="review_queue_full", fields={"retry_after": 120})
    row = ReviewRow(game_id=record.id, status="queued", preset=preset, client=client,
                    total=graded_count(record.log), done=0, attempts=0,
                    requested_at=now or datetime.now(UTC))
    with one_writer(session):
        session.add(row)
        try:
            session.commit()
        except IntegrityError:  # asked for at the same moment by someone else: theirs stands
            session.rollback()
            return session.get(ReviewRow, record.id, populate_existing=True)  # type: ignore[return-value]
    return row


@dataclass(frozen=True)
class Job:
    """A claimed review: what to grade."""

    game_id: str
    size: int
    seed: Seed
    log: str
    preset: str
    #: The position a practice game began from (None for an opening).
    start_board: list[list[int]] | None = None
    #: Who asked: the review's CPU time counts against this address's budget.
    client: str = ""


def claim(session: Session, worker: str, now: datetime | None = None) -> Job | None:
    """Take a queued review for ``worker``, or None when none is left: the oldest of the client that
    was served least in the last hour (running reviews and those made, by who asked), so one
    address asking again and again waits behind everyone else.

    A review whose content (size, seed, start, log) was reviewed before is copied, not made."""
    now = now or datetime.now(UTC)
    waiting = session.execute(
        select(ReviewRow.game_id, ReviewRow.client).where(ReviewRow.status == "queued")
        .order_by(ReviewRow.requested_at, ReviewRow.game_id).limit(64)
    ).all()
    served = dict(session.execute(
        select(ReviewRow.client, func.count()).where(
            (ReviewRow.status == "running")
            | ((ReviewRow.status == "done") & (ReviewRow.finished_at > now - FAIR_WINDOW)))
        .group_by(ReviewRow.client)
    ).all())
    order = sorted(range(len(waiting)), key=lambda i: (served.get(waiting[i][1], 0), i))
    candidates = [waiting[i][0] for i in order[:8]]
    for game_id in candidates:
        with one_writer(session):
            won = session.execute(
                update(ReviewRow).where(ReviewRow.game_id == game_id, ReviewRow.status == "queued")
                .values(status="running", worker=worker, heartbeat_at=now, done=0,
                        attempts=ReviewRow.attempts + 1)
            ).rowcount  # type: ignore[attr-defined]
            session.commit()
        if won != 1:
            continue  # another process took it first
        row = session.get(ReviewRow, game_id, populate_existing=True)
        try:
            record = get_record(session, game_id)
        except ClientError as exc:  # the game is gone or no longer public: nothing to review
            _set(session, game_id, worker, status="failed", error=exc.message, finished_at=now)
            continue
        assert row is not None
        made = twin(session, game_id, row.preset)
        if made is not None:  # the same content was reviewed meanwhile: copy it
            _set(session, game_id, worker, status="done", done=made.done, result=made.result, finished_at=now)
            continue
        board = record.start["board"] if record.start else None
        return Job(game_id, record.size, record.seed, record.log, row.preset, board,  # type: ignore[arg-type]
                   row.client)
    return None


#: How far back the fair queue looks at whom it served.
FAIR_WINDOW = timedelta(hours=1)


def _set(session: Session, game_id: str, holder: str, **values: Any) -> bool:
    """Update the review if ``holder`` still holds it; False if it was taken back meanwhile."""
    with one_writer(session):
        held = session.execute(
            update(ReviewRow)
            .where(ReviewRow.game_id == game_id, ReviewRow.worker == holder, ReviewRow.status == "running")
            .values(**values)
        ).rowcount  # type: ignore[attr-defined]
        session.commit()
    return held == 1


def report(session: Session, game_id: str, worker: str, done: int, now: datetime | None = None) -> bool:
    """Record progress (and that ``worker`` is alive); False if the review is no longer its own."""
    return _set(session, game_id, worker, done=done, heartbeat_at=now or datetime.now(UTC))


def finish(session: Session, game_id: str, worker: str, result: dict[str, Any],
           now: datetime | None = None) -> bool:
    """Keep the finished review; False if the review is no longer ``worker``'s."""
    return _set(session, game_id, worker, status="done", done=len(result["moves"]),
                result=json.dumps(result, separators=(",", ":")), finished_at=now or datetime.now(UTC))


def fail(session: Session, game_id: str, worker: str, error: str, now: datetime | None = None) -> bool:
    return _set(session, game_id, worker, status="failed", error=error[:2000],
                finished_at=now or datetime.now(UTC))


def release(session: Session, game_id: str, worker: str) -> bool:
    """Put a review back in the queue (this process is stopping); another will start it again,
    from the first move, so its progress goes back to 0."""
    return _set(session, game_id, worker, status="queued", worker=None, heartbeat_at=None, done=0,
                attempts=ReviewRow.attempts - 1)


def requeue_stale(session: Session, now: datetime | None = None, lease: timedelta = LEASE) -> int:
    """Queue again the reviews whose process stopped reporting; fail those started too often."""
    now = now or datetime.now(UTC)
    stale = (ReviewRow.status == "running") & (ReviewRow.heartbeat_at < now - lease)
    # a read first: every worker looks every few seconds, and a write would queue behind finishes on SQLite
    if session.scalar(select(ReviewRow.game_id).where(stale).limit(1)) is None:
        session.rollback()
        return 0
    return _give_back(session, stale, now)


def retry(session: Session, game_id: str, worker: str, now: datetime | None = None) -> int:
    """Queue again (or fail, if started too often) a review whose process died under ``worker``."""
    held = (ReviewRow.game_id == game_id) & (ReviewRow.worker == worker) & (ReviewRow.status == "running")
    return _give_back(session, held, now or datetime.now(UTC))


def _give_back(session: Session, where: Any, now: datetime) -> int:
    with one_writer(session):
        gave_up = session.execute(
            update(ReviewRow).where(where, ReviewRow.attempts >= MAX_ATTEMPTS)
            .values(status="failed", finished_at=now,
                    error=f"the review stopped {MAX_ATTEMPTS} times before it was done")
        ).rowcount  # type: ignore[attr-defined]
        again = session.execute(
            update(ReviewRow).where(where).values(status="queued", worker=None, heartbeat_at=None)
        ).rowcount  # type: ignore[attr-defined]
        session.commit()
    return int(gave_up or 0) + int(again or 0)


def pieces(log: str) -> list[tuple[int, int]]:
    """The log cut into ``(start, stop)`` letter ranges: progress and liveness are reported between them.

    About twenty pieces, each 200 to 2,000 letters (each piece replays the
    game from the start without the solver, which is quick).

    >>> pieces("L" * 450)
    [(0, 200), (200, 400), (400, 450)]
    """
    step = min(2000, max(200, len(log) // 20))
    return [(i, min(i + step, len(log))) for i in range(0, len(log), step)] or [(0, 0)]


#: In a review process: set when the server that owns it is stopping (``ReviewQueue.stop``).
_stopping: Any = None


def grade_piece(size: int, seed: Seed, log: str, preset: str, start: int, stop: int,
                start_board: list[list[int]] | None = None) -> list[dict[str, Any]] | None:
    """The review entries of ``log[start:stop]`` (run in a review process); None if the server
    stops meanwhile (it looks after every move, so a stop waits for one search, not a piece)."""
    from ...solver.review import grade_moves

    entries = []
    for entry in grade_moves(size, seed, log, preset, start=start, stop=stop, start_board=start_board):
        if _stopping is not None and _stopping.is_set():
            return None
        entries.append(entry)
    return entries


def grade_piece_timed(size: int, seed: Seed, log: str, preset: str, start: int, stop: int,
                      start_board: list[list[int]] | None = None,
                      ) -> tuple[list[dict[str, Any]] | None, float]:
    """``grade_piece`` and the CPU seconds its process spent on it: what the client who asked is
    charged. Not the wall clock, which would also charge the pool's start (a spawned process loading
    the solver) and the time the review process, at its niceness, waits for a busy machine's cores."""
    began = time.process_time()
    piece = grade_piece(size, seed, log, preset, start, stop, start_board)
    return piece, time.process_time() - began


def _review_process_start(nice: int, stopping: Any = None, parent: int | None = None) -> None:
    """A review process yields the CPU to the server's own processes, and loads the solver once.

    It ignores SIGINT: a Ctrl-C in a terminal reaches every process of the group, and the
    server that owns the pool stops it (``stopping``, an Event) after its current move. It ends
    with the server process ``parent`` however that one ends (``processes.end_with``).
    """
    global _stopping
    _stopping = stopping
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if nice and hasattr(os, "nice"):
        os.nice(nice)
    if parent is not None:
        end_with(parent)
    from ...solver import warm_up

    warm_up()


class ReviewQueue:
    """This process's review workers: ``settings.workers`` threads, each driving one review process.

    ``start()`` and ``stop()`` come from the app's lifespan; ``wake()`` tells
    an idle worker that a review was just queued (otherwise they look every
    ``POLL_SECONDS``).
    """

    def __init__(self, sessions: sessionmaker[Session], settings: ReviewSettings,
                 executor: Callable[[], Executor] | None = None,
                 charge: Callable[[str, float], None] | None = None) -> None:
        self.sessions = sessions
        #: ``charge(client, seconds)``: a review's CPU time, against the budget of who asked.
        self.charge = charge
        self.settings = settings
        self.worker = f"{socket.gethostname()[:40]}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self._make_executor = executor or self._process_pool
        self._executor: Executor | None = None
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._pool_stopping: Any = None  # the review processes' own stop signal, with the pool
        self._threads: list[threading.Thread] = []

    def _process_pool(self) -> Executor:
        import multiprocessing

        context = multiprocessing.get_context("spawn")
        self._pool_stopping = context.Event()
        return ProcessPoolExecutor(
            max_workers=self.settings.workers, mp_context=context,
            initializer=_review_process_start,
            initargs=(self.settings.nice, self._pool_stopping, os.getpid()),
        )

    def _pool(self) -> Executor:
        with self._lock:  # made on the first review, so an idle server starts no processes
            if self._executor is None:
                self._executor = self._make_executor()
            return self._executor

    def start(self) -> None:
        for i in range(self.settings.workers):
            t = threading.Thread(target=self._run, name=f"review-{i}", daemon=True)
            t.start()
            self._threads.append(t)

    def wake(self) -> None:
        self._wake.set()

    def stop(self) -> None:
        """Stop within a move: the review processes drop the piece they grade, the reviews being
        made go back to the queue (whoever claims one next grades it from the start), and the
        pool shuts down."""
        self._stopping.set()
        self._wake.set()
        if self._pool_stopping is not None:
            self._pool_stopping.set()
        for t in self._threads:
            t.join(timeout=60)
        with self._lock:
            if self._executor is not None:
                self._executor.shutdown(wait=True, cancel_futures=True)
                self._executor = None
            # dropped now, its named semaphores are released now: a worker process does not
            # release them when it exits, and the resource tracker would warn that they leaked
            self._pool_stopping = None

    def _run(self) -> None:
        while not self._stopping.is_set():
            try:
                if self.work_once():
                    continue
            except Exception:  # the database went away for a moment: try again later
                log.exception("review worker: could not reach the queue")
            self._wake.wait(POLL_SECONDS)
            self._wake.clear()

    def work_once(self) -> bool:
        """Claim one queued review and make it (in this thread); False if none was waiting."""
        with self.sessions() as s:
            requeue_stale(s)
            job = claim(s, self.worker)
        if job is None:
            return False
        self._review(job)
        return True

    def _review(self, job: Job) -> None:
        moves: list[dict[str, Any]] = []
        try:
            for start, stop in pieces(job.log):
                piece, used = (None, 0.0) if self._stopping.is_set() else self._pool().submit(
                    grade_piece_timed, job.size, job.seed, job.log, job.preset, start, stop, job.start_board
                ).result()
                if self.charge is not None and job.client:
                    self.charge(job.client, used)
                if piece is None:  # stopping: another process, or this server started again, makes it
                    with self.sessions() as s:
                        release(s, job.game_id, self.worker)
                    return
                moves += piece
                with self.sessions() as s:
                    if not report(s, job.game_id, self.worker, len(moves)):
                        return  # taken back as stale and given to another process
        except BrokenProcessPool:
            # the review process died (killed, out of memory): a new pool, and the review
            # goes back to the queue; a game that kills it every time fails after MAX_ATTEMPTS
            log.exception("review process of game %s died", job.game_id)
            with self._lock:
                if self._executor is not None:
                    self._executor.shutdown(wait=False)
                    self._executor = None
            with self.sessions() as s:
                retry(s, job.game_id, self.worker)
            return
        except Exception as exc:
            log.exception("review of game %s failed", job.game_id)
            with self.sessions() as s:
                fail(s, job.game_id, self.worker, f"the review could not be made: {exc}")
            return
        from ...solver.review import summarise

        with self.sessions() as s:
            finish(s, job.game_id, self.worker, summarise(job.size, job.seed, job.preset, moves))


def review_for(db: Session, game_id: str, client: str, state: Any) -> tuple[Record, ReviewRow]:
    """The record of a public game and its review row, the review queued now if it is new (and this
    process's workers woken); ``ClientError`` as for the record. ``state`` is the app's state."""
    record = get_record(db, game_id)
    if db.get(ReviewRow, record.id) is None:
        state.cpu_budget.check(client)  # a new review is work: not for an address that spent its CPU
    row = request_review(db, record, client, state.settings.reviews)
    if row.status in ("queued", "running"):
        queue = getattr(state, "reviews", None)
        if queue is not None:
            queue.wake()
    return record, row
