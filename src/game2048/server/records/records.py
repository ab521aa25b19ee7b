"""The server's records of games: finished records, who may see them, leaderboards, names.

Plain functions over an SQLAlchemy session; the routes in ``api`` only
translate HTTP to these calls. Every refusal is a ``ClientError`` carrying the
HTTP status and a message a person can act on, raised before anything is
written. Games in play are ``live``'s; practice records are ``practice``'s.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any, Literal

from sqlalchemy import and_, func, or_, select
from sqlalchemy.orm import Session

from ...limits import GAME_ID
from ...spawn import Seed
from ..errors import ClientError
from ..storage.models import GameRow
from .arrivals import times_from_text
from .names import BadName, clean_name
from .standing import Shown, shown

Mode = Literal["classic", "daily"]
MODES: tuple[Mode, ...] = ("classic", "daily")
#: What a record can be: a ranked mode, or a practice game (a seed the client chose; never ranked).
RecordMode = Literal["classic", "daily", "practice"]
#: The leaderboards of a size and mode: people, and engines (bot games, and players' games that
#: play like the solver).
Board = Literal["players", "engines"]
BOARDS: tuple[Board, ...] = ("players", "engines")
#: Why a game that kept to the rules is not ranked, where its log does not say (``GameRow.unranked``).
Unranked = Literal["abandoned", "tries"]
#: Moves in a daily game are accepted until its UTC day ends plus this.
DAILY_GRACE = timedelta(minutes=10)
DAILY_GRACE_TEXT = "10 minutes"


def new_game_id() -> str:
    """A random id, 12 URL-safe characters (72 bits): not guessable, not a counter."""
    return secrets.token_urlsafe(9)


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
    #: Revealed with the finish; None while moves of its daily game are still accepted.
    seed: Seed | None = None
    #: The leaderboard the game is on.
    board: Board = "players"
    #: The key of the name, on the finish that first took it (and its retries); None otherwise.
    name_key: str | None = None
    #: Where the game stands (``standing.shown``): a rank only once ``listed``.
    standing: Shown = "listed"
    #: The solver helped (a hint through the game, a bare hint on a board it stood on, or the player's
    #: word): kept, never ranked.
    helped: bool = False
    #: Why a game that kept to the rules is not ranked (``abandoned``), or None.
    unranked: str | None = None
    #: Why a free name was not held by this finish (``owners.claim``'s refusal: error, code,
    #: fields); None otherwise.
    name_not_held: dict[str, Any] | None = None


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
    #: A players' game the check found to play like the solver (on the engines board, marked so).
    engine_like: bool = False


@dataclass(frozen=True)
class Record:
    id: str
    size: int
    seed: Seed
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
    #: The leaderboard it is on, and whether the engine-like check moved it there.
    board: Board = "players"
    engine_like: bool = False
    #: The engine-like check's figures (``solver.likeness``), once it is done; None before or unasked.
    likeness: dict[str, object] | None = None
    #: When each letter of the log reached the server, in ms since the game was issued; None for
    #: practice games and games from before arrival times were kept (``arrivals``).
    times: list[int] | None = None
    #: Where it stands (``standing.shown``), and why it waits for an operator when ``held``.
    standing: Shown = "listed"
    held_for: str | None = None

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


def deadline_for(mode: str, day: date | None) -> datetime | None:
    """The last moment a move of this game is accepted (None: no limit).

    >>> deadline_for("daily", date(2026, 3, 1)).isoformat()
    '2026-03-02T00:10:00+00:00'
    """
    if mode != "daily" or day is None:
        return None
    if day == date.max:  # a day no game is dealt on: its moves never end
        return datetime.max.replace(tzinfo=UTC)
    return datetime.combine(day + timedelta(days=1), time(0), UTC) + DAILY_GRACE


def is_public(mode: str, day: date | None, finished: bool, now: datetime | None = None) -> bool:
    """Whether a game's record (seed and log) may be shown: once it is finished, and for a
    daily game once no more moves for that day's games can be accepted (``deadline_for``):
    until then someone may still be playing that seed. The one place that decides.

    >>> is_public("daily", date(2026, 1, 1), True, now=datetime(2026, 1, 2, 0, 5, tzinfo=UTC))
    False
    >>> is_public("daily", date(2026, 1, 1), True, now=datetime(2026, 1, 2, 0, 11, tzinfo=UTC))
    True
    """
    if not finished:
        return False
    deadline = deadline_for(mode, day)
    return deadline is None or (now or datetime.now(UTC)) > deadline


def finish_answer(session: Session, game_id: str) -> Finished:
    """What the finish of a finished game answers, the first time and on every retry."""
    row = session.get(GameRow, game_id)
    if row is None or row.finished_at is None:
        raise ClientError(404, f"there is no finished game {game_id!r}")
    rank = None
    if row.ranked and row.standing == "listed":
        rank = row.finish_rank or _rank_of(session, row.board, row.size, row.mode, row.day,  # type: ignore[arg-type]
                                           row.score or 0, _aware(row.finished_at), row.id)
    seed = row.seed if is_public(row.mode, row.day, True) else None
    return Finished(True, row.ranked, row.score or 0, row.max_tile or 0, rank, seed, row.board,  # type: ignore[arg-type]
                    standing=shown(row.standing, row.engine_like), helped=row.helped, unranked=row.unranked)


def _board_filter(board: Board, size: int, mode: str, day: date | None):  # type: ignore[no-untyped-def]
    return and_(
        GameRow.board == board, GameRow.size == size, GameRow.mode == mode,
        GameRow.day.is_(None) if day is None else GameRow.day == day,
        GameRow.ranked.is_(True),
        GameRow.standing == "listed",  # not while checked, held for an operator, or hidden
    )


def _rank_of(session: Session, board: Board, size: int, mode: str, day: date | None, score: int,
             finished_at: datetime, game_id: str) -> int:
    return int(session.scalar(rank_query(board, size, mode, day, score, finished_at, game_id)) or 0)


def rank_query(board: Board, size: int, mode: str, day: date | None, score: int, finished_at: datetime,
               game_id: str):  # type: ignore[no-untyped-def]
    """A query for the place of a ranked game on its leaderboard: 1 + the games ahead of it."""
    return (
        select(func.count() + 1).select_from(GameRow).where(
            _board_filter(board, size, mode, day),
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
                limit: int = 20, board: Board = "players") -> list[Entry]:
    """Ranked games of one board, best score first, ties to the earlier finish.

    ``classic`` is the all-time board of classic games; ``daily`` the board of
    one UTC date's daily game (today when ``day`` is None). ``board`` is the
    players' board (people) or the engines' (bot games and engine-like games).
    """
    today = utc_today()
    day = (day or today) if mode == "daily" else None
    rows = session.execute(
        select(GameRow.name, GameRow.score, GameRow.max_tile, GameRow.moves, GameRow.id, GameRow.finished_at,
               GameRow.engine_like)
        .where(_board_filter(board, size, mode, day))
        .order_by(GameRow.score.desc(), GameRow.finished_at, GameRow.id)
        .limit(limit)
    ).all()
    shown = is_public(mode, day, True)
    return [
        Entry(i, r.name, r.score, r.max_tile, r.moves, r.id if shown else None, _aware(r.finished_at),
              bool(r.engine_like))
        for i, r in enumerate(rows, start=1)
    ]


def waiting(session: Session, size: int, mode: Mode = "classic", day: date | None = None) -> dict[str, int]:
    """How many ranked players' games of a board are not on it yet: ``checking`` and ``held``."""
    rows = session.execute(
        select(GameRow.standing, func.count()).where(
            GameRow.board == "players", GameRow.size == size, GameRow.mode == mode, GameRow.ranked.is_(True),
            GameRow.day.is_(None) if day is None else GameRow.day == day,
            GameRow.standing.in_(("checking", "held")))
        .group_by(GameRow.standing)).all()
    return {str(standing): int(n) for standing, n in rows}


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
                                   f"over (UTC) and no more moves can come ({DAILY_GRACE_TEXT} later)")
        raise ClientError(404, f"there is no finished game {game_id!r}")
    return Record(row.id, row.size, row.seed, row.mode, row.day, row.log or "", row.score or 0,  # type: ignore[arg-type]
                  row.max_tile or 0, row.moves or 0, row.ranked, row.name or "", _aware(row.finished_at),
                  json.loads(row.start) if row.start else None, row.board, row.engine_like,  # type: ignore[arg-type]
                  json.loads(row.likeness) if row.likeness else None, times_from_text(row.times),
                  shown(row.standing, row.engine_like), row.held_for)


def _aware(moment: datetime) -> datetime:
    """SQLite hands back naive datetimes; they were stored as UTC."""
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
