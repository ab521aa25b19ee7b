"""The Redis store (``REDIS_URL``): a game in play as a hash and two append-only strings (its log,
its arrivals), each expiring when the game has been idle too long; the database keeps what the
game was issued as and, once finished, its record.

A move is one script, one round trip, with its rate-limit count when there is one; a socket's
move is sent from the event loop on the loop's own pipelined connection (``redis_lines``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from datetime import date, datetime, timedelta
from typing import Any

from sqlalchemy import Connection, Engine, delete, insert, select, update

from ....spawn import seed_from_text
from ...limits.rate import HITS_LUA, Hit
from ...storage.db import durable, one_writer_for
from ...storage.models import DailyTryRow, GameRow
from .base import (
    GAME_COLUMNS,
    TRIES_KEPT,
    Live,
    LiveStore,
    Stored,
    aware_utc,
    epoch_ms,
    live_from_row,
    mark_helped_in_database,
    position_text,
    write_finished,
)

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
    ``save_async`` sends it from the event loop on that loop's own pipelined connection
    (``redis_lines``), so a socket's move needs no thread (``moving.play_kept``): handing a move
    to a thread and back cost about a quarter of a Redis move's CPU.
    """

    PREFIX = "game2048:"
    saves_async = True

    def __init__(self, engine: Engine, redis_url: str, idle: timedelta) -> None:
        import redis

        self.engine = engine
        from ...storage.db import STORE_TIMEOUT

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
        # a socket's move saved from the event loop, on the loop's own pipelined connection
        from .redis_lines import MoveLines

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
                unranked=game.unranked,
            ))
        hash_key, log_key, times_key = self._keys(game.id)
        fields = {"size": game.size, "seed": game.seed, "mode": game.mode, "at": 0, "board": game.board,
                  "bot": game.bot or "", "unranked": game.unranked or "",
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
                        f.get("helped") == "1", f.get("bot") or None, f.get("unranked") or None)
        with self.engine.connect() as conn:
            row = conn.execute(select(*GAME_COLUMNS).where(GameRow.id == game_id)).first()
        if row is None or row.finished_at is None:
            return None  # never issued, or idle too long: its live state expired
        return live_from_row(row)

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
        return self._keys(game_id), [expected_at, expected_at + len(added), added, position_text(snapshot),
                                     self.ttl, f"{expected_at}:{epoch_ms(now)};"]

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
        return (aware_utc(started) if started is not None else None), batches

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
            done = write_finished(conn, statement, game, record, also)
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

    def note_asked(self, client: str, boards: Iterable[str], now: datetime) -> None:
        # one sorted set a client, scored by when each board was asked; it goes when the client is
        # quiet as long as an idle game is kept, and older boards go as new ones come
        key, at = f"{self.PREFIX}asked:{client}", now.timestamp()
        with self.redis.pipeline() as pipe:
            pipe.zadd(key, dict.fromkeys(boards, at))
            pipe.zremrangebyscore(key, "-inf", at - self.ttl)
            pipe.expire(key, self.ttl)
            pipe.execute()

    def asked_since(self, client: str, since: datetime) -> set[str]:
        found = self.redis.zrangebyscore(f"{self.PREFIX}asked:{client}", since.timestamp(), "+inf")
        return {board.decode() for board in found}

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

