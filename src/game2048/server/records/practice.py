"""Practice records: games whose seed the client chose (offline play, a chosen seed, a position).

The server replays the record and keeps it if it verifies; it never ranks
one. Kept practice games are shown like any finished game (``/games/{id}``,
``GET /api/games/{id}``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import insert
from sqlalchemy.orm import Session

from ...record import RecordError, replay
from ..errors import ClientError
from ..storage.db import durable, utc_now
from ..storage.models import GameRow
from .records import check_name, new_game_id


@dataclass(frozen=True)
class Kept:
    id: str
    score: int
    max_tile: int


def weight(body: Any) -> int:
    """The bytes a practice record takes that its sender chose (log, name, start), as the storage
    quota counts them (``limits.quota``)."""
    start = getattr(body, "start", None)
    board = 0 if start is None else len(json.dumps(start.model_dump()))
    return len(body.log) + len(body.name.encode()) + board


def keep(session: Session, size: int, seed: int, log: str, score: int, name: str, *,
         start: tuple[Sequence[Sequence[int]], int] | None = None) -> Kept:
    """Replay (size, seed, log), from ``start`` (board, score) if given, and keep it if it scores ``score``.

    422 (nothing kept) for a record the rules refuse, a score the replay does
    not reach, or a start board that is not one. The row is on disk before
    this returns.
    """
    name = check_name(name)
    try:
        if start is None:
            game = replay(size, seed, log)
        else:
            game = replay(size, seed, log, start=start[0], start_score=start[1])
    except RecordError as exc:
        raise ClientError(422, f"the log does not replay: {exc}") from None
    except ValueError as exc:
        raise ClientError(422, f"not a game: {exc}") from None
    if game.score != score:
        raise ClientError(422, f"the claimed score {score} does not match the replay's score {game.score}")
    now = utc_now()
    game_id = new_game_id()
    values = {
        "id": game_id, "size": size, "mode": "practice", "day": None, "seed": seed, "created_at": now,
        "finished_at": now, "name": name, "log": log, "score": game.score, "max_tile": game.max_tile,
        "moves": game.moves, "ranked": False, "at": len(log), "touched_at": now,
        "start": None if start is None else json.dumps({"board": [list(r) for r in start[0]],
                                                        "score": start[1]}),
    }
    with durable(session.get_bind()) as conn:  # type: ignore[arg-type]
        conn.execute(insert(GameRow).values(values))
    return Kept(game_id, game.score, game.max_tile)
