"""The JSON API: typed requests and answers, each route a thin call into ``games``.

Every error answer is ``{"error": "<message>"}`` with a 4xx status (422 for a
request that does not fit its schema or a record that does not verify).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Path, Query, Request, Response
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy.orm import Session

from . import conditional, games
from .config import MAX_LOG
from .cpubudget import Verifier, client_address
from .errors import ErrorOut, responses
from .games import ClientError, Mode

router = APIRouter(prefix="/api")

MAX_SEED_EXCLUSIVE = 2**53


class _Strict(BaseModel):
    # "4" is not 4 and true is not 1: a wrong type is the client's mistake to hear about
    model_config = ConfigDict(strict=True)


class NewGameIn(_Strict):
    size: int = Field(4, ge=3, le=6, description="Board size: 3, 4, 5 or 6.")
    mode: Mode = Field("classic", description="classic: a fresh random seed; daily: the day's shared seed.")


class NewGameOut(BaseModel):
    id: str
    seed: int = Field(ge=0, lt=MAX_SEED_EXCLUSIVE)
    size: int
    mode: Mode
    token: str = Field(description="Send it back to finish this game.")
    date: dt.date | None = Field(None, description="The UTC date of a daily game.")


class FinishIn(_Strict):
    token: str = Field(max_length=128)
    log: str = Field(max_length=MAX_LOG, description="Moves U D L R and undos Z, in order.")
    score: int = Field(ge=0, lt=MAX_SEED_EXCLUSIVE, description="The score the player saw.")
    name: str = Field(max_length=200, description="Nickname, 1 to 24 characters, no control characters.")
    helped: bool = Field(False, description="True if a solver hint or autoplay chose a move: not ranked.")


class FinishOut(BaseModel):
    verified: bool
    ranked: bool
    score: int
    max_tile: int
    rank: int | None = Field(description="Place on the game's leaderboard; null when not ranked.")


class EntryOut(BaseModel):
    rank: int
    name: str
    score: int
    max_tile: int
    moves: int
    game_id: str
    finished_at: dt.datetime


class LeaderboardOut(BaseModel):
    size: int
    mode: Mode
    date: dt.date | None
    entries: list[EntryOut]


class RecordOut(BaseModel):
    id: str
    size: int
    seed: int
    mode: Mode
    date: dt.date | None
    log: str
    score: int
    max_tile: int
    moves: int
    ranked: bool
    name: str
    finished_at: dt.datetime


class HintIn(_Strict):
    size: int = Field(ge=3, le=6)
    board: list[list[int]] = Field(max_length=6, description="Rows of tile values, 0 for empty.")


class HintOut(BaseModel):
    move: Literal["up", "down", "left", "right"] | None = Field(description="null when no move is legal.")
    scores: dict[str, float]


ERRORS = responses(403, 404, 408, 409, 413, 422, 429)  # every status the API uses
#: What any route with a JSON body can answer before it runs: too slow, too large, unreadable.
BODY_ERRORS = (408, 413, 422)


def session(request: Request) -> Iterator[Session]:
    with request.app.state.sessions() as s:
        yield s


def limited(scope: str):  # type: ignore[no-untyped-def]
    """A dependency that counts one request of ``scope`` against the client's rate limit."""

    def check(request: Request) -> None:
        limiter = request.app.state.limiters[scope]
        wait = limiter.check(scope, request.client.host if request.client else "unknown")
        if wait is not None:
            raise ClientError(429, f"too many requests; try again in {wait} s", {"Retry-After": str(wait)})

    return Depends(check)


Db = Annotated[Session, Depends(session)]
GameId = Annotated[str, Path(max_length=64)]


@router.post("/games", status_code=201, response_model=NewGameOut, responses=responses(*BODY_ERRORS, 429),
             dependencies=[limited("games")])
def create_game(body: NewGameIn, request: Request, db: Db) -> NewGameOut:
    """Start a game: the server issues its seed and the token that finishes it."""
    issued = games.start_game(db, request.app.state.secret, body.size, body.mode)
    return NewGameOut(id=issued.id, seed=issued.seed, size=issued.size, mode=issued.mode,
                      token=issued.token, date=issued.date)


@router.post("/games/{game_id}/finish", response_model=FinishOut,
             responses=responses(403, 404, 409, *BODY_ERRORS, 429), dependencies=[limited("games")])
def finish_game(game_id: GameId, body: FinishIn, request: Request, db: Db, verify: Verifier) -> FinishOut:
    """Submit the game's record; the server replays it and keeps it if the score matches.

    The replay's CPU time counts against the client's CPU budget (429 when spent); a
    record refused once (422) is refused at once if sent again.
    """
    name = games.check_name(body.name)  # before the replay: a bad name is not a bad record
    with verify("finish", game_id, body.log, body.score):
        done = games.finish_game(
            db, request.app.state.secret, game_id, token=body.token, log=body.log, score=body.score,
            name=name, helped=body.helped, max_log=request.app.state.settings.max_log,
        )
    request.app.state.answers.clear()  # this worker's leaderboards now include the new score
    return FinishOut(verified=done.verified, ranked=done.ranked, score=done.score,
                     max_tile=done.max_tile, rank=done.rank)


@router.get("/leaderboard", response_model=LeaderboardOut, responses=responses(422))
async def leaderboard(
    request: Request,
    size: Annotated[int, Query(ge=3, le=6)] = 4,
    mode: Mode = "classic",
    day: Annotated[
        dt.date | None, Query(alias="date", description="UTC date of a daily board; default today.")
    ] = None,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
) -> LeaderboardOut:
    """The best ranked games of one board: all-time (classic) or one day's daily game.

    Answers may be up to a second old when several workers serve the site.
    """
    day = (day or games.utc_today()) if mode == "daily" else None
    cache = request.app.state.answers
    key = ("leaderboard", size, mode, day, limit)
    body = cache.get(key)
    if body is None:
        body = await run_in_threadpool(_leaderboard_json, request.app.state.sessions, size, mode, day, limit)
        cache.put(key, body)
    return Response(body, media_type="application/json")


def _leaderboard_json(sessions, size: int, mode: Mode, day: dt.date | None, limit: int) -> bytes:  # type: ignore[no-untyped-def]
    with sessions() as db:
        entries = games.leaderboard(db, size, mode, day, limit)
    answer = LeaderboardOut(size=size, mode=mode, date=day, entries=[EntryOut(**vars(e)) for e in entries])
    return answer.model_dump_json().encode()


@router.get("/games/{game_id}", response_model=RecordOut, responses={
    **responses(404, 422), 304: {"description": "the client's copy (If-None-Match) is current"}})
def get_game(game_id: GameId, db: Db, request: Request) -> Response:
    """A finished game's record: replay (size, seed, log) to check its score.

    It never changes: the answer has an ETag, and If-None-Match gets a 304.
    """
    record = RecordOut(**vars(games.get_record(db, game_id)))
    answer = Response(record.model_dump_json().encode(), media_type="application/json")
    return conditional.cached(request, answer, conditional.RECORD_CACHE)


@router.post("/hint", response_model=HintOut, dependencies=[limited("hint")], responses={
    **responses(*BODY_ERRORS, 429), 503: {"model": ErrorOut, "description": "no solver installed here"}})
def hint(body: HintIn, request: Request) -> HintOut:
    """The solver's move for a position, and its score for every legal direction."""
    from ..game import Game

    if len(body.board) != body.size:
        raise ClientError(422, f"a board of size {body.size} needs {body.size} rows, got {len(body.board)}")
    try:
        Game.from_board(body.board)
    except ValueError as exc:
        raise ClientError(422, f"not a board: {exc}") from None
    try:
        from ..solver import analyse
    except ImportError:
        raise ClientError(503, "this server has no solver installed") from None
    with request.app.state.hint_budget.spend(client_address(request), "hint"):
        move, scores = analyse(body.board, time_limit=request.app.state.settings.hint_time)
    return HintOut(move=move, scores=scores)  # type: ignore[arg-type]
