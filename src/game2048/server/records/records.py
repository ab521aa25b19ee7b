"""The server's records of games: finished records, who may see them, leaderboards, names.

Plain functions over an SQLAlchemy session; the routes in ``api`` only
translate HTTP to these calls. Every refusal is a ``ClientError`` carrying the
HTTP status and a message a person can act on, raised before anything is
written. Games in play are ``live``'s; practice records are ``practice``'s.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Literal

from sqlalchemy import and_, func, or_, select
from sqlalchemy.orm import Session

from ...limits import GAME_ID
from ..errors import ClientError
from ..storage.models import GameRow
from .names import BadName, clean_name

Mode = Literal["classic", "daily"]
MODES: tuple[Mode, ...] = ("classic", "daily")
#: What a record can be: a ranked mode, or a practice game (a seed the client chose; never ranked).
RecordMode = Literal["classic", "daily", "practice"]


def could_be_game_id(game_id: str) -> bool:
    """Whether ``game_id`` is of the shape the server issues: anything else never reaches the database."""
    return GAME_ID.fullmatch(game_id) is not None


@dataclass(frozen=True)
class Finished:
    verified: bool
    ranked: bool
    score: int
    max_tile: int
    rank: int | None
    #: Revealed with the finish; None while a daily game's day lasts (everyone plays that seed).
    seed: int | None = None


@dataclass(frozen=True)
class Entry:
    rank: int
    name: str
    score: int
    max_tile: int
    moves: int
    #: None while the game's record is hidden (a daily game whose day lasts): no replay to link to.
    game_id: str | None
    finished_at: datetime


@dataclass(frozen=True)
class Record:
    id: str
    size: int
    seed: int
    mode: RecordMode
    date: date | None
    log: str
    score: int
    max_tile: int
    moves: int
    ranked: bool
    name: str
    finished_at: datetime
    #: The position a practice game began from, ``{"board": rows, "score": n}``; None for an opening.
    start: dict[str, object] | None = None

    @property
    def begins(self) -> dict[str, object]:
        """The keywords ``replay`` and ``positions`` take for where this game began (none for an opening)."""
        if self.start is None:
            return {}
        return {"start": self.start["board"], "start_score": self.start["score"]}


def utc_today() -> date:
    return datetime.now(UTC).date()


def check_name(name: str) -> str:
    """The nickname as it will be stored and shown (see ``names.clean_name``), or ClientError
    with the refusal's code (``name_invisible``...).

    >>> check_name("  Ada   Lovelace ")
    'Ada Lovelace'
    """
    try:
        return clean_name(name)
    except BadName as exc:
        raise ClientError(422, str(exc), code=exc.code) from None


def is_public(mode: str, day: date | None, finished: bool, today: date | None = None) -> bool:
    """Whether a game's record (seed and log) may be shown: once it is finished, and for a
    daily game once its UTC day is over too (until then everyone is playing that seed).

    >>> is_public("daily", date(2026, 1, 1), True, today=date(2026, 1, 1))
    False
    >>> is_public("daily", date(2026, 1, 1), True, today=date(2026, 1, 2))
    True
    """
    if not finished:
        return False
    return not (mode == "daily" and day is not None and day >= (today or utc_today()))


def finish_answer(session: Session, game_id: str) -> Finished:
    """What the finish of a finished game answers, the first time and on every retry."""
    row = session.get(GameRow, game_id)
    if row is None or row.finished_at is None:
        raise ClientError(404, f"there is no finished game {game_id!r}")
    rank = None
    if row.ranked:
        rank = row.finish_rank or _rank_of(session, row.size, row.mode, row.day, row.score or 0,
                                           _aware(row.finished_at), row.id)
    seed = row.seed if is_public(row.mode, row.day, True) else None
    return Finished(True, row.ranked, row.score or 0, row.max_tile or 0, rank, seed)


def _board_filter(size: int, mode: str, day: date | None):  # type: ignore[no-untyped-def]
    return and_(
        GameRow.size == size, GameRow.mode == mode,
        GameRow.day.is_(None) if day is None else GameRow.day == day,
        GameRow.ranked.is_(True),
    )


def _rank_of(session: Session, size: int, mode: str, day: date | None, score: int,
             finished_at: datetime, game_id: str) -> int:
    return int(session.scalar(rank_query(size, mode, day, score, finished_at, game_id)) or 0)


def rank_query(size: int, mode: str, day: date | None, score: int, finished_at: datetime,
               game_id: str):  # type: ignore[no-untyped-def]
    """A query for the place of a ranked game on its leaderboard: 1 + the games ahead of it."""
    return (
        select(func.count() + 1).select_from(GameRow).where(
            _board_filter(size, mode, day),
            or_(
                GameRow.score > score,
                and_(GameRow.score == score, or_(
                    GameRow.finished_at < finished_at,
                    and_(GameRow.finished_at == finished_at, GameRow.id < game_id),
                )),
            ),
        )
    )


def leaderboard(session: Session, size: int, mode: Mode = "classic", day: date | None = None,
                limit: int = 20) -> list[Entry]:
    """Ranked games of one board, best score first, ties to the earlier finish.

    ``classic`` is the all-time board of classic games; ``daily`` the board of
    one UTC date's daily game (today when ``day`` is None).
    """
    today = utc_today()
    day = (day or today) if mode == "daily" else None
    rows = session.execute(
        select(GameRow.name, GameRow.score, GameRow.max_tile, GameRow.moves, GameRow.id, GameRow.finished_at)
        .where(_board_filter(size, mode, day))
        .order_by(GameRow.score.desc(), GameRow.finished_at, GameRow.id)
        .limit(limit)
    ).all()
    shown = is_public(mode, day, True, today)
    return [
        Entry(i, r.name, r.score, r.max_tile, r.moves, r.id if shown else None, _aware(r.finished_at))
        for i, r in enumerate(rows, start=1)
    ]


def get_record(session: Session, game_id: str) -> Record:
    """The record of a finished game, enough for anyone to replay and check it.

    The one place that decides whether a record is public (``is_public``): a
    game in play, or a daily game whose day lasts, is a 404 like a game that
    does not exist, so its seed and moves stay unknown.
    """
    row = session.get(GameRow, game_id) if could_be_game_id(game_id) else None
    if row is None or not is_public(row.mode, row.day, row.finished_at is not None):
        if row is not None and row.finished_at is not None:
            raise ClientError(404, f"the record of game {game_id!r} is shown once its daily game's day is "
                                   "over (UTC)")
        raise ClientError(404, f"there is no finished game {game_id!r}")
    return Record(row.id, row.size, row.seed, row.mode, row.day, row.log or "", row.score or 0,  # type: ignore[arg-type]
                  row.max_tile or 0, row.moves or 0, row.ranked, row.name or "", _aware(row.finished_at),
                  json.loads(row.start) if row.start else None)


def _aware(moment: datetime) -> datetime:
    """SQLite hands back naive datetimes; they were stored as UTC."""
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
