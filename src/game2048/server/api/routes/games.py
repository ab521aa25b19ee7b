"""Games dealt by the server: start, moves, state, finish (``live``), and a finished game's record."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response

from ...caching import conditional
from ...clients import browser as browsers
from ...clients.address import client_address, network_of
from ...errors import responses
from ...limits.daily import Tries
from ...live import Runner, start
from ...records import records as games
from ..deps import BODY_ERRORS, Client, Db, GameId, budget_left, limited
from ..schemas import (
    FinishIn,
    FinishOut,
    GameHintIn,
    HintOut,
    MovesIn,
    NewGameIn,
    NewGameOut,
    PositionOut,
    RecordOut,
    StateOut,
    TokenIn,
)

router = APIRouter(prefix="/api")


@router.post("/games", status_code=201, response_model=NewGameOut,
             responses=responses(409, *BODY_ERRORS, 429),
             dependencies=[limited("games")])
def create_game(body: NewGameIn, request: Request, response: Response) -> NewGameOut:
    """Start a game the server deals: its opening board and the token that plays it.

    The seed stays on the server until the game is finished. A daily game opens
    on the same board for everyone that UTC day; each browser (an id the server
    keeps in a signed HttpOnly cookie, set here) may start `GAME2048_DAILY_TRIES`
    a size and day (429 with code `daily_tries_used` beyond), and each network (an
    IPv4 address, an IPv6 /64) `GAME2048_DAILY_TRIES_PER_NETWORK` ranked ones:
    beyond, a browser with tries of its own left plays unranked (`ranked: false`).
    `bot` starts a bot game, ranked on the engines board (docs/bots.md); a name
    a player holds, or a look-alike of one, needs that name's `name_key` (409
    `name_held`, `name_confusable`).
    """
    state = request.app.state
    settings = state.settings
    browser, new = browsers.browser_of(request, state.secret)
    tries = Tries(browser, network_of(client_address(request)), settings.daily_tries,
                  max(settings.daily_tries, settings.daily_tries_per_network))
    started = start(state.store, state.secret, body.size, body.mode, tries=tries, bot=body.bot,
                    bot_key=body.name_key)
    if new or started.mode == "daily":
        browsers.remember(response, request, state.secret, browser)
    return NewGameOut.of(started)


@router.post("/games/{game_id}/moves", response_model=PositionOut,
             responses=responses(403, 404, 409, *BODY_ERRORS, 429))
async def play_moves(game_id: GameId, body: MovesIn, request: Request, client: Client) -> PositionOut:
    """Play 1 to 64 moves (U D L R, Z undo) from log length `at`; the answer shows the tiles dealt.

    All or nothing: an unknown letter, an illegal move or a fourth undo is a
    422 and nothing is applied. `at` behind with the letters already played
    from there is a retry and gets the first answer again; other letters from
    behind (a fork) or `at` ahead are a 409, as are moves after the finish or
    after a daily game's day ended (plus 10 minutes). The WebSocket
    `/api/games/{id}/play` carries the same requests.
    """
    runner: Runner = request.app.state.runner
    with runner.seat():
        moved = await runner.move(client, game_id, token=body.token, at=body.at, moves=body.moves,
                                  skip_illegal=body.skip_illegal)
    return PositionOut.of(moved)


@router.post("/games/{game_id}/state", response_model=StateOut,
             responses=responses(403, 404, 409, *BODY_ERRORS, 429), dependencies=[limited("moves")])
async def game_state(game_id: GameId, body: TokenIn, request: Request, client: Client) -> StateOut:
    """Where a game in play stands, and its log: for a client that lost track (a reload, a new device)."""
    now = await request.app.state.runner.state(client, game_id, token=body.token)
    return StateOut(**PositionOut.of(now.position).model_dump(), log=now.log)


@router.post("/games/{game_id}/hint", response_model=HintOut,
             responses=responses(403, 404, 409, *BODY_ERRORS, 429), dependencies=[limited("hint")])
async def game_hint(game_id: GameId, body: GameHintIn, request: Request, client: Client) -> HintOut:
    """The solver's move for a game in play, at log length `at` (its position now; 409 otherwise).

    The server marks the game helped before it answers: it is kept, never ranked,
    whatever its finish says. The WebSocket carries the same request (`op: "hint"`).
    `POST /api/hint` answers for a bare position (practice and tools).
    """
    move, scores = await request.app.state.runner.hint(client, game_id, token=body.token, at=body.at)
    return HintOut(move=move, scores=scores)  # type: ignore[arg-type]


@router.post("/games/{game_id}/finish", response_model=FinishOut,
             responses=responses(403, 404, 409, *BODY_ERRORS, 429),
             dependencies=[limited("games"), budget_left])
async def finish_game(game_id: GameId, body: FinishIn, request: Request, client: Client) -> FinishOut:
    """Finish the game: the server's own log, replayed, is the record; the seed is revealed.

    A `log` that is not the server's log is a 409. Finishing again gives the
    same answer (200), so a retry after a lost answer is safe. A daily game's
    seed stays hidden until no more moves for its day can come (00:10 UTC the
    next day). The first finish under a name answers its `name_key`; later
    finishes under it send that key (409 `name_held` without it), and a name that
    looks like a held one is refused (409 `name_confusable`). A network newly holds
    `GAME2048_NAMES_PER_DAY` names a UTC day: past them the game is recorded under its
    free name all the same, without taking it (`name_not_held`, code `names_per_day`).
    The replay's CPU time counts against the client's CPU budget (429 when spent).
    """
    done = await request.app.state.runner.finish(client, game_id, token=body.token, name=body.name,
                                                 log=body.log, helped=body.helped, abandoned=body.abandoned,
                                                 name_key=body.name_key)
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
