"""The page /games/{id}/review: the solver's review of a finished game, drawn for a person.

It asks ``reviews.review_for`` (which queues the review the first time) as the
API does; drawing a made review's parts counts against the viewer's CPU budget
and is cached, since a made review never changes.
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from markupsafe import Markup

from ...record import positions
from ...record import undone as undone_moves
from ...solver.review import ARROWS, CLASSES
from ..caching import conditional
from ..caching.answers import BoundedLRU
from ..clients.address import client_address
from ..errors import ClientError
from ..records.records import Record
from ..reviews import queue as reviews
from .records import MAX_FRAMES, record_frames
from .render import context, render, templates

router = APIRouter(include_in_schema=False)


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
            record, row = reviews.review_for(db, game_id, client_address(request), request.app.state)
        except ClientError as exc:
            if exc.status == 404:
                return render(request, "game_missing.html", "leaderboard", status_code=404)
            refused = render(request, "review.html", "leaderboard", status_code=exc.status, record=None,
                              refused="busy" if exc.status == 429 else "full")
            refused.headers.update(exc.headers or {})
            return refused
    if row.status != "done":
        waiting = render(request, "review.html", "leaderboard", record=record, status=row.status,
                          done=row.done, total=row.total, status_code=500 if row.status == "failed" else 200)
        waiting.headers["Cache-Control"] = "no-store"
        return waiting
    ctx = context(request, "leaderboard")
    key = (record.id, ctx["lang"])
    drawn = _pages.get(key)
    if drawn is None:
        with request.app.state.cpu_budget.spend(client_address(request), "page"):
            drawn = _drawn(ctx["t"], record, json.loads(row.result), ctx["lang"])
        _pages.put(key, drawn, sum(len(v) for v in drawn.values()))
    page = render(request, "review.html", "leaderboard", record=record, status="done", **drawn)
    return conditional.cached(request, page, conditional.PAGE_CACHE, vary="Accept-Language, Cookie")


def _drawn(t: dict[str, str], record: Record, result: dict[str, Any], lang: str = "en") -> dict[str, str]:
    """The parts of a made review's page that cost CPU to draw: the summary, the
    moves listed, the chart, and the JSON the page's script steps through (boards included)."""
    from ...solver.review import move_accuracy, worst

    moves = result["moves"]
    undone = undone_moves(record.log)
    stepper = len(record.log) <= MAX_FRAMES
    listed = moves if stepper else sorted(worst(moves, WORST_SHOWN), key=lambda m: m["n"])
    times = record.times if record.times and len(record.times) == len(record.log) else None
    shown = [{**m, "undone": m["n"] in undone, **_arrival(times, m["n"])} for m in listed]
    if stepper:  # the game page's frames: frame k is the board after k letters, before letter k + 1
        after = json.loads(record_frames(record))
        boards = [after[m["n"] - 1]["b"] for m in shown]
    else:
        before = _boards(record, shown)
        boards = [before[m["n"]] for m in shown]
    words = {key: t[key] for key in ("status", "played_at", "undone", "board_label")}
    words |= {c: t[f"class_{c}"] for c in CLASSES} | {d: t[f"dir_{d}"] for d in ARROWS}
    words |= {key: t[key] for key in ("copy_link", "link_copied", "link_here", "graph_label", "graph_value",
                                     "line_text", "line_wait", "line_failed", "line_step", "loss_all")}
    curve = _curve([move_accuracy(m["loss"]) for m in moves], moves)
    data = {"id": record.id, "accuracy": result["accuracy"], "size": record.size, "moves": shown,
            "boards": boards, "t": words, "arrows": ARROWS, "curve": curve,
            "last": moves[-1]["n"] if moves else 0}
    parts: Any = templates.env.get_template("review_parts.html").module
    return {
        "summary_html": Markup(parts.summary(t, CLASSES, MARKS, result["accuracy"], result["counts"],
                                             result["preset"])),
        "lessons_html": Markup(parts.lessons(t, MARKS, _lessons(record, moves), lang)),
        "moves_html": Markup(parts.moves(t, shown, MARKS, ARROWS)) if shown else Markup(""),
        "worst_only": "" if stepper else "1",
        # "</" would end the script element early; JSON allows the escaped slash
        "data_json": json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/"),
    }


def _arrival(times: list[int] | None, n: int) -> dict[str, int]:
    """When letter ``n`` (1-based) reached the server (``t``, ms into the game) and how long after
    the letter before (``gap``); nothing for a game that did not keep its times."""
    if times is None:
        return {}
    return {"t": times[n - 1], "gap": times[n - 1] - (times[n - 2] if n > 1 else 0)}


def _lessons(record: Record, moves: list[dict[str, Any]]) -> dict[str, Any]:
    """What the summary teaches: the three costliest moves, and the largest tile on the board
    while most of the game's loss was made (``phase``) with its share of the whole loss."""
    from ...solver.review import worst

    lesson: dict[str, Any] = {"worst": worst(moves, 3), "phase": None, "share": 0.0}
    total = sum(m["loss"] for m in moves)
    if total <= 0:
        return lesson
    loss_at = {m["n"]: m["loss"] for m in moves}
    by_tile: dict[int, float] = {}
    walk = positions(record.size, record.seed, record.log, **record.begins)
    for n, game in walk:  # the board after n letters is the one letter n + 1 was played on
        loss = loss_at.get(n + 1)
        if loss:
            tile = max(v for row in game.board for v in row)
            by_tile[tile] = by_tile.get(tile, 0.0) + loss
    if by_tile:
        tile, lost = max(by_tile.items(), key=lambda kv: (kv[1], -kv[0]))
        lesson |= {"phase": tile, "share": lost / total}
    return lesson


def _boards(record: Record, shown: list[dict[str, Any]]) -> dict[int, list[int]]:
    """The flat board before each of the ``shown`` moves, replaying once."""
    wanted = {m["n"] for m in shown}
    walk = positions(record.size, record.seed, record.log, **record.begins)
    return {n + 1: [v for row in game.board for v in row] for n, game in walk if n + 1 in wanted}


def _curve(accuracies: list[float], moves: list[dict[str, Any]]) -> dict[str, list[Any]]:
    """The evaluation graph's line, at most ``CHART_POINTS`` points: for each stretch of the game
    the letter ``n`` of its middle move and the accuracy averaged over nearby moves (``a``). The
    page's script draws it (review_graph.js); the mistakes it marks are the listed moves'."""
    count = len(moves)
    if not count:
        return {"n": [], "a": []}
    bucket = -(-count // CHART_POINTS)
    window = max(5, count // 40)
    prefix = [0.0]
    for a in accuracies:
        prefix.append(prefix[-1] + a)
    ns, line = [], []
    for start in range(0, count, bucket):
        stop = min(start + bucket, count)
        mid = (start + stop - 1) // 2
        lo, hi = max(0, mid - window // 2), min(count, mid + window // 2 + 1)
        ns.append(moves[mid]["n"])
        line.append(round((prefix[hi] - prefix[lo]) / (hi - lo), 1))
    return {"n": ns, "a": line}
