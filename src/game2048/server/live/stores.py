"""Where games in play are kept, so that every worker on every host sees them.

Two stores with one interface: the database (the default: SQLite or
PostgreSQL, the game's row in ``games``) and Redis (when ``REDIS_URL`` is set:
a hash and a log string per game, the database keeping only what the game
was issued as and, once finished, its record).

Every change is a compare-and-set on ``at``, the length of the game's log:
``save(game, expected_at)`` writes only if the stored ``at`` is still the one
the caller read, so two workers can never both extend a game; the loser
re-reads. Durability (see docs/deploy.md): a saved move survives a killed
server process; a finish is flushed to disk before it is acknowledged.
"""

from __future__ import annotations

import json
import threading
from abc import ABC, abstractmethod
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

from sqlalchemy import Connection, Engine, and_, delete, func, insert, or_, select, update
from sqlalchemy.exc import IntegrityError

from ...game import Snapshot
from ..records.records import rank_query
from ..storage.db import one_writer_for
from ..storage.models import DailyTryRow, GameRow

#: Daily-try counters are dropped this long after their day began.
TRIES_KEPT = timedelta(days=2)


@dataclass
class Live:
    """A game as the store hands it out; ``snapshot`` is None once it is finished."""

    id: str
    size: int
    seed: int
    mode: str
    day: date | None
    at: int
    log: str
    snapshot: Snapshot | None
    finished: bool = False


class LiveStore(ABC):
    """The operations live play needs; each one is atomic on its own."""

    #: True when a move is only work in this process (an SQLite file), with no network wait.
    in_process = False

    @abstractmethod
    def create(self, game: Live, now: datetime) -> None:
        """Keep a new game (``at`` 0, its opening snapshot)."""

    @abstractmethod
    def load(self, game_id: str) -> Live | None:
        """The game, finished or in play; None if there is no such game (or it was removed)."""

    @abstractmethod
    def save(self, game: Live, expected_at: int, now: datetime) -> bool:
        """Store ``game`` (its new at, log and snapshot) if the stored ``at`` is still ``expected_at``."""

    @abstractmethod
    def finish(self, game: Live, expected_at: int, record: dict[str, Any]) -> bool:
        """Turn the game into its finished record (``record``: the finish columns) if ``at`` is
        still ``expected_at`` and it is not finished yet; flushed to disk before it returns.
        A ranked game's place on its leaderboard is counted and kept in the same transaction."""

    @abstractmethod
    def count_try(self, client: str, day: date, size: int, limit: int) -> bool:
        """Count one daily game of ``client``; False (and nothing counted) past ``limit``."""

    @abstractmethod
    def purge(self, now: datetime, idle: timedelta) -> int:
        """Remove games in play with no move for ``idle`` and old try counters; how many games went."""


def _live_from_row(row: Any) -> Live:
    return Live(row.id, row.size, row.seed, row.mode, row.day, row.at, row.log or "",
                json.loads(row.live) if row.live else None, row.finished_at is not None)


_COLUMNS = (GameRow.id, GameRow.size, GameRow.seed, GameRow.mode, GameRow.day, GameRow.at, GameRow.log,
            GameRow.live, GameRow.finished_at)


class DatabaseStore(LiveStore):
    """Games in play in their ``games`` row: one UPDATE ... WHERE id = ? AND at = ? a move.

    Loading and saving a move go to the driver directly (plain SQL on a pooled
    connection): they are the hot path, and building SQLAlchemy statements
    cost more than the database work itself.
    """

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.sqlite = self.in_process = engine.dialect.name == "sqlite"
        self._writer = one_writer_for(engine)
        p = "?" if self.sqlite else "%s"
        self._load_sql = ("SELECT id, size, seed, mode, day, at, log, live, finished_at FROM games "
                          f"WHERE id = {p}")
        self._save_sql = (f"UPDATE games SET at = {p}, log = {p}, live = {p}, touched_at = {p} "
                          f"WHERE id = {p} AND at = {p} AND finished_at IS NULL")
        self._own = threading.local()

    def _connection(self) -> Any:
        """A driver connection: on SQLite each thread keeps one of its own (opening a file is
        cheap, the pool's bookkeeping is not, at a move's scale); elsewhere one from the pool."""
        if not self.sqlite:
            return self.engine.raw_connection()
        conn = getattr(self._own, "conn", None)
        if conn is None:
            pooled = self.engine.raw_connection()
            pooled.detach()  # made like every other connection of the engine (WAL, NORMAL), then ours
            conn = self._own.conn = pooled.dbapi_connection
        return conn

    def _release(self, conn: Any) -> None:
        if not self.sqlite:
            conn.close()

    def create(self, game: Live, now: datetime) -> None:
        with self._writer, self.engine.begin() as conn:
            conn.execute(insert(GameRow).values(
                id=game.id, size=game.size, mode=game.mode, day=game.day, seed=game.seed, created_at=now,
                ranked=False, at=0, log="", live=json.dumps(game.snapshot), touched_at=now,
            ))

    def load(self, game_id: str) -> Live | None:
        conn = self._connection()
        try:
            cur = conn.cursor()
            cur.execute(self._load_sql, (game_id,))
            row = cur.fetchone()
            cur.close()
            if not self.sqlite:
                conn.rollback()
        finally:
            self._release(conn)
        if row is None:
            return None
        game_id, size, seed, mode, day, at, log, live, finished_at = row
        if isinstance(day, str):  # SQLite keeps dates as ISO text
            day = date.fromisoformat(day)
        return Live(game_id, size, seed, mode, day, at, log or "", json.loads(live) if live else None,
                    finished_at is not None)

    def save(self, game: Live, expected_at: int, now: datetime) -> bool:
        # SQLite keeps naive UTC text in SQLAlchemy's format; PostgreSQL takes the datetime
        touched: object = now.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S.%f") if self.sqlite else now
        params = (game.at, game.log, json.dumps(game.snapshot, separators=(",", ":")), touched, game.id,
                  expected_at)
        with self._writer:
            conn = self._connection()
            try:
                cur = conn.cursor()
                if not self.sqlite:
                    # a move survives a killed server without waiting for the disk (like SQLite's NORMAL)
                    cur.execute("SET LOCAL synchronous_commit TO OFF")
                cur.execute(self._save_sql, params)
                done = cur.rowcount == 1
                cur.close()
                conn.commit()
            except BaseException:
                conn.rollback()
                raise
            finally:
                self._release(conn)
        return done

    def finish(self, game: Live, expected_at: int, record: dict[str, Any]) -> bool:
        statement = (
            update(GameRow)
            .where(GameRow.id == game.id, GameRow.at == expected_at, GameRow.finished_at.is_(None))
            .values(live=None, **record)
        )
        with durable(self.engine) as conn:
            return _finished(conn, statement, game, record)

    def count_try(self, client: str, day: date, size: int, limit: int) -> bool:
        return count_try_in_database(self.engine, client, day, size, limit)

    def purge(self, now: datetime, idle: timedelta) -> int:
        cutoff = now - idle
        with self._writer, self.engine.begin() as conn:
            gone = conn.execute(delete(GameRow).where(
                GameRow.finished_at.is_(None),
                or_(GameRow.touched_at < cutoff,
                    and_(GameRow.touched_at.is_(None), GameRow.created_at < cutoff)),
            )).rowcount
            conn.execute(delete(DailyTryRow).where(DailyTryRow.day < (now - TRIES_KEPT).date()))
        return int(gone or 0)


def _finished(conn: Connection, statement: Any, game: Live, record: dict[str, Any]) -> bool:
    if conn.execute(statement).rowcount != 1:
        return False
    if record["ranked"]:
        rank = conn.execute(rank_query(game.size, game.mode, game.day, record["score"], record["finished_at"],
                                       game.id)).scalar()
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


def count_try_in_database(engine: Engine, client: str, day: date, size: int, limit: int) -> bool:
    key = (DailyTryRow.client == client, DailyTryRow.day == day, DailyTryRow.size == size)
    writer = one_writer_for(engine)
    for _ in range(3):
        with writer, engine.begin() as conn:
            counted = conn.execute(
                update(DailyTryRow).where(*key, DailyTryRow.tries < limit).values(tries=DailyTryRow.tries + 1)
            ).rowcount
            if counted == 1:
                return True
            if conn.execute(select(func.count()).select_from(DailyTryRow).where(*key)).scalar():
                return False  # at the limit
        if limit <= 0:
            return False
        try:
            with writer, engine.begin() as conn:
                conn.execute(insert(DailyTryRow).values(client=client, day=day, size=size, tries=1))
            return True
        except IntegrityError:  # another request of the same client made the row first: count again
            continue
    return False


# Redis: KEYS = (game hash, log string); the log is appended to, never rewritten.
_SAVE = """
local at = redis.call('HGET', KEYS[1], 'at')
if (not at) or at ~= ARGV[1] or redis.call('HEXISTS', KEYS[1], 'closed') == 1 then return 0 end
redis.call('HSET', KEYS[1], 'at', ARGV[2], 'snap', ARGV[4])
redis.call('APPEND', KEYS[2], ARGV[3])
redis.call('EXPIRE', KEYS[1], ARGV[5])
redis.call('EXPIRE', KEYS[2], ARGV[5])
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
    """Games in play in Redis (a hash and an append-only log string a game); records in the database."""

    PREFIX = "game2048:"

    def __init__(self, engine: Engine, redis_url: str, idle: timedelta) -> None:
        import redis

        self.engine = engine
        from ..storage.db import STORE_TIMEOUT

        # Redis down or refusing: an error within seconds (503 to the player), never a hang
        self.redis = redis.Redis.from_url(redis_url, socket_connect_timeout=STORE_TIMEOUT,
                                          socket_timeout=STORE_TIMEOUT)
        self.ttl = max(1, int(idle.total_seconds()))
        self._save = self.redis.register_script(_SAVE)
        self._close = self.redis.register_script(_CLOSE)
        self._writer = one_writer_for(engine)

    def _keys(self, game_id: str) -> list[str]:
        return [f"{self.PREFIX}live:{{{game_id}}}", f"{self.PREFIX}log:{{{game_id}}}"]

    def create(self, game: Live, now: datetime) -> None:
        with self._writer, self.engine.begin() as conn:
            conn.execute(insert(GameRow).values(
                id=game.id, size=game.size, mode=game.mode, day=game.day, seed=game.seed, created_at=now,
                ranked=False, at=0, touched_at=now,
            ))
        hash_key, log_key = self._keys(game.id)
        fields = {"size": game.size, "seed": game.seed, "mode": game.mode, "at": 0,
                  "day": game.day.isoformat() if game.day else "", "snap": json.dumps(game.snapshot)}
        with self.redis.pipeline() as pipe:
            pipe.hset(hash_key, mapping=fields)
            pipe.set(log_key, "")
            pipe.expire(hash_key, self.ttl)
            pipe.expire(log_key, self.ttl)
            pipe.execute()

    def load(self, game_id: str) -> Live | None:
        hash_key, log_key = self._keys(game_id)
        with self.redis.pipeline(transaction=True) as pipe:
            pipe.hgetall(hash_key)
            pipe.get(log_key)
            fields, log = pipe.execute()
        if fields:
            f = {k.decode(): v.decode() for k, v in fields.items()}
            return Live(game_id, int(f["size"]), int(f["seed"]), f["mode"],
                        date.fromisoformat(f["day"]) if f["day"] else None, int(f["at"]),
                        (log or b"").decode(), json.loads(f["snap"]))
        with self.engine.connect() as conn:
            row = conn.execute(select(*_COLUMNS).where(GameRow.id == game_id)).first()
        if row is None or row.finished_at is None:
            return None  # never issued, or idle too long: its live state expired
        return _live_from_row(row)

    def save(self, game: Live, expected_at: int, now: datetime) -> bool:
        added = game.log[expected_at:]
        return bool(self._save(keys=self._keys(game.id),
                               args=[expected_at, game.at, added, json.dumps(game.snapshot), self.ttl]))

    def finish(self, game: Live, expected_at: int, record: dict[str, Any]) -> bool:
        keys = self._keys(game.id)
        if not self._close(keys=keys, args=[expected_at]):
            return False
        statement = (
            update(GameRow)
            .where(GameRow.id == game.id, GameRow.finished_at.is_(None))
            .values(live=None, **record)
        )
        with durable(self.engine) as conn:
            done = _finished(conn, statement, game, record)
        self.redis.delete(*keys)
        return done

    def count_try(self, client: str, day: date, size: int, limit: int) -> bool:
        key = f"{self.PREFIX}tries:{day.isoformat()}:{size}:{client}"
        with self.redis.pipeline() as pipe:
            pipe.incr(key)
            pipe.expire(key, int(TRIES_KEPT.total_seconds()))
            count, _ = pipe.execute()
        if count > limit:
            self.redis.decr(key)
            return False
        return True

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


def make_store(engine: Engine, redis_url: str | None, idle_days: float) -> LiveStore:
    """Redis when a URL is given, else the database."""
    if redis_url:
        return RedisStore(engine, redis_url, timedelta(days=idle_days))
    return DatabaseStore(engine)


def utc_now() -> datetime:
    return datetime.now(UTC)

