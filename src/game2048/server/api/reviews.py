"""GET /api/games/{id}/review and the page /games/{id}/review: the solver's review of a finished game.

Both ask ``reviews.request_review`` (which queues the review the first time)
after ``games.get_record`` has said the game is public; the router's lifespan
runs this process's review workers.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, FastAPI, Path, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from markupsafe import Markup
from pydantic import BaseModel, Field
from sqlalchemy.orm import Session

from ...rules import UNDO_LETTER, Direction
from ...site.records import MAX_FRAMES, _context, _render, record_frames, templates
from ...solver.review import ARROWS, CLASSES, Class
from ..errors import responses
from ..http import conditional
from ..http.cache import BoundedLRU
from ..limits.cpu import client_address
from ..records import records as games
from ..records.records import ClientError, Record
from ..reviews import queue as reviews
from .games import session


@asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    queue = reviews.ReviewQueue(app.state.sessions, app.state.settings.reviews)
    app.state.reviews = queue
    queue.start()
    try:
        yield
    finally:
        import anyio.to_thread

        await anyio.to_thread.run_sync(queue.stop)


router = APIRouter(lifespan=_lifespan)

Db = Annotated[Session, Depends(session)]
GameId = Annotated[str, Path(max_length=64)]

#: A review that is still being made: the client asks again (the page does every 2 s).
PENDING_HEADERS = {"Cache-Control": "no-store", "Retry-After": "2"}


class MoveOut(BaseModel):
    n: int = Field(description="1-based position of the move's letter in the log (undos count).")
    played: Direction
    best: Direction = Field(description="The solver's move; equal to played when the played move is as good.")
    loss: float = Field(ge=0, description="0 exactly when played == best; see docs/review.md.")
    class_: Class = Field(alias="class")


class ReviewOut(BaseModel):
    size: int
    seed: int
    preset: str
    accuracy: float = Field(ge=0, le=100)
    counts: dict[Class, int]
    moves: list[MoveOut] = Field(description="One entry per U D L R letter of the log, in order.")


class PendingOut(BaseModel):
    status: Literal["pending"]
    done: int = Field(description="Moves graded so far.")
    total: int = Field(description="Moves to grade.")


def _lookup(request: Request, db: Session, game_id: str) -> tuple[Record, Any]:
    """The game's record and its review row (queued now if new), or ClientError."""
    record = games.get_record(db, game_id)
    row = reviews.request_review(db, record, client_address(request), request.app.state.settings.reviews)
    if row.status in ("queued", "running"):
        queue = getattr(request.app.state, "reviews", None)
        if queue is not None:
            queue.wake()
    return record, row


@router.get(
    "/api/games/{game_id}/review",
    response_model=ReviewOut,
    responses=responses(202, 304, 404, 422, 429, 500, 503, models={202: PendingOut}),
)
def get_review(game_id: GameId, request: Request, db: Db) -> Response:
    """The solver's review of a finished, public game: every move graded (docs/review.md).

    The first request queues the review; until it is made the answer is 202
    ``{"status": "pending", "done", "total"}``. A client may have a few
    reviews waiting at once (429 beyond). A made review never changes: the
    answer has an ETag, and If-None-Match gets a 304. 404 as for the record
    (``GET /api/games/{id}``): a game in play, or a daily game while its day lasts.
    """
    _, row = _lookup(request, db, game_id)
    if row.status == "done":
        answer = Response(row.result.encode(), media_type="application/json")
        return conditional.cached(request, answer, conditional.RECORD_CACHE)
    if row.status == "failed":
        return JSONResponse({"error": f"the review of this game could not be made: {row.error}"}, 500,
                            headers={"Cache-Control": "no-store"})
    return JSONResponse({"status": "pending", "done": row.done, "total": row.total}, 202,
                        headers=PENDING_HEADERS)


#: Moves listed (and their boards sent) for a game too long to step through.
WORST_SHOWN = 100
#: Points on the chart at most: longer games are drawn in buckets.
CHART_POINTS = 400
#: Notation-style marks, so that a class is not told by colour alone.
MARKS = {"best": "★", "good": "", "inaccuracy": "?!", "mistake": "?", "blunder": "??"}


#: What the review pages' drawn parts (move list, boards, chart) may hold in memory, per process,
#: one entry per game and language: a made review never changes, so a page is drawn once, not on
#: every view. Entries are strings, so their lengths are what they hold.
PAGES_CACHE_BYTES = 16 * 1024 * 1024
_pages = BoundedLRU(PAGES_CACHE_BYTES)


@router.get("/games/{game_id}/review", response_class=HTMLResponse, include_in_schema=False)
def review_page(request: Request, game_id: str) -> Response:
    """The review page: accuracy, counts, a chart, and every move on the board with the better one.

    A made review's page has an ETag (304 to a client that has it); its boards,
    move list and chart come from a bounded cache, and drawing them counts
    against the viewer's CPU budget, like the game page's replay.
    """
    with request.app.state.sessions() as db:
        try:
            record, row = _lookup(request, db, game_id[:64])
        except ClientError as exc:
            if exc.status == 404:
                return _render(request, "game_missing.html", "leaderboard", status_code=404)
            refused = _render(request, "review.html", "leaderboard", status_code=exc.status, record=None,
                              refused="busy" if exc.status == 429 else "full")
            refused.headers.update(exc.headers or {})
            return refused
    if row.status != "done":
        waiting = _render(request, "review.html", "leaderboard", record=record, status=row.status,
                          done=row.done, total=row.total, status_code=500 if row.status == "failed" else 200)
        waiting.headers["Cache-Control"] = "no-store"
        return waiting
    ctx = _context(request, "leaderboard")
    key = (record.id, ctx["lang"])
    drawn = _pages.get(key)
    if drawn is None:
        with request.app.state.cpu_budget.spend(client_address(request), "page"):
            drawn = _drawn(ctx["t"], record, json.loads(row.result))
        _pages.put(key, drawn, sum(len(v) for v in drawn.values()))
    page = _render(request, "review.html", "leaderboard", record=record, status="done", **drawn)
    return conditional.cached(request, page, conditional.PAGE_CACHE, vary="Accept-Language, Cookie")


def _drawn(t: dict[str, str], record: Record, result: dict[str, Any]) -> dict[str, str]:
    """The parts of a made review's page that cost CPU to draw: the summary, the
    moves listed, the chart, and the JSON the page's script steps through (boards included)."""
    from ...solver.review import move_accuracy, worst

    moves = result["moves"]
    undone = _undone(record.log)
    stepper = len(record.log) <= MAX_FRAMES
    listed = moves if stepper else sorted(worst(moves, WORST_SHOWN), key=lambda m: m["n"])
    shown = [{**m, "undone": m["n"] in undone} for m in listed]
    if stepper:  # the game page's frames: frame k is the board after k letters, before letter k + 1
        after = json.loads(record_frames(record))
        boards = [after[m["n"] - 1]["b"] for m in shown]
    else:
        before = _boards(record, shown)
        boards = [before[m["n"]] for m in shown]
    words = {key: t[key] for key in ("status", "undone", "board_label")}
    words |= {c: t[f"class_{c}"] for c in CLASSES} | {d: t[f"dir_{d}"] for d in ARROWS}
    data = {"size": record.size, "moves": shown, "boards": boards, "t": words, "arrows": ARROWS}
    parts: Any = templates.env.get_template("review_parts.html").module
    return {
        "summary_html": Markup(parts.summary(t, CLASSES, MARKS, result["accuracy"], result["counts"],
                                             result["preset"])),
        "moves_html": Markup(parts.moves(t, shown, MARKS, ARROWS)) if shown else Markup(""),
        "worst_only": "" if stepper else "1",
        # "</" would end the script element early; JSON allows the escaped slash
        "data_json": json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/"),
        "chart": _chart(t, [move_accuracy(m["loss"]) for m in moves], moves) or Markup(""),
    }


def _undone(log: str) -> set[int]:
    """The 1-based positions of the moves in ``log`` that a later undo took back.

    >>> sorted(_undone("LRZZUD"))
    [1, 2]
    """
    stack: list[int] = []
    taken: set[int] = set()
    for i, letter in enumerate(log, start=1):
        if letter == UNDO_LETTER:
            taken.add(stack.pop())
        else:
            stack.append(i)
    return taken


def _boards(record: Record, shown: list[dict[str, Any]]) -> dict[int, list[int]]:
    """The flat board before each of the ``shown`` moves, replaying once."""
    from ...game import Game
    from ...rules import DIRECTION_OF_LETTER

    wanted = {m["n"] for m in shown}
    start = record.start
    if start is None:
        game = Game(record.size, record.seed)
    else:
        game = Game.from_board(start["board"], seed=record.seed)  # type: ignore[arg-type]
    out: dict[int, list[int]] = {}
    for i, letter in enumerate(record.log, start=1):
        if i in wanted:
            out[i] = [v for row in game.board for v in row]
        if letter in DIRECTION_OF_LETTER:
            game.move(DIRECTION_OF_LETTER[letter])
        else:
            game.undo()
    return out


def _chart(t: dict[str, str], accuracies: list[float], moves: list[dict[str, Any]]) -> Markup | None:
    """Smoothed accuracy along the game and its mistakes and blunders, at most ``CHART_POINTS`` points."""
    from ...site.charts import line_chart

    count = len(moves)
    if not count:
        return None
    bucket = -(-count // CHART_POINTS)
    window = max(5, count // 40)
    prefix = [0.0]
    for a in accuracies:
        prefix.append(prefix[-1] + a)
    labels, line, dots = [], [], []
    for start in range(0, count, bucket):
        stop = min(start + bucket, count)
        mid = (start + stop - 1) // 2
        lo, hi = max(0, mid - window // 2), min(count, mid + window // 2 + 1)
        labels.append(str(moves[mid]["n"]))
        line.append(round((prefix[hi] - prefix[lo]) / (hi - lo), 1))
        bad = [accuracies[i] for i in range(start, stop) if moves[i]["class"] in ("mistake", "blunder")]
        dots.append(round(min(bad), 1) if bad else None)
    series = [(t["chart_line"], line, True), (t["chart_dots"], dots, False)]
    return line_chart(t["chart_title"], labels, series, y_range=(0, 100), x_title=t["chart_x"],
                      y_title=t["chart_y"])
