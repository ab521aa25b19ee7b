"""Visitors' reports of finished games (``moderation.reports``)."""

from __future__ import annotations

from fastapi import APIRouter, Request

from ...errors import responses
from ...moderation.reports import report
from ..deps import BODY_ERRORS, Client, Db, GameId, limited
from ..schemas import ReportIn, ReportOut

router = APIRouter(prefix="/api")


@router.post("/games/{game_id}/report", status_code=201, response_model=ReportOut,
             dependencies=[limited("report")], responses=responses(*BODY_ERRORS, 404, 429))
def report_game(game_id: GameId, body: ReportIn, request: Request, db: Db, client: Client) -> ReportOut:
    """Report a finished ranked game to the operators. It stays where it is until a person decides;
    the same client's report counts once."""
    return ReportOut(reports=report(db, request.app.state.secret, client, game_id, body.reason))
