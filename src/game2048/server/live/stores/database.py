"""The database store: a game in play in its ``games`` row (SQLite or PostgreSQL), its letters
appended to ``game_moves`` (on SQLite, first to the row's short ``tail``: ``stores.tail``).

SQLite's moves are saved in this process, on the event loop's thread, sharing a commit when
several land in one turn of the loop (``live.commits``); PostgreSQL's from the event loop on
the loop's own pipelined connections (``pg_lines``), else from a thread on a small pool of their
own.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Callable, Iterable, Iterator
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

from ....game import Game, Snapshot
from ....spawn import seed_from_text
from ...limits.rate import Hit
from ...storage.db import durable, one_writer_for
from ...storage.models import AskedBoardRow, DailyTryRow, GameMoveRow, GameRow
from ..commits import DISK_WINDOW, GroupCommit
from . import tail
from .base import (
    TRIES_KEPT,
    Live,
    LiveStore,
    Stored,
    aware_utc,
    epoch_ms,
    mark_helped_in_database,
    position_text,
    write_finished,
)


class DatabaseStore(LiveStore):
    """Games in play in their ``games`` row, their letters appended to ``game_moves``.

    On PostgreSQL a move is one compare-and-set UPDATE of the row's ``at`` and
    position plus one INSERT of its letters, in one statement, so one round trip
    (sent from the event loop for a socket's move on a game kept here,
    ``save_async``). On SQLite it is the UPDATE alone, in autocommit: its letters
    go to the row's ``tail``, which every few moves goes to ``game_moves``
    (``stores.tail``); the moves a socket saves during one turn of the event loop
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
                          f"name, live_at, tail, unranked FROM games WHERE id = {p}")
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
            # a move's one statement (``stores.tail``): without touched_at, then setting it; the tail
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
            from ...storage.db import STORE_TIMEOUT
            from .pg_lines import INT8, TEXT, TIMESTAMPTZ, MoveLines, Statement

            self.saves_async = True
            self._async_moves = MoveLines(
                engine.url.set(drivername="postgresql").render_as_string(hide_password=False),
                f"SET synchronous_commit TO {'ON' if self.to_disk else 'OFF'}", MOVE_CONNECTIONS,
                STORE_TIMEOUT)
            types = (INT8, TEXT, TIMESTAMPTZ, TIMESTAMPTZ, TEXT, INT8, INT8, TEXT, INT8)  # _postgres_save's
            self._async_save = Statement.of("game2048_move", self._save_sql[0], types)

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
            # autocommit: a move is one statement, its own transaction (``stores.tail``); a group
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
                bot=game.bot is not None, name=game.bot, unranked=game.unranked,
            ))

    def load(self, game_id: str, *, log: bool = True, hit: Hit | None = None) -> Live | None:
        if hit is not None:
            hit.count()
        row = self._query(self._head_sql, (game_id,))
        if row is None:
            return None
        (game_id, size, seed, mode, day, at, live, finished_at, board, helped, bot, name, live_at, kept,
         unranked) = row
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
                    finished_at is not None, board, bool(helped), name if bot else None, unranked)

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
        ms = epoch_ms(now)
        new = tail.entry(expected_at, ms, added)
        flush = tail.moves_out(expected_at, added)
        # the position is written with the move that empties the tail, or when handed as it is;
        # what makes it (a callable) is left uncalled otherwise
        live = position_text(snapshot) if flush or not callable(snapshot) else None
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
        """PostgreSQL: ``save``'s one statement on the loop's own pipelined connections (``pg_lines``)."""
        if hit is not None:
            hit.count()
        params = self._postgres_save(game_id, expected_at, added, snapshot, now)
        return await self._async_moves.run(self._async_save, params) == 1

    def _postgres_save(self, game_id: str, expected_at: int, added: str, snapshot: Stored,
                       now: datetime) -> tuple[Any, ...]:
        """The parameters of PostgreSQL's one save statement (``_save_sql``)."""
        return (expected_at + len(added), position_text(snapshot), now - self.TOUCH_EVERY, now, game_id,
                expected_at, expected_at, added, epoch_ms(now))

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
            return (aware_utc(head[0]) if head else None), [(at, ms) for at, ms in rows]
        arrived = []
        for at, ms, kept in self._query(batches, (game_id, game_id), every=True):
            if kept is None:
                arrived.append((at, ms))
            else:
                arrived += [(start, when) for start, when, _ in tail.entries(kept)]
        return (aware_utc(head[0]) if head else None), sorted(arrived)

    def finish(self, game: Live, expected_at: int, record: dict[str, Any],
               also: Callable[[Connection], None] | None = None) -> bool:
        statement = (
            update(GameRow)
            .where(GameRow.id == game.id, GameRow.at == expected_at, GameRow.finished_at.is_(None))
            .values(live=None, live_at=None, tail="", **record)  # the log holds the tail's letters too
        )
        with durable(self.engine) as conn:
            if not write_finished(conn, statement, game, record, also):
                return False
            conn.execute(delete(GameMoveRow).where(GameMoveRow.game_id == game.id))  # the log has them all
            return True

    def mark_helped(self, game_id: str) -> None:
        mark_helped_in_database(self.engine, game_id)

    def count_try(self, client: str, day: date, size: int, limit: int) -> int:
        return count_try_in_database(self.engine, client, day, size, limit)

    def uncount_try(self, client: str, day: date, size: int) -> None:
        uncount_try_in_database(self.engine, client, day, size)

    def note_asked(self, client: str, boards: Iterable[str], now: datetime) -> None:
        from sqlalchemy.dialects import postgresql, sqlite

        upsert = (sqlite if self.sqlite else postgresql).insert(AskedBoardRow).values(
            [{"client": client, "board": board, "asked_at": now} for board in boards])
        with self._writer, self.engine.begin() as conn:
            conn.execute(upsert.on_conflict_do_update(index_elements=["client", "board"],
                                                      set_={"asked_at": upsert.excluded.asked_at}))

    def asked_since(self, client: str, since: datetime) -> set[str]:
        with self.engine.connect() as conn:
            return set(conn.scalars(select(AskedBoardRow.board).where(
                AskedBoardRow.client == client, AskedBoardRow.asked_at >= since)))

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
            conn.execute(delete(AskedBoardRow).where(AskedBoardRow.asked_at < cutoff))
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


def caught_up(snapshot: Snapshot, at: int, to: int, kept: str | None) -> Snapshot:
    """SQLite: a stored position at log length ``at`` brought to ``to`` with the letters of the
    row's tail ``kept`` saved since ``at`` (``stores.tail``), as a move at ``to`` would have stored it,
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

