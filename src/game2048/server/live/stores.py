"""Where games in play are kept, so that every worker on every host sees them.

Two stores with one interface: the database (the default: SQLite or
PostgreSQL, the game's row in ``games``) and Redis (when ``REDIS_URL`` is set:
a hash and a log string per game, the database keeping only what the game
was issued as and, once finished, its record).

Every change is a compare-and-set on ``at``, the length of the game's log:
``save(game_id, expected_at, ...)`` writes only if the stored ``at`` is still
the one the caller read, so two workers can never both extend a game; the
loser re-reads. A move costs the same however long the game is: it rewrites
the small position (the snapshot) and appends its letters (a row of
``game_moves``, on SQLite the row's short ``tail`` first, or Redis
``APPEND``); only ``load(..., log=True)`` and the
finish read or write the whole log. Durability (see docs/deploy.md): a saved
move survives a killed server process; a finish is flushed to disk before it
is acknowledged.
"""

from __future__ import annotations

import contextlib
import json
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

from sqlalchemy import (
    Connection,
    Engine,
    and_,
    create_engine,
    delete,
    event,
    func,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError

from ...game import Game, Snapshot
from ...spawn import Seed, seed_from_text
from ..limits.rate import HITS_LUA, Hit
from ..records.records import rank_query
from ..storage.db import one_writer_for
from ..storage.models import DailyTryRow, GameMoveRow, GameRow
from . import tail
from .commits import DISK_WINDOW, GroupCommit

#: Daily-try counters are dropped this long after their day began.
TRIES_KEPT = timedelta(days=2)


#: A move's position as ``save`` takes it: the snapshot, its JSON text, or what makes that text
#: when the store writes it (SQLite writes the position every few moves only, ``live.tail``).
Stored = Snapshot | str | Callable[[], str]


@dataclass
class Live:
    """A game as the store hands it out; ``snapshot`` is None once it is finished."""

    id: str
    size: int
    seed: Seed
    mode: str
    day: date | None
    at: int
    log: str
    snapshot: Snapshot | None
    finished: bool = False
    #: The leaderboard a ranked finish goes to: ``players``, or ``engines`` for a bot game.
    board: str = "players"
    #: A hint was asked for through the game (``mark_helped``): it is not ranked.
    helped: bool = False
    #: The bot's name, for a game started as a bot's (on the engines board); None for a player's.
    bot: str | None = None


class LiveStore(ABC):
    """The operations live play needs; each one is atomic on its own."""

    #: True when a move is only work in this process (an SQLite file), with no network wait.
    in_process = False
    #: The group commit of moves saved on the event loop's thread (SQLite), else None.
    commits: GroupCommit | None = None
    #: True when ``save_async`` saves from the event loop, without a thread (PostgreSQL, Redis).
    saves_async = False

    @abstractmethod
    def create(self, game: Live, now: datetime) -> None:
        """Keep a new game (``at`` 0, its opening snapshot)."""

    @abstractmethod
    def load(self, game_id: str, *, log: bool = True, hit: Hit | None = None) -> Live | None:
        """The game, finished or in play; None if there is no such game (or it was removed).
        With ``log=False`` its ``log`` is left empty: a move needs only the position.
        ``hit``: a request's rate-limit count, made first (429 if refused; see ``save``)."""

    @abstractmethod
    def save(self, game_id: str, expected_at: int, added: str, snapshot: Stored, now: datetime,
             hit: Hit | None = None) -> bool:
        """Append ``added`` to the game's log and store ``snapshot`` (or its compact JSON text) as
        its position, if the stored ``at`` is still ``expected_at`` and the game is not finished (the
        new ``at`` is ``expected_at + len(added)``). A callable ``snapshot`` makes the text when the
        store writes it: SQLite may leave the position behind (``live.tail``), and ``load`` then
        brings it to ``at``. ``hit``, if not counted yet, is counted first (the Redis store: in the
        same round trip); a refused count is a 429 and nothing is saved."""

    @abstractmethod
    def arrivals(self, game_id: str) -> tuple[datetime | None, list[tuple[int, int | None]]]:
        """When the game was issued, and for each batch of letters saved: ``(at, ms)``, the log
        length it began at and when it arrived (ms since the Unix epoch; None if not kept)."""

    @abstractmethod
    def finish(self, game: Live, expected_at: int, record: dict[str, Any],
               also: Callable[[Connection], None] | None = None) -> bool:
        """Turn the game into its finished record (``record``: the finish columns) if ``at`` is
        still ``expected_at`` and it is not finished yet; flushed to disk before it returns.
        A ranked game's place on its leaderboard is counted and kept in the same transaction,
        and ``also(connection)`` runs in it (the name the record is under is taken there)."""

    @abstractmethod
    def mark_helped(self, game_id: str) -> None:
        """Mark the game helped (a hint was given through it), whatever moves are saved meanwhile."""

    @abstractmethod
    def count_try(self, client: str, day: date, size: int, limit: int) -> int:
        """Count one daily game of ``client``: the tries so far, this one included; 0 (and
        nothing counted) past ``limit``."""

    @abstractmethod
    def uncount_try(self, client: str, day: date, size: int) -> None:
        """Take back one try counted by ``count_try`` (another allowance refused the game)."""

    @abstractmethod
    def purge(self, now: datetime, idle: timedelta) -> int:
        """Remove games in play with no move for ``idle`` and old try counters; how many games went."""

    def close(self) -> None:  # noqa: B027 - most stores hold nothing of their own
        """Let go of the connections the store keeps for itself (when the app stops)."""

    async def save_async(self, game_id: str, expected_at: int, added: str, snapshot: Stored,
                         now: datetime, hit: Hit | None = None) -> bool:
        """``save`` on the event loop (where ``saves_async``; elsewhere it would block the loop)."""
        raise NotImplementedError

    async def aclose(self) -> None:  # noqa: B027 - most stores hold nothing of their own
        """Let go of what ``save_async`` keeps on the running event loop (when the app stops)."""


def _live_from_row(row: Any) -> Live:
    return Live(row.id, row.size, row.seed, row.mode, row.day, row.at, row.log or "",
                json.loads(row.live) if row.live else None, row.finished_at is not None, row.board,
                bool(row.helped), row.name if row.bot else None)


_COLUMNS = (GameRow.id, GameRow.size, GameRow.seed, GameRow.mode, GameRow.day, GameRow.at, GameRow.log,
            GameRow.live, GameRow.finished_at, GameRow.board, GameRow.helped, GameRow.bot, GameRow.name)


class DatabaseStore(LiveStore):
    """Games in play in their ``games`` row, their letters appended to ``game_moves``.

    On PostgreSQL a move is one compare-and-set UPDATE of the row's ``at`` and
    position plus one INSERT of its letters, in one statement, so one round trip
    (sent from the event loop for a socket's move on a game kept here,
    ``save_async``). On SQLite it is the UPDATE alone, in autocommit: its letters
    go to the row's ``tail``, which every few moves goes to ``game_moves``
    (``live.tail``); the moves a socket saves during one turn of the event loop
    share one transaction when there are several (``commits``). ``touched_at``
    (indexed, for the idle purge) is written at most once an hour, so PostgreSQL
    can update the row in place (HOT); on SQLite, which rewrites an index
    entry whenever its column is in the statement's SET even with the same
    value, a move leaves it out of the statement unless this process has not
    set it for the game within ``TOUCH_EVERY`` (``_touched``): one page less
    a move.
    Loading and saving go to the driver directly, on a connection each thread
    keeps: they are the hot path, and the pool's and SQLAlchemy's bookkeeping
    cost more than the database work itself.
    """

    #: ``touched_at`` is moved forward only when it is older than this.
    TOUCH_EVERY = timedelta(hours=1)

    def __init__(self, engine: Engine, durability: str = "process") -> None:
        self.engine = engine
        self.sqlite = self.in_process = engine.dialect.name == "sqlite"
        self.to_disk = durability == "disk"
        self._writer = one_writer_for(engine)
        p = "?" if self.sqlite else "%s"
        self._head_sql = ("SELECT id, size, seed, mode, day, at, live, finished_at, board, helped, bot, "
                          f"name, live_at, tail FROM games WHERE id = {p}")
        # one statement, so one consistent view: what the row had before moves were appended
        # (older games; all of it once finished), then the appended letters in order
        self._log_sql = (f"SELECT -1, log FROM games WHERE id = {p} "
                         f"UNION ALL SELECT at, letters FROM game_moves WHERE game_id = {p} ORDER BY 1")
        update = (f"UPDATE games SET at = {p}, live = {p}, touched_at = CASE WHEN touched_at IS NULL OR "
                  f"touched_at < {p} THEN {p} ELSE touched_at END "
                  f"WHERE id = {p} AND at = {p} AND finished_at IS NULL")
        append = f"INSERT INTO game_moves (game_id, at, letters, ms) VALUES ({p}, {p}, {p}, {p})"
        #: game id -> the Unix second this process last set the game's touched_at (SQLite)
        self._touched: dict[str, int] = {}
        if self.sqlite:
            moved = "WHERE id = ? AND at = ? AND finished_at IS NULL"
            # a move's one statement (``live.tail``): without touched_at, then setting it; the tail
            # appended to, the position left where it stands (``live_at``: if it was at ``at``, it
            # is at the move's ``at`` before); or the tail emptied into game_moves by
            # ``_sqlite_move`` and the position written; or the tail appended to and the position
            # written (``save`` handed the position's text itself)
            self._save_sql = tuple(f"UPDATE games SET at = ?, {kept}{touch} {moved}"
                                   for kept in ("live_at = coalesce(live_at, ?), tail = tail || ?",
                                                "live = ?, live_at = NULL, tail = ''",
                                                "live = ?, live_at = NULL, tail = tail || ?")
                                   for touch in ("", ", touched_at = ?"))
            self._tail_sql = (f"SELECT tail FROM games {moved}", append)
            self._log_sql = ("SELECT -1, log FROM games WHERE id = ? UNION ALL SELECT at, letters FROM "
                             "game_moves WHERE game_id = ? UNION ALL SELECT -2, tail FROM games WHERE id = ?")
            # and the moves in the row's tail, in the same read
            arrived = ("SELECT at, ms, NULL FROM game_moves WHERE game_id = ? "
                       "UNION ALL SELECT NULL, NULL, tail FROM games WHERE id = ?")
        else:  # one statement: the letters are appended only if the compare-and-set matched
            self._save_sql = (f"WITH moved AS ({update} RETURNING id) "
                              "INSERT INTO game_moves (game_id, at, letters, ms) "
                              "SELECT id, %s, %s, %s FROM moved",)
            arrived = "SELECT at, ms FROM game_moves WHERE game_id = %s ORDER BY at"
        self._arrivals_sql = (f"SELECT created_at FROM games WHERE id = {p}", arrived)
        self._own = threading.local()
        if self.sqlite:
            self.commits = GroupCommit(self._writer, self._drop, DISK_WINDOW if self.to_disk else 0.0)
        else:
            self._moves = create_engine(engine.url, pool_size=MOVE_CONNECTIONS, max_overflow=0,
                                        pool_pre_ping=False, pool_reset_on_return=None,
                                        isolation_level="AUTOCOMMIT")
            event.listen(self._moves, "connect", _moves_session_on_disk if self.to_disk else _moves_session)
            # a socket's move on a game kept here is saved from the event loop (``save_async``)
            from ..storage.db import STORE_TIMEOUT
            from .async_pg import MovePool

            self.saves_async = True
            self._async_moves = MovePool(
                engine.url.set(drivername="postgresql").render_as_string(hide_password=False),
                f"SET synchronous_commit TO {'ON' if self.to_disk else 'OFF'}", MOVE_CONNECTIONS,
                STORE_TIMEOUT)

    @contextlib.contextmanager
    def _connection(self) -> Iterator[Any]:
        """A driver connection for the hot path. SQLite: this thread's own, made like every other
        connection of the engine (WAL, NORMAL) and kept (opening a file is cheap, the pool's
        bookkeeping is not, at a move's scale). PostgreSQL: one of a small pool of its own
        (``MOVE_CONNECTIONS``, no overflow, so none is opened and closed under load), in autocommit
        with ``synchronous_commit`` off (a move survives a killed server, like SQLite's NORMAL).
        A connection that failed is dropped: the next call makes a new one (a database that
        restarted leaves every kept connection dead)."""
        if not self.sqlite:
            conn = self._moves.raw_connection()
            try:
                yield conn
            except BaseException:
                conn.invalidate()
                raise
            conn.close()  # back to the pool
            return
        conn = self._sqlite_connection()
        try:
            yield conn
        except BaseException as exc:
            self._failed(conn, exc)
            raise

    def _failed(self, conn: Any, exc: BaseException) -> None:
        """A statement on this thread's SQLite connection failed: the open batch on it fails with it
        (all its moves), or, with none open, the connection is let go."""
        if self.commits.open_on(conn):  # type: ignore[union-attr]
            self.commits.fail(exc)  # type: ignore[union-attr]
        else:
            self._drop(conn)

    def _sqlite_connection(self) -> Any:
        conn = getattr(self._own, "conn", None)
        if conn is None:
            pooled = self.engine.raw_connection()
            pooled.detach()
            conn = self._own.conn = pooled.dbapi_connection
            # autocommit: a move is one statement, its own transaction (``live.tail``); a group
            # commit's batch and a tail's move to game_moves open theirs (BEGIN IMMEDIATE)
            conn.isolation_level = None
            if self.to_disk:  # each move's commit flushed to disk (the WAL fsynced)
                conn.execute("PRAGMA synchronous=FULL")
        return conn

    def _drop(self, conn: Any) -> None:
        """Let go of this thread's SQLite connection after a failure (the next call makes a new one),
        and of the touches it may not have kept (``_sqlite_update``)."""
        self._touched.clear()
        if getattr(self._own, "conn", None) is conn:
            self._own.conn = None
        with contextlib.suppress(Exception):  # already broken, or only this transaction
            conn.rollback()
            conn.close()

    def _query(self, sql: str, params: tuple[Any, ...], *, every: bool = False) -> Any:
        """The first row (or ``every`` row) of a read."""
        with self._connection() as conn:
            cur = conn.cursor()
            cur.execute(sql, params)
            rows = cur.fetchall() if every else cur.fetchone()
            cur.close()
            if self.sqlite and not self.commits.open_on(conn):  # type: ignore[union-attr]
                conn.commit()  # ends the read: a kept connection must not hold a snapshot
        return rows

    def close(self) -> None:
        if not self.sqlite:
            self._moves.dispose()

    def create(self, game: Live, now: datetime) -> None:
        with self._writer, self.engine.begin() as conn:
            conn.execute(insert(GameRow).values(
                id=game.id, size=game.size, mode=game.mode, day=game.day, seed=game.seed, created_at=now,
                ranked=False, at=0, log="", live=json.dumps(game.snapshot), touched_at=now, board=game.board,
                bot=game.bot is not None, name=game.bot,
            ))

    def load(self, game_id: str, *, log: bool = True, hit: Hit | None = None) -> Live | None:
        if hit is not None:
            hit.count()
        row = self._query(self._head_sql, (game_id,))
        if row is None:
            return None
        game_id, size, seed, mode, day, at, live, finished_at, board, helped, bot, name, live_at, kept = row
        if isinstance(day, str):  # SQLite keeps dates as ISO text
            day = date.fromisoformat(day)
        letters = ""
        if log:
            letters = self._log(game_id)[:at]  # read after the position: moves saved meanwhile
            # only add letters, past ``at``
        snapshot = json.loads(live) if live else None
        if snapshot is not None and live_at is not None and live_at != at and finished_at is None:
            snapshot = caught_up(snapshot, live_at, at, kept)
        return Live(game_id, size, seed_from_text(seed), mode, day, at, letters, snapshot,
                    finished_at is not None, board, bool(helped), name if bot else None)

    def _log(self, game_id: str) -> str:
        """The game's letters, in one read: what the row had before moves were appended (older
        games; all of it once finished), the appended letters, and on SQLite the row's tail."""
        if not self.sqlite:
            parts = self._query(self._log_sql, (game_id, game_id), every=True)
            return "".join(part or "" for _, part in parts)
        before, appended = "", []
        for at, part in self._query(self._log_sql, (game_id, game_id, game_id), every=True):
            if at == -1:
                before = part or ""
            elif at == -2:
                appended += [(start, letters) for start, _, letters in tail.entries(part)]
            else:
                appended.append((at, part))
        appended.sort()
        return before + "".join(letters for _, letters in appended)

    def save(self, game_id: str, expected_at: int, added: str, snapshot: Stored,
             now: datetime, hit: Hit | None = None) -> bool:
        if hit is not None:
            hit.count()
        if not self.sqlite:
            with self._connection() as conn:
                cur = conn.cursor()
                cur.execute(self._save_sql[0],
                            self._postgres_save(game_id, expected_at, added, snapshot, now))
                done = cur.rowcount == 1
                cur.close()
            return done
        ms = _epoch_ms(now)
        new = tail.entry(expected_at, ms, added)
        flush = tail.moves_out(expected_at, added)
        # the position is written with the move that empties the tail, or when handed as it is;
        # what makes it (a callable) is left uncalled otherwise
        live = _text(snapshot) if flush or not callable(snapshot) else None
        update, moved = self._sqlite_update(game_id, expected_at, expected_at + len(added), live,
                                            flush, now, ms // 1000, new)
        flushed = new if flush else None
        if self.commits.here():  # type: ignore[union-attr]
            return self._save_grouped(update, moved, flushed)
        with self._writer:
            conn = self._sqlite_connection()
            try:
                cur = conn.cursor()
                if flushed is None:  # the usual move: one statement, its own transaction
                    done = self._sqlite_move(cur, update, moved, None)
                else:
                    cur.execute("BEGIN IMMEDIATE")
                    done = self._sqlite_move(cur, update, moved, flushed)
                    cur.execute("COMMIT")
                cur.close()
            except BaseException as exc:
                self._failed(conn, exc)
                raise
        return done

    def _sqlite_move(self, cur: Any, update: str, moved: tuple[Any, ...], flushed: str | None) -> bool:
        """The SQLite move's ``update`` with its parameters ``moved`` (``_sqlite_update``); whether
        the compare-and-set matched. With ``flushed`` (the move's tail entry, when its update
        empties the tail), inside a transaction: the tail's moves and its own are appended to
        game_moves first, and nothing is written if the row is not at the move's ``at``."""
        if flushed is None:
            cur.execute(update, moved)
            return bool(cur.rowcount == 1)
        game_id, expected_at = moved[-2:]  # the WHERE's parameters
        select_tail, append = self._tail_sql
        row = cur.execute(select_tail, (game_id, expected_at)).fetchone()
        if row is None:
            return False
        moves = tail.entries(row[0] + flushed)
        cur.executemany(append, [(game_id, at, letters, ms) for at, ms, letters in moves])
        cur.execute(update, moved)
        return True

    async def save_async(self, game_id: str, expected_at: int, added: str, snapshot: Stored,
                         now: datetime, hit: Hit | None = None) -> bool:
        """PostgreSQL: ``save``'s one statement on a connection of the loop's own (``async_pg``)."""
        if hit is not None:
            hit.count()
        async with self._async_moves.connection() as conn:
            cur = await conn.execute(self._save_sql[0],
                                     self._postgres_save(game_id, expected_at, added, snapshot, now))
            return bool(cur.rowcount == 1)

    def _postgres_save(self, game_id: str, expected_at: int, added: str, snapshot: Stored,
                       now: datetime) -> tuple[Any, ...]:
        """The parameters of PostgreSQL's one save statement (``_save_sql``)."""
        return (expected_at + len(added), _text(snapshot), now - self.TOUCH_EVERY, now, game_id,
                expected_at, expected_at, added, _epoch_ms(now))

    async def aclose(self) -> None:
        if self.saves_async:
            await self._async_moves.close()

    def _sqlite_update(self, game_id: str, expected_at: int, at: int, live: str | None, flush: bool,
                       now: datetime, second: int, new: str) -> tuple[str, tuple[Any, ...]]:
        """The SQLite move's UPDATE and its parameters: the tail appended ``new`` (the move's entry)
        with the position left as it stands (``live`` None) or written (``live``: the position at
        ``at``), or with ``flush`` the position written and the tail emptied (into game_moves, by
        ``_sqlite_move``); with ``touched_at`` (set to ``now``) if
        this process has not set it for the game within ``TOUCH_EVERY``, else without. So after
        any move the row's ``touched_at`` is at most ``TOUCH_EVERY`` old, as the CASE of
        PostgreSQL's statement keeps it. A failed save forgets every game's touch (``_drop``)."""
        if live is None:
            shape, kept = 0, (at, expected_at, new)
        else:
            shape, kept = (2, (at, live)) if flush else (4, (at, live, new))
        touched = self._touched
        if second - touched.get(game_id, -_TOUCH_SECONDS) < _TOUCH_SECONDS:
            return self._save_sql[shape], (*kept, game_id, expected_at)
        if len(touched) >= _TOUCHED_KEPT:
            touched.clear()  # the games this process plays now are touched again: one page each
        touched[game_id] = second
        # SQLite keeps naive UTC text in SQLAlchemy's format
        return self._save_sql[shape + 1], (*kept, _sqlite_time(now), game_id, expected_at)

    def _save_grouped(self, update: str, moved: tuple[Any, ...], flushed: str | None) -> bool:
        """``save`` inside the event loop's open batch (``commits``): committed with the batch.
        ``flushed``: the move's tail entry when its update empties the tail (``_sqlite_move``)."""
        commits: GroupCommit = self.commits  # type: ignore[assignment]
        conn = self._sqlite_connection()
        batch = commits.join(conn)
        try:
            cur = conn.cursor()
            if batch.moves == 1:  # the batch's first move opens its transaction
                cur.execute("BEGIN IMMEDIATE")
            done = self._sqlite_move(cur, update, moved, flushed)
            cur.close()
        except BaseException as exc:
            commits.fail(exc)  # the whole batch: a half-applied one must never be committed
            raise
        return done

    def arrivals(self, game_id: str) -> tuple[datetime | None, list[tuple[int, int | None]]]:
        started, batches = self._arrivals_sql
        head = self._query(started, (game_id,))
        if not self.sqlite:
            rows = self._query(batches, (game_id,), every=True)
            return (_moment(head[0]) if head else None), [(at, ms) for at, ms in rows]
        arrived = []
        for at, ms, kept in self._query(batches, (game_id, game_id), every=True):
            if kept is None:
                arrived.append((at, ms))
            else:
                arrived += [(start, when) for start, when, _ in tail.entries(kept)]
        return (_moment(head[0]) if head else None), sorted(arrived)

    def finish(self, game: Live, expected_at: int, record: dict[str, Any],
               also: Callable[[Connection], None] | None = None) -> bool:
        statement = (
            update(GameRow)
            .where(GameRow.id == game.id, GameRow.at == expected_at, GameRow.finished_at.is_(None))
            .values(live=None, live_at=None, tail="", **record)  # the log holds the tail's letters too
        )
        with durable(self.engine) as conn:
            if not _finished(conn, statement, game, record, also):
                return False
            conn.execute(delete(GameMoveRow).where(GameMoveRow.game_id == game.id))  # the log has them all
            return True

    def mark_helped(self, game_id: str) -> None:
        mark_helped_in_database(self.engine, game_id)

    def count_try(self, client: str, day: date, size: int, limit: int) -> int:
        return count_try_in_database(self.engine, client, day, size, limit)

    def uncount_try(self, client: str, day: date, size: int) -> None:
        uncount_try_in_database(self.engine, client, day, size)

    def purge(self, now: datetime, idle: timedelta) -> int:
        cutoff = now - idle
        idle_games = select(GameRow.id).where(
            GameRow.finished_at.is_(None),
            or_(GameRow.touched_at < cutoff, and_(GameRow.touched_at.is_(None), GameRow.created_at < cutoff)),
        )
        with self._writer, self.engine.begin() as conn:
            conn.execute(delete(GameMoveRow).where(GameMoveRow.game_id.in_(idle_games)))
            gone = conn.execute(delete(GameRow).where(GameRow.id.in_(idle_games))).rowcount
            conn.execute(delete(DailyTryRow).where(DailyTryRow.day < (now - TRIES_KEPT).date()))
        return int(gone or 0)


#: Connections a worker keeps to PostgreSQL for moves: enough for the threads that wait on the
#: database at once; a move that finds them all busy waits for one.
MOVE_CONNECTIONS = 8


def _moves_session(dbapi_conn: Any, _record: Any) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("SET synchronous_commit TO OFF")
    cur.close()


def _moves_session_on_disk(dbapi_conn: Any, _record: Any) -> None:
    """PostgreSQL's default: a commit waits for its WAL on disk (concurrent commits share a flush)."""
    cur = dbapi_conn.cursor()
    cur.execute("SET synchronous_commit TO ON")
    cur.close()


def _finished(conn: Connection, statement: Any, game: Live, record: dict[str, Any],
              also: Callable[[Connection], None] | None = None) -> bool:
    if conn.execute(statement).rowcount != 1:
        return False
    if also is not None:
        also(conn)
    if record["ranked"]:
        rank = conn.execute(rank_query(record.get("board", game.board), game.size, game.mode, game.day,  # type: ignore[arg-type]
                                       record["score"], record["finished_at"], game.id)).scalar()
        conn.execute(update(GameRow).where(GameRow.id == game.id).values(finish_rank=rank))
    return True


class durable:
    """A write transaction whose commit is on disk before it ends (SQLite: synchronous=FULL
    for this commit only; the connection goes back to NORMAL afterwards)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.sqlite = engine.dialect.name == "sqlite"
        self.writer = one_writer_for(engine)

    def __enter__(self):  # type: ignore[no-untyped-def]
        self.writer.__enter__()
        self.conn = self.engine.connect()
        if self.sqlite:  # must come before the transaction's BEGIN to count for its commit
            self.conn.exec_driver_sql("PRAGMA synchronous=FULL")
        return self.conn

    def __exit__(self, kind, value, tb) -> None:  # type: ignore[no-untyped-def]
        try:
            if kind is None:
                self.conn.commit()
            else:
                self.conn.rollback()
        finally:
            try:
                if self.sqlite:
                    self.conn.exec_driver_sql("PRAGMA synchronous=NORMAL")
                    self.conn.commit()
                self.conn.close()
            finally:
                self.writer.__exit__(None, None, None)


def mark_helped_in_database(engine: Engine, game_id: str) -> None:
    with one_writer_for(engine), engine.begin() as conn:
        conn.execute(update(GameRow).where(GameRow.id == game_id).values(helped=True))


def count_try_in_database(engine: Engine, client: str, day: date, size: int, limit: int) -> int:
    key = (DailyTryRow.client == client, DailyTryRow.day == day, DailyTryRow.size == size)
    writer = one_writer_for(engine)
    for _ in range(3):
        with writer, engine.begin() as conn:
            counted = conn.execute(
                update(DailyTryRow).where(*key, DailyTryRow.tries < limit).values(tries=DailyTryRow.tries + 1)
            ).rowcount
            if counted == 1:
                return int(conn.execute(select(DailyTryRow.tries).where(*key)).scalar() or 0)
            if conn.execute(select(func.count()).select_from(DailyTryRow).where(*key)).scalar():
                return 0  # at the limit
        if limit <= 0:
            return 0
        try:
            with writer, engine.begin() as conn:
                conn.execute(insert(DailyTryRow).values(client=client, day=day, size=size, tries=1))
            return 1
        except IntegrityError:  # another request of the same client made the row first: count again
            continue
    return 0


def uncount_try_in_database(engine: Engine, client: str, day: date, size: int) -> None:
    key = (DailyTryRow.client == client, DailyTryRow.day == day, DailyTryRow.size == size)
    with one_writer_for(engine), engine.begin() as conn:
        conn.execute(update(DailyTryRow).where(*key, DailyTryRow.tries > 0)
                     .values(tries=DailyTryRow.tries - 1))


# Redis: KEYS = (game hash, log string, arrivals string); both strings are appended to, never
# rewritten; an arrival is "at:ms;" (the log length the batch began at, when it arrived).
_SAVE_FUNCTION = """
local function save()
  local at = redis.call('HGET', KEYS[1], 'at')
  if (not at) or at ~= ARGV[1] or redis.call('HEXISTS', KEYS[1], 'closed') == 1 then return 0 end
  redis.call('HSET', KEYS[1], 'at', ARGV[2], 'snap', ARGV[4])
  redis.call('APPEND', KEYS[2], ARGV[3])
  redis.call('APPEND', KEYS[3], ARGV[6])
  redis.call('EXPIRE', KEYS[1], ARGV[5])
  redis.call('EXPIRE', KEYS[2], ARGV[5])
  redis.call('EXPIRE', KEYS[3], ARGV[5])
  return 1
end
"""
_SAVE = _SAVE_FUNCTION + "return save()"
# a move and its rate-limit count in one round trip: KEYS[4..] and ARGV[7..] are the count's
# (``rate.HITS_LUA``); a refused count saves nothing. Answers {saved, the count's answer}.
_SAVE_COUNTED = HITS_LUA + _SAVE_FUNCTION + """
local counted, refused = hits(4, 7)
if refused then return {0, counted} end
return {save(), counted}
"""
# a move's read and its count: KEYS = (game hash, the count's keys...), ARGV = the count's
_LOAD_COUNTED = HITS_LUA + """
local counted = hits(2, 1)
return {redis.call('HGETALL', KEYS[1]), counted}
"""
_HELPED = """
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HSET', KEYS[1], 'helped', '1') end
return 1
"""
# closing for the finish: no move gets in after it; closing again at the same at is fine
_CLOSE = """
local at = redis.call('HGET', KEYS[1], 'at')
if (not at) or at ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'closed', '1')
return 1
"""


class RedisStore(LiveStore):
    """Games in play in Redis (a hash and an append-only log string a game); records in the database.

    A move is one round trip: one script, which with ``hit`` also counts the request against
    the client's rate limit (kept in the same Redis, ``rate.HITS_LUA``) before it saves.
    ``save_async`` sends it from the event loop on connections of that loop's own
    (``async_redis``), so a socket's move needs no thread (``mover.play_kept``): handing a move
    to a thread and back cost about a quarter of a Redis move's CPU.
    """

    PREFIX = "game2048:"
    saves_async = True

    def __init__(self, engine: Engine, redis_url: str, idle: timedelta) -> None:
        import redis

        self.engine = engine
        from ..storage.db import STORE_TIMEOUT

        # Redis down or refusing: an error within seconds (503 to the player), never a hang
        self.redis = redis.Redis.from_url(redis_url, socket_connect_timeout=STORE_TIMEOUT,
                                          socket_timeout=STORE_TIMEOUT)
        self.redis_url = redis_url
        self.ttl = max(1, int(idle.total_seconds()))
        self._save = self.redis.register_script(_SAVE)
        self._save_counted = self.redis.register_script(_SAVE_COUNTED)
        self._load_counted = self.redis.register_script(_LOAD_COUNTED)
        self._close = self.redis.register_script(_CLOSE)
        self._writer = one_writer_for(engine)
        # a socket's move saved from the event loop, on connections of that loop's own
        from .async_redis import MoveLines

        self._lines = MoveLines(redis_url, STORE_TIMEOUT)

    def _keys(self, game_id: str) -> list[str]:
        """The game's hash, its log and its arrivals (one hash slot: the game's id in braces)."""
        return [f"{self.PREFIX}live:{{{game_id}}}", f"{self.PREFIX}log:{{{game_id}}}",
                f"{self.PREFIX}times:{{{game_id}}}"]

    def create(self, game: Live, now: datetime) -> None:
        with self._writer, self.engine.begin() as conn:
            conn.execute(insert(GameRow).values(
                id=game.id, size=game.size, mode=game.mode, day=game.day, seed=game.seed, created_at=now,
                ranked=False, at=0, touched_at=now, board=game.board, bot=game.bot is not None, name=game.bot,
            ))
        hash_key, log_key, times_key = self._keys(game.id)
        fields = {"size": game.size, "seed": game.seed, "mode": game.mode, "at": 0, "board": game.board,
                  "bot": game.bot or "",
                  "day": game.day.isoformat() if game.day else "", "snap": json.dumps(game.snapshot)}
        with self.redis.pipeline() as pipe:
            pipe.hset(hash_key, mapping=fields)
            pipe.set(log_key, "")
            pipe.set(times_key, "")
            pipe.expire(hash_key, self.ttl)
            pipe.expire(log_key, self.ttl)
            pipe.expire(times_key, self.ttl)
            pipe.execute()

    def load(self, game_id: str, *, log: bool = True, hit: Hit | None = None) -> Live | None:
        hash_key, log_key, _ = self._keys(game_id)
        if hit is not None and not hit.counted:
            if log:
                hit.count()
            else:  # a move's read and its count: one round trip
                keys, args = hit.keys_args()
                flat, counted = self._load_counted(keys=[hash_key, *keys], args=args)
                hit.settle(counted)
                return self._live(game_id, dict(zip(flat[::2], flat[1::2], strict=True)), b"")
        if log:
            with self.redis.pipeline(transaction=True) as pipe:
                pipe.hgetall(hash_key)
                pipe.get(log_key)
                fields, log_text = pipe.execute()
        else:  # a move: the position alone, one round trip whatever the game's length
            fields, log_text = self.redis.hgetall(hash_key), b""
        return self._live(game_id, fields, log_text)

    def _live(self, game_id: str, fields: dict[bytes, bytes], log_text: bytes | None) -> Live | None:
        if fields:
            f = {k.decode(): v.decode() for k, v in fields.items()}
            return Live(game_id, int(f["size"]), seed_from_text(f["seed"]), f["mode"],
                        date.fromisoformat(f["day"]) if f["day"] else None, int(f["at"]),
                        (log_text or b"").decode(), json.loads(f["snap"]), False, f.get("board", "players"),
                        f.get("helped") == "1", f.get("bot") or None)
        with self.engine.connect() as conn:
            row = conn.execute(select(*_COLUMNS).where(GameRow.id == game_id)).first()
        if row is None or row.finished_at is None:
            return None  # never issued, or idle too long: its live state expired
        return _live_from_row(row)

    def save(self, game_id: str, expected_at: int, added: str, snapshot: Stored, now: datetime,
             hit: Hit | None = None) -> bool:
        keys, args = self._save_args(game_id, expected_at, added, snapshot, now)
        if hit is None or hit.counted:
            return bool(self._save(keys=keys, args=args))
        hit_keys, hit_args = hit.keys_args()  # the move and its count: one round trip
        saved, counted = self._save_counted(keys=keys + hit_keys, args=args + hit_args)
        hit.settle(counted)
        return bool(saved)

    async def save_async(self, game_id: str, expected_at: int, added: str, snapshot: Stored,
                         now: datetime, hit: Hit | None = None) -> bool:
        keys, args = self._save_args(game_id, expected_at, added, snapshot, now)
        if hit is None or hit.counted:
            return bool(await self._lines.run(self._save, keys, args))
        hit_keys, hit_args = hit.keys_args()  # the move and its count: one round trip
        saved, counted = await self._lines.run(self._save_counted, keys + hit_keys, args + hit_args)
        hit.settle(counted)
        return bool(saved)

    def _save_args(self, game_id: str, expected_at: int, added: str, snapshot: Stored,
                   now: datetime) -> tuple[list[str], list[Any]]:
        """The keys and arguments of the save script (``_SAVE``)."""
        return self._keys(game_id), [expected_at, expected_at + len(added), added, _text(snapshot), self.ttl,
                                     f"{expected_at}:{_epoch_ms(now)};"]

    async def aclose(self) -> None:
        await self._lines.close()

    def arrivals(self, game_id: str) -> tuple[datetime | None, list[tuple[int, int | None]]]:
        text = (self.redis.get(self._keys(game_id)[2]) or b"").decode()
        batches: list[tuple[int, int | None]] = []
        for item in filter(None, text.split(";")):
            at, ms = item.split(":")
            batches.append((int(at), int(ms)))
        with self.engine.connect() as conn:
            started = conn.execute(select(GameRow.created_at).where(GameRow.id == game_id)).scalar()
        return (_moment(started) if started is not None else None), batches

    def finish(self, game: Live, expected_at: int, record: dict[str, Any],
               also: Callable[[Connection], None] | None = None) -> bool:
        keys = self._keys(game.id)
        if not self._close(keys=keys, args=[expected_at]):
            return False
        statement = (
            update(GameRow)
            .where(GameRow.id == game.id, GameRow.finished_at.is_(None))
            .values(live=None, **record)
        )
        with durable(self.engine) as conn:
            done = _finished(conn, statement, game, record, also)
        self.redis.delete(*keys)
        return done

    def mark_helped(self, game_id: str) -> None:
        # a field of its own, which a move's save never touches; never on a game already gone
        self.redis.eval(_HELPED, 1, self._keys(game_id)[0])
        mark_helped_in_database(self.engine, game_id)

    def _try_key(self, client: str, day: date, size: int) -> str:
        return f"{self.PREFIX}tries:{day.isoformat()}:{size}:{client}"

    def count_try(self, client: str, day: date, size: int, limit: int) -> int:
        key = self._try_key(client, day, size)
        with self.redis.pipeline() as pipe:
            pipe.incr(key)
            pipe.expire(key, int(TRIES_KEPT.total_seconds()))
            count, _ = pipe.execute()
        if count > limit:
            self.redis.decr(key)
            return 0
        return int(count)

    def uncount_try(self, client: str, day: date, size: int) -> None:
        self.redis.decr(self._try_key(client, day, size))

    def purge(self, now: datetime, idle: timedelta) -> int:
        # Redis forgets idle games by itself (each key expires `idle` after the last move);
        # the database rows they were issued as go once their key is gone
        cutoff = now - idle
        with self.engine.connect() as conn:
            candidates = conn.execute(select(GameRow.id).where(
                GameRow.finished_at.is_(None), GameRow.created_at < cutoff)).scalars().all()
        gone = [i for i in candidates if not self.redis.exists(self._keys(i)[0])]
        with self._writer, self.engine.begin() as conn:
            if gone:
                conn.execute(delete(GameRow).where(GameRow.id.in_(gone), GameRow.finished_at.is_(None)))
            conn.execute(delete(DailyTryRow).where(DailyTryRow.day < (now - TRIES_KEPT).date()))
        return len(gone)


def make_store(engine: Engine, redis_url: str | None, idle_days: float,
               durability: str = "process") -> LiveStore:
    """Redis when a URL is given, else the database. ``durability="disk"``: a saved move is on disk
    before ``save`` returns (Redis: as its server's ``appendfsync`` says; see docs/deploy.md)."""
    if redis_url:
        return RedisStore(engine, redis_url, timedelta(days=idle_days))
    return DatabaseStore(engine, durability)


def utc_now() -> datetime:
    return datetime.now(UTC)


def _text(snapshot: Stored) -> str:
    """A snapshot as the stores keep it: compact JSON text (``Game.snapshot_json`` makes it at once;
    a callable makes it when a store writes it, which SQLite does every few moves only)."""
    if type(snapshot) is str:
        return snapshot
    if callable(snapshot):
        return snapshot()
    return json.dumps(snapshot, separators=(",", ":"))


def caught_up(snapshot: Snapshot, at: int, to: int, kept: str | None) -> Snapshot:
    """SQLite: a stored position at log length ``at`` brought to ``to`` with the letters of the
    row's tail ``kept`` saved since ``at`` (``live.tail``), as a move at ``to`` would have stored it,
    the tile of its last letter included. ValueError if they do not bring it there (a row this code
    did not write).

    >>> g = Game(4, seed=3); _ = g.play("LD"); before = g.snapshot(); _ = g.play("RU")
    >>> kept = tail.entry(0, 1, "L") + tail.entry(1, 2, "D") + tail.entry(2, 3, "RU")
    >>> caught_up(before, 2, 4, kept) == g.snapshot() | {"tile": list(g.last_tile())}
    True
    """
    letters = tail.letters_since(kept, at)
    game = Game.resume(snapshot)
    if len(letters) != to - at or game.play(letters) != len(letters):
        raise ValueError(f"a stored game's tail does not bring its position from {at} to {to} letters")
    tile = game.last_tile()
    return game.snapshot() | {"tile": list(tile) if tile is not None else None}


def _sqlite_time(moment: datetime) -> str:
    """``moment`` as SQLite keeps times (SQLAlchemy's naive UTC text, ``2026-12-02 10:00:00.000123``).

    >>> _sqlite_time(datetime(2026, 12, 2, 10, 0, 0, 123, tzinfo=UTC))
    '2026-12-02 10:00:00.000123'
    """
    return moment.astimezone(UTC).replace(tzinfo=None).isoformat(" ", "microseconds")


_TOUCH_SECONDS = int(DatabaseStore.TOUCH_EVERY.total_seconds())
#: Games whose touch a process remembers (``DatabaseStore._touched``): about 100 bytes each.
_TOUCHED_KEPT = 100_000


def _epoch_ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


def _moment(value: Any) -> datetime:
    """A stored time as an aware UTC datetime (SQLite hands back naive datetimes or their text)."""
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    return value if value.tzinfo else value.replace(tzinfo=UTC)

