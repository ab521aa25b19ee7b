"""The server's work on games: issue, verify and keep, rank, look up.

Plain functions over an SQLAlchemy session; the routes in ``api`` only
translate HTTP to these calls. Every refusal is a ``ClientError`` carrying the
HTTP status and a message a person can act on, raised before anything is
written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Literal

from sqlalchemy import and_, func, or_, select, update
from sqlalchemy.orm import Session

from ..record import RecordError, replay
from ..rules import SIZES
from .db import one_writer
from .models import GameRow
from .names import BadName, clean_name
from .seeds import check_token, classic_seed, daily_seed, game_token, new_game_id

Mode = Literal["classic", "daily"]
MODES: tuple[Mode, ...] = ("classic", "daily")


#: What ``seeds.new_game_id`` makes; anything else cannot be a game (and never reaches the database).
_GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


class ClientError(Exception):
    """A request the server refuses; ``status`` is the HTTP status to answer with."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers


@dataclass(frozen=True)
class Issued:
    id: str
    seed: int
    size: int
    mode: Mode
    token: str
    date: date | None


@dataclass(frozen=True)
class Finished:
    verified: bool
    ranked: bool
    score: int
    max_tile: int
    rank: int | None


@dataclass(frozen=True)
class Entry:
    rank: int
    name: str
    score: int
    max_tile: int
    moves: int
    game_id: str
    finished_at: datetime


@dataclass(frozen=True)
class Record:
    id: str
    size: int
    seed: int
    mode: Mode
    date: date | None
    log: str
    score: int
    max_tile: int
    moves: int
    ranked: bool
    name: str
    finished_at: datetime


def utc_today() -> date:
    return datetime.now(UTC).date()


def check_name(name: str) -> str:
    """The nickname as it will be stored and shown (see ``names.clean_name``), or ClientError.

    >>> check_name("  Ada\u200b ")
    'Ada'
    """
    try:
        return clean_name(name)
    except BadName as exc:
        raise ClientError(422, str(exc)) from None


def start_game(session: Session, secret: str, size: int, mode: Mode, today: date | None = None) -> Issued:
    """Issue a new game: a random seed, or the day's shared seed for a daily game."""
    if size not in SIZES:
        raise ClientError(422, f"size must be one of {', '.join(map(str, SIZES))}, got {size}")
    if mode not in MODES:
        raise ClientError(422, f"mode must be 'classic' or 'daily', got {mode!r}")
    day = (today or utc_today()) if mode == "daily" else None
    seed = daily_seed(secret, day, size) if day else classic_seed()
    game_id = new_game_id()
    with one_writer(session):
        session.add(GameRow(id=game_id, size=size, mode=mode, day=day, seed=seed,
                            created_at=datetime.now(UTC), ranked=False))
        session.commit()
    return Issued(game_id, seed, size, mode, game_token(secret, game_id), day)


def finish_game(
    session: Session, secret: str, game_id: str, *, token: str, log: str, score: int, name: str,
    helped: bool = False, max_log: int | None = None,
) -> Finished:
    """Replay the record, and keep it if the replay scores what the player claims.

    Refuses (ClientError, nothing written): an unknown game (404), a wrong
    token (403), a game already finished (409), a log the rules do not allow or
    a score the replay does not reach (422). A game that used undo, or solver
    help, is kept but not ranked. The row is committed before this returns.
    """
    name = check_name(name)
    if max_log is not None and len(log) > max_log:
        raise ClientError(422, f"the log is {len(log)} letters long; at most {max_log} are accepted")
    row = session.get(GameRow, game_id) if _GAME_ID.fullmatch(game_id) else None
    if row is None:
        raise ClientError(404, f"there is no game {game_id!r}; start one with POST /api/games")
    if not check_token(secret, game_id, token):
        raise ClientError(403, "the token does not belong to this game")
    if row.finished_at is not None:
        raise ClientError(409, "this game was already finished; start a new one")
    try:
        game = replay(row.size, row.seed, log)
    except RecordError as exc:
        raise ClientError(422, f"the log does not replay: {exc}") from None
    if game.score != score:
        raise ClientError(422, f"the claimed score {score} does not match the replay's score {game.score}")
    ranked = game.ranked and not helped
    with one_writer(session):
        finished_at = datetime.now(UTC)
        done = session.execute(
            update(GameRow)
            .where(GameRow.id == game_id, GameRow.finished_at.is_(None))
            .values(finished_at=finished_at, name=name, log=log, score=game.score,
                    max_tile=game.max_tile, moves=game.moves, ranked=ranked)
        )
        if done.rowcount != 1:  # type: ignore[attr-defined]
            session.rollback()
            raise ClientError(409, "this game was already finished; start a new one")
        session.commit()
    rank = None
    if ranked:
        rank = _rank_of(session, row.size, row.mode, row.day, game.score, finished_at, game_id)
    return Finished(True, ranked, game.score, game.max_tile, rank)


def _board_filter(size: int, mode: str, day: date | None):  # type: ignore[no-untyped-def]
    return and_(
        GameRow.size == size, GameRow.mode == mode,
        GameRow.day.is_(None) if day is None else GameRow.day == day,
        GameRow.ranked.is_(True),
    )


def _rank_of(session: Session, size: int, mode: str, day: date | None, score: int,
             finished_at: datetime, game_id: str) -> int:
    ahead = session.scalar(
        select(func.count()).select_from(GameRow).where(
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
    return int(ahead or 0) + 1


def leaderboard(session: Session, size: int, mode: Mode = "classic", day: date | None = None,
                limit: int = 20) -> list[Entry]:
    """Ranked games of one board, best score first, ties to the earlier finish.

    ``classic`` is the all-time board of classic games; ``daily`` the board of
    one UTC date's daily game (today when ``day`` is None).
    """
    day = (day or utc_today()) if mode == "daily" else None
    rows = session.execute(
        select(GameRow.name, GameRow.score, GameRow.max_tile, GameRow.moves, GameRow.id, GameRow.finished_at)
        .where(_board_filter(size, mode, day))
        .order_by(GameRow.score.desc(), GameRow.finished_at, GameRow.id)
        .limit(limit)
    ).all()
    return [
        Entry(i, r.name, r.score, r.max_tile, r.moves, r.id, _aware(r.finished_at))
        for i, r in enumerate(rows, start=1)
    ]


def get_record(session: Session, game_id: str) -> Record:
    """The record of a finished game, enough for anyone to replay and check it."""
    row = session.get(GameRow, game_id) if _GAME_ID.fullmatch(game_id) else None
    if row is None or row.finished_at is None:
        raise ClientError(404, f"there is no finished game {game_id!r}")
    return Record(row.id, row.size, row.seed, row.mode, row.day, row.log or "", row.score or 0,  # type: ignore[arg-type]
                  row.max_tile or 0, row.moves or 0, row.ranked, row.name or "", _aware(row.finished_at))


def _aware(moment: datetime) -> datetime:
    """SQLite hands back naive datetimes; they were stored as UTC."""
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
