"""GET /api/games/{id}/review: the solver's review of a finished game, queued the first time."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from ...caching import conditional
from ...errors import responses
from ...reviews import queue as reviews
from ..deps import Client, Db, GameId
from ..schemas import PendingOut, ReviewOut

router = APIRouter()

#: A review that is still being made: the client asks again (the page does every 2 s).
PENDING_HEADERS = {"Cache-Control": "no-store", "Retry-After": "2"}


@router.get(
    "/api/games/{game_id}/review",
    response_model=ReviewOut,
    responses=responses(202, 304, 404, 422, 429, 500, 503, models={202: PendingOut}),
)
def get_review(game_id: GameId, request: Request, db: Db, client: Client) -> Response:
    """The solver's review of a finished, public game: every move graded (docs/review.md).

    The first request queues the review; until it is made the answer is 202
    ``{"status": "pending", "done", "total"}``. A client may have a few
    reviews waiting at once (429 beyond). A made review never changes: the
    answer has an ETag, and If-None-Match gets a 304. 404 as for the record
    (``GET /api/games/{id}``): a game in play, or a daily game while its day lasts.
    """
    _, row = reviews.review_for(db, game_id, client, request.app.state)
    if row.status == "done":
        answer = Response(row.result.encode(), media_type="application/json")
        return conditional.cached(request, answer, conditional.RECORD_CACHE)
    if row.status == "failed":
        return JSONResponse({"error": f"the review of this game could not be made: {row.error}"}, 500,
                            headers={"Cache-Control": "no-store"})
    return JSONResponse({"status": "pending", "done": row.done, "total": row.total}, 202,
                        headers=PENDING_HEADERS)


