"""The leaderboards as JSON."""

from __future__ import annotations

import datetime as dt
from typing import Annotated

from fastapi import APIRouter, Query, Request, Response
from fastapi.concurrency import run_in_threadpool

from ....limits import MAX_SIZE, MIN_SIZE
from ....rules import DEFAULT_SIZE
from ...errors import responses
from ...records import records as games
from ...records.records import Board, Mode
from ..schemas import EntryOut, LeaderboardOut

router = APIRouter(prefix="/api")


@router.get("/leaderboard", response_model=LeaderboardOut, responses=responses(422))
async def leaderboard(
    request: Request,
    size: Annotated[int, Query(ge=MIN_SIZE, le=MAX_SIZE)] = DEFAULT_SIZE,
    mode: Mode = "classic",
    board: Annotated[Board, Query(description="players: people; engines: bot games and engine-like games.")]
    = "players",
    day: Annotated[
        dt.date | None, Query(alias="date", description="UTC date of a daily board; default today.")
    ] = None,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
) -> LeaderboardOut:
    """The best ranked games of one board: all-time (classic) or one day's daily game, on the
    players' board (people) or the engines' (bot games, and players' games that play like the solver).

    Answers may be up to a second old when several workers serve the site.
    """
    day = (day or games.utc_today()) if mode == "daily" else None
    cache = request.app.state.answers
    key = ("leaderboard", board, size, mode, day, limit)
    body = cache.get(key)
    if body is None:
        body = await run_in_threadpool(_leaderboard_json, request.app.state.sessions, board, size, mode, day,
                                       limit)
        cache.put(key, body)
    return Response(body, media_type="application/json")


def _leaderboard_json(sessions, board: Board, size: int, mode: Mode, day: dt.date | None,  # type: ignore[no-untyped-def]
                      limit: int) -> bytes:
    with sessions() as db:
        entries = games.leaderboard(db, size, mode, day, limit, board)
    answer = LeaderboardOut(board=board, size=size, mode=mode, date=day,
                            entries=[EntryOut(**vars(e)) for e in entries])
    return answer.model_dump_json().encode()
