"""Games dealt by the server: start, moves, state, finish (``live``), and a finished game's record."""

from __future__ import annotations

from fastapi import APIRouter, FastAPI, Request, Response
from fastapi.concurrency import run_in_threadpool

from ...caching import conditional
from ...clients import browser as browsers
from ...clients.address import client_address, network_of
from ...errors import responses
from ...limits.rate import Hit
from ...live import mover as live
from ...live.hints import hint_through_game
from ...records import records as games
from ..deps import (
    BODY_ERRORS,
    Db,
    GameId,
    Verifier,
    count_move,
    engine_check,
    limited,
    moves_on_loop,
    replay_charge,
)
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


@router.post("/games", status_code=201, response_model=NewGameOut, responses=responses(*BODY_ERRORS, 429),
             dependencies=[limited("games")])
def create_game(body: NewGameIn, request: Request, response: Response) -> NewGameOut:
    """Start a game the server deals: its opening board and the token that plays it.

    The seed stays on the server until the game is finished. A daily game opens
    on the same board for everyone that UTC day; each browser (an id the server
    keeps in a signed HttpOnly cookie, set here) may start `GAME2048_DAILY_TRIES`
    (3) a size and day, and each network (an IPv4 address, an IPv6 /64)
    `GAME2048_DAILY_TRIES_PER_NETWORK` (30): 429 with code `daily_tries_used`
    beyond. `bot` starts a bot game, ranked on the engines board (docs/bots.md).
    """
    state = request.app.state
    settings = state.settings
    browser, new = browsers.browser_of(request, state.secret)
    tries = live.Tries(browser, network_of(client_address(request)), settings.daily_tries,
                       max(settings.daily_tries, settings.daily_tries_per_network))
    started = live.start(state.store, state.secret, body.size, body.mode, tries=tries, bot=body.bot)
    if new or started.mode == "daily":
        browsers.remember(response, request, state.secret, browser)
    p = started.position
    return NewGameOut(id=started.id, token=started.token, size=started.size, mode=started.mode,
                      date=started.date, board=p.board, score=p.score, at=p.at, undos_left=p.undos_left,
                      over=p.over, won=p.won, bot=started.bot, tries_left=started.tries_left)


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
    app = request.app
    store = app.state.store
    commits = store.commits
    client = client_address(request)
    if commits is None:
        if not moves_on_loop(app):  # the count is a round trip of its own: a thread
            return await run_in_threadpool(_play, app, client, game_id, body)
        # PostgreSQL, Redis: a game kept here is saved from the event loop, as a socket's move
        hit = count_move(app, client)
        kept = await live.play_kept(store, app.state.secret, game_id, token=body.token, at=body.at,
                                    moves=body.moves, skip_illegal=body.skip_illegal, hit=hit)
        if kept is not None:
            return PositionOut.of(kept)
        # what play_kept leaves reads the store, whose drivers block: a thread, the move counted
        return await run_in_threadpool(_play, app, client, game_id, body, hit, True)
    # an SQLite move takes well under a millisecond in this process: a thread would cost more; the
    # moves of this turn of the loop share one commit, and the answer waits for it
    with commits.mover():
        with commits:
            moved = _play(app, client, game_id, body)
        await live.committed(commits, game_id)
    return moved


def _play(app: FastAPI, client: str, game_id: str, body: MovesIn, hit: Hit | None = None,
          counted: bool = False) -> PositionOut:
    if not counted:
        hit = count_move(app, client)  # on Redis: counted in the move's own round trip
    state = app.state
    p = live.play(state.store, state.secret, game_id, token=body.token, at=body.at, moves=body.moves,
                  charge=replay_charge(app, client), skip_illegal=body.skip_illegal, hit=hit)
    return PositionOut.of(p)


@router.post("/games/{game_id}/state", response_model=StateOut,
             responses=responses(403, 404, 409, *BODY_ERRORS, 429), dependencies=[limited("moves")])
def game_state(game_id: GameId, body: TokenIn, request: Request) -> StateOut:
    """Where a game in play stands, and its log: for a client that lost track (a reload, a new device)."""
    state = request.app.state
    now = live.state(state.store, state.secret, game_id, token=body.token)
    return StateOut(**PositionOut.of(now.position).model_dump(), log=now.log)


@router.post("/games/{game_id}/hint", response_model=HintOut,
             responses=responses(403, 404, 409, *BODY_ERRORS, 429), dependencies=[limited("hint")])
def game_hint(game_id: GameId, body: GameHintIn, request: Request) -> HintOut:
    """The solver's move for a game in play, at log length `at` (its position now; 409 otherwise).

    The server marks the game helped before it answers: it is kept, never ranked,
    whatever its finish says. The WebSocket carries the same request (`op: "hint"`).
    `POST /api/hint` answers for a bare position (practice and tools).
    """
    client = client_address(request)
    hinted = hint_through_game(request.app.state, client, game_id, token=body.token, at=body.at)
    return HintOut(move=hinted.move, scores=hinted.scores)  # type: ignore[arg-type]


@router.post("/games/{game_id}/finish", response_model=FinishOut,
             responses=responses(403, 404, 409, *BODY_ERRORS, 429), dependencies=[limited("games")])
def finish_game(game_id: GameId, body: FinishIn, request: Request, verify: Verifier) -> FinishOut:
    """Finish the game: the server's own log, replayed, is the record; the seed is revealed.

    A `log` that is not the server's log is a 409. Finishing again gives the
    same answer (200), so a retry after a lost answer is safe. A daily game's
    seed stays hidden until no more moves for its day can come (00:10 UTC the
    next day). The first finish under a name answers its `name_key`; later
    finishes under it send that key (409 `name_held` without it), and a name that
    looks like a held one is refused (409 `name_confusable`). The replay's CPU time counts
    against the client's CPU budget (429 when spent).
    """
    state = request.app.state
    # before any work: a bad name is not a bad game
    name = None if body.name is None else games.check_name(body.name)
    charge = replay_charge(request.app, client_address(request))
    with verify("finish"):
        done = live.finish(state.store, state.sessions, state.secret, game_id, token=body.token, name=name,
                           log=body.log, helped=body.helped, name_key=body.name_key, charge=charge,
                           checking=engine_check(request.app))
    state.answers.clear()  # this worker's leaderboards now include the new score
    state.checks.wake()
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
