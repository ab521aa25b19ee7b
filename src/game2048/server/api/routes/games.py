"""Games dealt by the server: start, moves, state, finish (``live``), and a finished game's record."""

from __future__ import annotations

from fastapi import APIRouter, FastAPI, Request, Response
from fastapi.concurrency import run_in_threadpool

from ...errors import responses
from ...http import conditional
from ...limits.address import client_address
from ...live import mover as live
from ...records import records as games
from ..deps import BODY_ERRORS, Db, GameId, Verifier, count_request, limited, replay_charge
from ..schemas import (
    FinishIn,
    FinishOut,
    MovesIn,
    NewGameIn,
    NewGameOut,
    PositionOut,
    RecordOut,
    StateOut,
    TokenIn,
)

router = APIRouter(prefix="/api")


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
                  charge=replay_charge(app, client), skip_illegal=body.skip_illegal)
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
