"""Who holds a name: the first finish under a name takes it, and answers its name key.

A player is a nickname, no account. The finish that first uses a name takes
it and gets a name key back; later finishes under that name must send the key
(409 ``name_held`` without it). A new name that looks like a held one (equal
TR39 skeletons, ``names.skeleton``) is refused with 409 ``name_confusable``. A
name nobody has finished a game under for ``HELD_FOR`` is free again.

Only a hash of the key is kept. The key itself is derived from the server's
secret and the game whose finish took the name, so a retry of that finish
(a lost answer) gets the same key again.

>>> len(name_key("k", "Ada", "abc")) == 32
True
"""

from __future__ import annotations

import hashlib
import hmac
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Connection, insert, select, update
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError

from ..errors import ClientError
from ..storage.models import BarredKeyRow, NameRow
from .names import skeleton

#: A name is free again once no game was finished under it for this long.
HELD_FOR = timedelta(days=180)


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
          now: datetime | None = None) -> str | None:
    """Use ``name`` for the finish of ``game_id``, in that finish's transaction (``conn``):
    take it if it is free (the answer is then its key, and ``key_for`` finds it again for a
    retry), or mark it used if this finish may use it (the answer is None). ``check`` refused
    anyone else before the finish's work; one that took the name since gets None here, and
    the record stays under the name it was finished with.
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
            taken = conn.execute(update(NameRow).where(NameRow.name == name, NameRow.used_at < cutoff)
                                 .values(values)).rowcount
            if not taken:
                conn.execute(insert(NameRow).values(name=name, **values))
    except IntegrityError:  # another finish took it at the same moment
        return None
    return fresh


def key_for(engine: Engine, secret: str, game_id: str) -> str | None:
    """The key of the name the finish of ``game_id`` took, if it took one (for a retried finish)."""
    with engine.connect() as conn:
        name = conn.execute(select(NameRow.name).where(NameRow.first_game == game_id)).scalar()
    return None if name is None else name_key(secret, name, game_id)


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
