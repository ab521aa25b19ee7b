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

The rooms: ``base`` (the game as a store hands it out, the interface, the
finished record's write), ``database`` (SQLite and PostgreSQL; ``tail``: an
SQLite move's letters in its row; ``pg_lines``: PostgreSQL's connections for
moves saved from the event loop) and ``redis`` (``redis_lines``: its
connection for moves saved from the event loop); ``pipeline``: what those two
kinds of pipelined connection share.
"""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import Engine

from .base import Live, LiveStore, Stored
from .database import MOVE_CONNECTIONS, DatabaseStore, caught_up
from .redis import RedisStore

__all__ = ["MOVE_CONNECTIONS", "DatabaseStore", "Live", "LiveStore", "RedisStore", "Stored", "caught_up",
           "make_store"]


def make_store(engine: Engine, redis_url: str | None, idle_days: float,
               durability: str = "process") -> LiveStore:
    """Redis when a URL is given, else the database. ``durability="disk"``: a saved move is on disk
    before ``save`` returns (Redis: as its server's ``appendfsync`` says; see docs/deploy.md)."""
    if redis_url:
        return RedisStore(engine, redis_url, timedelta(days=idle_days))
    return DatabaseStore(engine, durability)

