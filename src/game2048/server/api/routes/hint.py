"""The solver's move for a bare position (practice and tools; a game in play asks through its game)."""

from __future__ import annotations

from fastapi import APIRouter, Request

from ...errors import ClientError, responses
from ...live import asked
from ...storage.db import utc_now
from ..deps import BODY_ERRORS, Client
from ..schemas import HintIn, HintOut

router = APIRouter(prefix="/api")


@router.post("/hint", response_model=HintOut, responses=responses(*BODY_ERRORS, 429))
def hint(body: HintIn, request: Request, client: Client) -> HintOut:
    """The solver's move for a position, and its score for every legal direction.

    A bare board is tied to no game, so these come at a person's pace
    (`GAME2048_BOARD_HINT_RATE_LIMIT`, 429 beyond); a game in play asks through
    itself (`POST /api/games/{id}/hint`), at autoplay's pace. The server keeps
    the board a while: a ranked game this client finishes that stood on it (turned,
    mirrored or scaled) is helped, kept and never ranked. A practice game from its
    opening sends its integer ``seed`` and ``log`` too: the server replays them (a
    ranked game's seed is secret until its finish), and answers at autoplay's pace.
    """
    from ....game import Game
    from ....record import replay
    from ....solver import hint as solver_hint

    practice = body.seed is not None and body.log is not None
    request.app.state.runner.count("hint" if practice else "board_hint", client)
    if len(body.board) != body.size:
        raise ClientError(422, f"a board of size {body.size} needs {body.size} rows, got {len(body.board)}")
    try:
        Game.from_board(body.board)
    except ValueError as exc:
        raise ClientError(422, f"not a board: {exc}") from None
    with request.app.state.hint_budget.spend(client, "hint"):
        if practice:
            try:
                played = replay(body.size, body.seed, body.log)  # type: ignore[arg-type]
            except ValueError as exc:  # a RecordError too
                raise ClientError(422, f"the practice game does not replay: {exc}") from None
            if played.board != body.board:
                raise ClientError(422, "the board is not where the practice game's seed and log lead")
        move, scores = solver_hint(body.board, request.app.state.settings.hint_time)
    if not practice:  # tied to no game: a ranked game of this client's that stands on it finishes helped
        asked.note(request.app.state.store, request.app.state.secret, client, body.board, utc_now())
    return HintOut(move=move, scores=scores)  # type: ignore[arg-type]
