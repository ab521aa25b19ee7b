"""The JSON API: typed requests and answers, each route a thin call into ``live``
(games in play), ``practice`` (practice records) or ``games`` (records, leaderboards).

Every error answer is ``{"error": "<message>"}`` with a 4xx status (422 for a
request that does not fit its schema or a record that does not verify).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Annotated, Literal

from fastapi import APIRouter, Depends, FastAPI, Path, Query, Request, Response
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy.orm import Session

from . import conditional, games, live, practice
from .config import MAX_LOG, MAX_MOVES
from .cpubudget import Verifier, client_address
from .errors import ErrorOut, responses
from .games import ClientError, Mode, RecordMode
from .names import NAME_MAX

router = APIRouter(prefix="/api")

MAX_SEED_EXCLUSIVE = 2**53


class _Strict(BaseModel):
    # "4" is not 4 and true is not 1: a wrong type is the client's mistake to hear about
    model_config = ConfigDict(strict=True)


class NewGameIn(_Strict):
    size: int = Field(4, ge=3, le=6, description="Board size: 3, 4, 5 or 6.")
    mode: Mode = Field("classic", description="classic: a fresh random seed; daily: the day's shared seed.")


Board = list[list[int]]
NAME_HELP = (f"Nickname, 1 to {NAME_MAX} characters after cleaning (see `game2048.server.names`); "
             "a refused name answers 422 with a `code` that starts with `name_`.")
Token = Field(max_length=128, description="The token from POST /api/games; it is never put in a URL.")


class PositionOut(BaseModel):
    at: int = Field(description="The length of the game's log (moves and undos) after this answer.")
    board: Board = Field(description="Rows of tile values, 0 for empty, the new tile included.")
    score: int
    over: bool = Field(description="No move changes the board.")
    won: bool = Field(description="The target tile was reached at least once.")
    undos_left: int
    ranked: bool = Field(description="No undo was used (hint or autoplay, told at the finish, unrank too).")

    @classmethod
    def of(cls, p: live.Position) -> PositionOut:
        return cls(at=p.at, board=p.board, score=p.score, over=p.over, won=p.won, undos_left=p.undos_left,
                   ranked=p.ranked)


class NewGameOut(BaseModel):
    id: str
    token: str = Field(description="Send it with every move and the finish; keep it out of URLs.")
    size: int
    mode: Mode
    date: dt.date | None = Field(None, description="The UTC date of a daily game.")
    board: Board = Field(description="The opening: two tiles the server dealt.")
    score: int
    at: int
    undos_left: int
    over: bool
    won: bool


class MovesIn(_Strict):
    token: str = Token
    at: int = Field(ge=0, le=MAX_LOG, description="The length of the game's log as the client knows it.")
    moves: str = Field(min_length=1, max_length=MAX_MOVES,
                       description=f"1 to {MAX_MOVES} letters: U D L R moves, Z undo; applied in order.")


class TokenIn(_Strict):
    token: str = Token


class StateOut(PositionOut):
    log: str = Field(description="The game's log so far.")


class FinishIn(_Strict):
    token: str = Token
    name: str = Field(max_length=200, description=NAME_HELP)
    log: str | None = Field(None, max_length=MAX_LOG, description=(
        "Optional: the log as the client has it. It must be the server's log (409 otherwise), "
        f"or go on from it by at most {MAX_MOVES} letters, which are played first."))
    helped: bool = Field(False, description="True if a solver hint or autoplay chose a move: not ranked.")


class FinishOut(BaseModel):
    verified: bool
    ranked: bool
    score: int
    max_tile: int
    rank: int | None = Field(description="Place on the leaderboard when it finished; null when not ranked.")
    seed: int | None = Field(description="The game's seed, now public; null for a daily game until its "
                                         "UTC day is over (everyone plays that seed today).")


class StartIn(_Strict):
    board: Board = Field(max_length=6, description="The position the game began from.")
    score: int = Field(0, ge=0, lt=MAX_SEED_EXCLUSIVE, description="Its score at the start.")


class StartOut(BaseModel):
    board: Board
    score: int


class RecordIn(_Strict):
    size: int = Field(ge=3, le=6)
    seed: int = Field(ge=0, lt=MAX_SEED_EXCLUSIVE)
    log: str = Field(max_length=MAX_LOG, description="Moves U D L R and undos Z, in order.")
    score: int = Field(ge=0, lt=MAX_SEED_EXCLUSIVE, description="The score the player saw.")
    name: str = Field(max_length=200, description=NAME_HELP)
    start: StartIn | None = Field(None, description="For a game begun from a position (the browser's load).")


class RecordKeptOut(BaseModel):
    id: str
    verified: bool
    ranked: bool = Field(description="Always false: practice games are kept and shown, never ranked.")
    score: int
    max_tile: int


class EntryOut(BaseModel):
    rank: int
    name: str
    score: int
    max_tile: int
    moves: int
    game_id: str | None = Field(description="Links to /games/{id}; null while a daily game's day lasts.")
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
    mode: RecordMode
    date: dt.date | None
    log: str
    score: int
    max_tile: int
    moves: int
    ranked: bool
    name: str
    finished_at: dt.datetime
    start: StartOut | None = Field(None, description="Where a practice game began; null for an opening.")


class HintIn(_Strict):
    size: int = Field(ge=3, le=6)
    board: list[list[int]] = Field(max_length=6, description="Rows of tile values, 0 for empty.")


class HintOut(BaseModel):
    move: Literal["up", "down", "left", "right"] | None = Field(description="null when no move is legal.")
    scores: dict[str, float]


#: What any route with a JSON body can answer before it runs: too slow, too large, unreadable.
BODY_ERRORS = (408, 413, 422)


def session(request: Request) -> Iterator[Session]:
    with request.app.state.sessions() as s:
        yield s


def count_request(app: FastAPI, scope: str, client: str) -> None:
    """Count one request of ``scope`` against the client's rate limit; 429 past it."""
    wait = app.state.limiters[scope].check(scope, client)
    if wait is not None:
        raise ClientError(429, f"too many requests; try again in {wait} s", {"Retry-After": str(wait)})


def limited(scope: str):  # type: ignore[no-untyped-def]
    """A dependency that counts one request of ``scope`` against the client's rate limit."""

    def check(request: Request) -> None:
        count_request(request.app, scope, client_address(request))

    return Depends(check)


def replay_charge(app: FastAPI, client: str) -> Callable[[], AbstractContextManager[None]]:
    """What a retry from far back costs: a replay, counted like a finish and measured against
    the client's CPU budget (``with charge(): ...replay...``)."""

    @contextmanager
    def charge() -> Iterator[None]:
        count_request(app, "games", client)
        with app.state.cpu_budget.spend(client, "retry"):
            yield

    return charge


Db = Annotated[Session, Depends(session)]
GameId = Annotated[str, Path(max_length=64)]


@router.post("/games", status_code=201, response_model=NewGameOut, responses=responses(*BODY_ERRORS, 429),
             dependencies=[limited("games")])
def create_game(body: NewGameIn, request: Request) -> NewGameOut:
    """Start a game the server deals: its opening board and the token that plays it.

    The seed stays on the server until the game is finished. A daily game opens
    on the same board for everyone that UTC day; each client address may start
    `GAME2048_DAILY_TRIES` (3) a size and day, 429 beyond.
    """
    state = request.app.state
    started = live.start(state.store, state.secret, body.size, body.mode, client=client_address(request),
                         daily_tries=state.settings.daily_tries)
    p = started.position
    return NewGameOut(id=started.id, token=started.token, size=started.size, mode=started.mode,
                      date=started.date, board=p.board, score=p.score, at=p.at, undos_left=p.undos_left,
                      over=p.over, won=p.won)


@router.post("/games/{game_id}/moves", response_model=PositionOut,
             responses=responses(403, 404, 409, *BODY_ERRORS, 429))
async def play_moves(game_id: GameId, body: MovesIn, request: Request) -> PositionOut:
    """Play 1 to 64 moves (U D L R, Z undo) from log length `at`; the answer shows the tiles dealt.

    All or nothing: an unknown letter, an illegal move or a fourth undo is a
    422 and nothing is applied. `at` behind with the letters already played
    from there is a retry and gets the first answer again; other letters from
    behind (a fork) or `at` ahead are a 409, as are moves after the finish or
    after a daily game's day ended (plus 10 minutes). The WebSocket
    `/api/games/{id}/play` carries the same requests.
    """
    if request.app.state.store.in_process:
        # an SQLite move takes well under a millisecond in this process: a thread would cost more
        return _play(request.app, client_address(request), game_id, body)
    return await run_in_threadpool(_play, request.app, client_address(request), game_id, body)


def _play(app: FastAPI, client: str, game_id: str, body: MovesIn) -> PositionOut:
    count_request(app, "moves", client)
    state = app.state
    p = live.play(state.store, state.secret, game_id, token=body.token, at=body.at, moves=body.moves,
                  charge=replay_charge(app, client))
    return PositionOut.of(p)


@router.post("/games/{game_id}/state", response_model=StateOut,
             responses=responses(403, 404, 409, *BODY_ERRORS, 429), dependencies=[limited("moves")])
def game_state(game_id: GameId, body: TokenIn, request: Request) -> StateOut:
    """Where a game in play stands, and its log: for a client that lost track (a reload, a new device)."""
    state = request.app.state
    now = live.state(state.store, state.secret, game_id, token=body.token)
    return StateOut(**PositionOut.of(now.position).model_dump(), log=now.log)


@router.post("/games/{game_id}/finish", response_model=FinishOut,
             responses=responses(403, 404, 409, *BODY_ERRORS, 429), dependencies=[limited("games")])
def finish_game(game_id: GameId, body: FinishIn, request: Request, verify: Verifier) -> FinishOut:
    """Finish the game: the server's own log, replayed, is the record; the seed is revealed.

    A `log` that is not the server's log is a 409. Finishing again gives the
    same answer (200), so a retry after a lost answer is safe. A daily game's
    seed stays hidden until its UTC day is over. The replay's CPU time counts
    against the client's CPU budget (429 when spent).
    """
    state = request.app.state
    name = games.check_name(body.name)  # before any work: a bad name is not a bad game
    charge = replay_charge(request.app, client_address(request))
    with verify("finish"):
        done = live.finish(state.store, state.sessions, state.secret, game_id, token=body.token, name=name,
                           log=body.log, helped=body.helped, charge=charge)
    state.answers.clear()  # this worker's leaderboards now include the new score
    return FinishOut(**vars(done))


@router.post("/records", status_code=201, response_model=RecordKeptOut,
             responses=responses(*BODY_ERRORS, 429), dependencies=[limited("games")])
def keep_record(body: RecordIn, request: Request, db: Db, verify: Verifier) -> RecordKeptOut:
    """Keep a practice game (a seed the client chose, offline play, a position): replayed, never ranked.

    A record that does not replay, or whose replay does not score `score`, is a
    422. The replay's CPU time counts against the client's CPU budget (429 when
    spent); a refused record costs several times its replay, and the same record
    sent again is refused at once.
    """
    games.check_name(body.name)  # before the replay: a bad name is not a bad record
    start = None if body.start is None else (body.start.board, body.start.score)
    with verify("record", body.size, body.seed, body.log, body.score, start):
        kept = practice.keep(db, body.size, body.seed, body.log, body.score, body.name, start=start)
    return RecordKeptOut(id=kept.id, verified=True, ranked=False, score=kept.score, max_tile=kept.max_tile)


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

    404 while the game is in play, and for a daily game until its UTC day is over.
    Once shown it never changes: the answer has an ETag, and If-None-Match gets a 304.
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
