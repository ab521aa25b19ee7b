"""Who holds a name: the first finish under a name takes it, and answers its name key.

A player is a nickname, no account. The finish that first uses a name takes
it and gets a name key back; later finishes under that name must send the key
(409 ``name_held`` without it). A new name that looks like a held one (equal
TR39 skeletons, ``names.skeleton``) is refused with 409 ``name_confusable``. A
name nobody has finished a game under for ``HELD_FOR`` is free again.

Only a hash of the key is kept. The key itself is derived from the server's
secret and the game whose finish took the name, so a retry of that finish
(a lost answer) gets the same key again.

A network newly holds at most a few names a UTC day (``Holder``, GAME2048_NAMES_PER_DAY):
past them, the finish keeps its record under the name as usual, but the name is not held
(no key; ``claim`` says why with the refusal ``names_per_day``). A player loses no game over
it, and a script cannot hold dozens of names from one address.

>>> len(name_key("k", "Ada", "abc")) == 32
True
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta
from typing import Any

from sqlalchemy import Connection, delete, insert, select, update
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError

from ..errors import ClientError
from ..storage.db import one_writer_for
from ..storage.models import BarredKeyRow, DailyTryRow, GameRow, NameRow
from .names import skeleton

#: A name is free again once no game was finished under it for this long.
HELD_FOR = timedelta(days=180)
#: The ``daily_tries`` row's size that counts the names a network newly held a day (a board is 3 to
#: 6): the daily counters' table, their keyed hashes and their purge serve names too.
NAMES_COUNTED = 0


@dataclass(frozen=True)
class Holder:
    """Who a finish would newly hold a name for, as names are counted: a keyed hash of its network
    (``limits.daily.client_key``, never the address), and the names it may newly hold a UTC day
    (0: any number)."""

    client: str
    per_day: int


def name_key(secret: str, name: str, game_id: str) -> str:
    """The key of ``name`` as taken by the finish of ``game_id``: 32 hex digits."""
    return hmac.new(secret.encode(), f"name:{name}:{game_id}".encode(), hashlib.sha256).hexdigest()[:32]


def _hash(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8", "replace")).hexdigest()


def _held_message(name: str) -> str:
    return (f"the name {name!r} belongs to the browser that first used it; send its name key "
            "(name_key), or choose another name")


def check(engine: Engine, name: str, key: str | None, game_id: str, now: datetime | None = None) -> None:
    """Refuse (409) a finish under ``name`` that may not use it; changes nothing."""
    with engine.connect() as conn:
        _decide(conn, name, key, game_id, (now or datetime.now(UTC)) - HELD_FOR)


def claim(conn: Connection, secret: str, name: str, key: str | None, game_id: str,
          now: datetime | None = None, holder: Holder | None = None) -> str | None:
    """Use ``name`` for the finish of ``game_id``, in that finish's transaction (``conn``):
    take it if it is free (the answer is then its key, and ``told`` finds it again for a
    retry), or mark it used if this finish may use it (the answer is None). ``check`` refused
    anyone else before the finish's work; one that took the name since gets None here, and
    the record stays under the name it was finished with. A free name that ``holder`` may not
    newly hold today is not taken: ClientError (429, ``names_per_day``) says so, having written
    nothing, and the finish keeps its record under the name all the same (and ``told`` says so
    again for a retry).
    """
    now = now or datetime.now(UTC)
    cutoff = now - HELD_FOR
    try:
        held = _decide(conn, name, key, game_id, cutoff)
    except ClientError:
        return None
    if held is not None:
        conn.execute(update(NameRow).where(NameRow.name == name).values(used_at=now))
        return name_key(secret, name, game_id) if held.first_game == game_id else None
    fresh = name_key(secret, name, game_id)
    values = {"skeleton": skeleton(name), "key_hash": _hash(fresh), "first_game": game_id, "used_at": now}
    try:
        with conn.begin_nested():  # a savepoint: losing a race for the name must not undo the finish
            if holder is not None and holder.per_day and not _count_new(conn, holder, now):
                raise _too_many_names(holder.per_day, now)
            taken = conn.execute(update(NameRow).where(NameRow.name == name, NameRow.used_at < cutoff)
                                 .values(values)).rowcount
            if not taken:
                conn.execute(insert(NameRow).values(name=name, **values))
    except IntegrityError:  # another finish took it at the same moment
        return None
    return fresh


def _count_new(conn: Connection, holder: Holder, now: datetime) -> bool:
    """Count one name newly held by ``holder`` today, in the finish's transaction; False (nothing
    counted) when it holds its ``per_day`` already."""
    counter = {"client": holder.client, "day": now.date(), "size": NAMES_COUNTED}
    row = [getattr(DailyTryRow, column) == value for column, value in counter.items()]

    def counted() -> bool:
        return bool(conn.execute(update(DailyTryRow).where(*row, DailyTryRow.tries < holder.per_day)
                                 .values(tries=DailyTryRow.tries + 1)).rowcount)

    if counted():
        return True
    if conn.execute(select(DailyTryRow.tries).where(*row)).first() is not None:
        return False
    try:
        with conn.begin_nested():
            conn.execute(insert(DailyTryRow).values(**counter, tries=1))
        return True
    except IntegrityError:  # another finish of this network began the day's count at the same moment
        return counted()


def _too_many_names(limit: int, now: datetime) -> ClientError:
    next_day = datetime.combine(now.date() + timedelta(days=1), time(0), UTC)
    return ClientError(
        429, f"this network has newly held {limit} names today, all it may: the game is recorded under "
             "this name, but the name is not held for you (no name_key); finish a game under it again "
             "after 00:00 UTC to hold it", code="names_per_day",
        fields={"limit": limit, "next_at": next_day.isoformat().replace("+00:00", "Z")})


def told(engine: Engine, secret: str, game_id: str, holder: Holder | None = None,
         now: datetime | None = None) -> tuple[str | None, dict[str, Any] | None]:
    """What the finish of ``game_id`` answered of its name, again for a retry: the key of the name
    it took, if it took one; the ``names_per_day`` refusal (its body) if its name was free and
    ``holder`` could not hold it, which is so while nobody holds the name of a players' record."""
    cutoff = (now or datetime.now(UTC)) - HELD_FOR
    with engine.connect() as conn:
        taken = conn.execute(select(NameRow.name).where(NameRow.first_game == game_id)).scalar()
        if taken is not None:
            return name_key(secret, taken, game_id), None
        record = conn.execute(select(GameRow.name, GameRow.finished_at).where(
            GameRow.id == game_id, GameRow.bot.is_(False), GameRow.finished_at.is_not(None))).first()
        used = record and conn.execute(select(NameRow.used_at).where(NameRow.name == record.name)).scalar()
    if holder is None or not holder.per_day or record is None or (used and _aware(used) >= cutoff):
        return None, None
    return None, _too_many_names(holder.per_day, _aware(record.finished_at)).body()


def recover(engine: Engine, key: str, now: datetime | None = None) -> list[str]:
    """The names ``key`` holds, for another browser of their holder (the key is the recovery code
    ``/me`` shows); 404 ``name_key_unknown`` when it holds none. Changes nothing."""
    cutoff = (now or datetime.now(UTC)) - HELD_FOR
    with engine.connect() as conn:
        names = conn.execute(select(NameRow.name).order_by(NameRow.name).where(
            NameRow.key_hash == _hash(key), NameRow.used_at >= cutoff)).scalars().all()
    if not names:
        raise ClientError(404, "no name is held with this code: check it, or the name went free after "
                               "180 days without a game", code="name_key_unknown")
    return list(names)


def release(engine: Engine, name: str, key: str, now: datetime | None = None) -> None:
    """Free ``name`` for anyone, at its holder's word (``key``): 404 ``name_not_held`` if nobody holds
    it, 403 ``name_key_wrong`` if ``key`` is not its key; a refusal changes nothing. Its records
    stay under it."""
    cutoff = (now or datetime.now(UTC)) - HELD_FOR
    with one_writer_for(engine), engine.begin() as conn:
        row = conn.execute(select(NameRow.key_hash, NameRow.used_at).where(NameRow.name == name)).first()
        if row is None or _aware(row.used_at) < cutoff:
            raise ClientError(404, f"nobody holds the name {name!r}: it is free already",
                              code="name_not_held")
        if not hmac.compare_digest(row.key_hash, _hash(key)):
            raise ClientError(403, f"this is not the key of the name {name!r}; the name stays held",
                              code="name_key_wrong")
        conn.execute(delete(NameRow).where(NameRow.name == name, NameRow.key_hash == row.key_hash))


def barred(engine: Engine, name: str) -> bool:
    """Whether an operator barred the key that holds ``name`` from the players' board
    (``moderation.actions``): its games then land on the engines board."""
    with engine.connect() as conn:
        found = select(BarredKeyRow.key_hash).join(NameRow, NameRow.key_hash == BarredKeyRow.key_hash)
        return conn.execute(found.where(NameRow.name == name)).first() is not None


def _decide(conn: Connection, name: str, key: str | None, game_id: str, cutoff: datetime) -> Any:
    """The row of ``name`` if it is held and this finish may use it; None if it is free; else 409."""
    row = conn.execute(select(NameRow).where(NameRow.name == name)).first()
    if row is not None and _aware(row.used_at) >= cutoff:
        if row.first_game == game_id or (key and hmac.compare_digest(row.key_hash, _hash(key))):
            return row
        raise ClientError(409, _held_message(name), code="name_held")
    alike = conn.execute(select(NameRow.name).where(
        NameRow.skeleton == skeleton(name), NameRow.name != name, NameRow.used_at >= cutoff)).first()
    if alike is not None:
        raise ClientError(409, f"the name {name!r} looks like {alike.name!r}, which someone else uses; "
                               "choose another name", code="name_confusable")
    return None


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
