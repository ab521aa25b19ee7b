"""The pages of finished games: the leaderboards, and the record and replay of one game."""

from __future__ import annotations

import json
from datetime import date, timedelta

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from ...record import positions, replay
from ...rules import DEFAULT_SIZE, SIZES
from ..caching import conditional
from ..caching.answers import BoundedLRU
from ..clients.address import client_address
from ..errors import ClientError
from ..records import records as games
from ..records.records import BOARDS, MODES
from .i18n import pick_language, strings
from .render import language_headers, render

router = APIRouter(include_in_schema=False)

#: Games longer than this show their final board only: every frame is sent with the page.
MAX_FRAMES = 3000
LEADERBOARD_ROWS = 50
#: The earliest day a date can name (the page's ``date`` parameter hides the class).
FIRST_DAY = date.min
#: What the replays of finished games' pages may hold in memory, per process. A finished
#: game never changes, so its frames are computed once, not on every view.
FRAMES_CACHE_BYTES = 32 * 1024 * 1024
_frames_cache = BoundedLRU(FRAMES_CACHE_BYTES)
#: Finished games' pages as drawn, by game, language and query (the same bytes for every view).
_pages = BoundedLRU(FRAMES_CACHE_BYTES)

def _day(text: str | None) -> date:
    try:
        return date.fromisoformat(text) if text else games.utc_today()
    except ValueError:
        return games.utc_today()


@router.get("/me", response_class=HTMLResponse)
def my_games_page(request: Request) -> HTMLResponse:
    """My games: the games this browser finished, and the names it holds with their recovery codes,
    drawn by the page's script from its own storage (the server keeps nothing of the games; it
    answers the names' recovery and release, ``api/routes/names.py``)."""
    t = strings(pick_language(request))
    words = {k: v for k, v in t.items() if k.startswith("me_")} | {
        k: t[k] for k in ("replay", "review_link", "yes", "no", "daily", "standing_why")}
    return render(request, "me.html", "me", me_strings=words)


@router.get("/leaderboard", response_class=HTMLResponse)
def leaderboard_page(
    request: Request, size: str = "", mode: str = "classic", date: str | None = None, board: str = "players"
) -> HTMLResponse:
    """All-time and daily leaderboards per board size, of players or of engines; a bad parameter
    falls back to the default."""
    board_size = int(size) if size in {str(s) for s in SIZES} else DEFAULT_SIZE
    board_mode = mode if mode in MODES else "classic"
    which = board if board in BOARDS else "players"
    day = _day(date) if board_mode == "daily" else None
    with request.app.state.sessions() as s:
        entries = games.leaderboard(s, board_size, board_mode, day, LEADERBOARD_ROWS, which)  # type: ignore[arg-type]
        pending = games.waiting(s, board_size, board_mode, day) if which == "players" else {}  # type: ignore[arg-type]
    today = games.utc_today()
    reference = _reference(board_size, entries) if which == "engines" and board_mode == "classic" else None
    return render(
        request, "leaderboard.html", "leaderboard", entries=entries, size=board_size, mode=board_mode,
        day=day, sizes=SIZES, modes=MODES, board=which, boards=BOARDS, reference=reference, pending=pending,
        prev_day=day - timedelta(days=1) if day and day > FIRST_DAY else None,
        next_day=day + timedelta(days=1) if day and day < today else None,
    )


def _reference(size: int, entries: list[games.Entry]) -> dict[str, object] | None:
    """The all-time engines board's reference entry: the built-in ``learned`` preset, by the solver
    page's seeded games of it (``game2048 simulate --strategies solver-learned``; 4x4 only), shown
    at its median score's place among the entries (``at``). None where there are no such games."""
    from .stats import figures

    played = figures()["results"].get(size, {}).get("solver-learned")
    if not played:
        return None
    median = int(played["median_score"])
    return {"games": played["games"], "median_score": median,
            "reach": round(100 * played["reach"].get(16384, 0.0)),
            "at": sum(e.score >= median for e in entries)}


@router.get("/games/{game_id}", response_class=HTMLResponse)
def game_page(request: Request, game_id: str) -> HTMLResponse:
    """A finished game: who, what score, the record, and a step-by-step replay.

    The page carries an ETag (304 to a client that has it) and its replay comes
    from a bounded cache: a view costs a database read and a template, not a replay.
    """
    try:
        with request.app.state.sessions() as s:
            record = games.get_record(s, game_id)
    except ClientError:
        return render(request, "game_missing.html", "leaderboard", status_code=404)
    # a finished game's page is the same for every view in one language while it stands where it
    # stands (being checked, held, listed): drawn once, kept
    key = (record.id, record.standing, pick_language(request), str(request.query_params))
    drawn = _pages.get(key)
    if isinstance(drawn, bytes):
        response = language_headers(request, HTMLResponse(drawn))
    else:
        shown = _frames_cache.get(record.id)
        if shown is None:
            # a replay costs real CPU on a long game: it counts against the viewer's budget
            with request.app.state.cpu_budget.spend(client_address(request), "page"):
                shown = record_frames(record)
        response = render(
            request, "game.html", "leaderboard", record=record, stepper=len(record.log) <= MAX_FRAMES,
            frames_json=shown,
        )
        _pages.put(key, bytes(response.body), len(response.body))
    return conditional.cached(request, response, conditional.PAGE_CACHE, vary="Accept-Language, Cookie")


def record_frames(record: games.Record) -> str:
    """A finished game's frames as its page sends them (JSON, see ``_replay_frames``), from the
    bounded cache or replayed now and kept. A replay of a long game costs real CPU: call this
    inside the viewer's ``cpu_budget.spend`` (the game page and the review page do)."""
    shown = _frames_cache.get(record.id)
    if shown is None:
        shown = _replay_frames(record)
        _frames_cache.put(record.id, shown, len(shown))
    return shown  # type: ignore[return-value]


def _replay_frames(record: games.Record) -> str:
    """The page's frames as JSON, ``[{"b": flat board, "s": score}, ...]``: the opening and every
    letter's position for a short game, the final position alone for a long one."""
    if len(record.log) <= MAX_FRAMES:
        walk = (game for _, game in positions(record.size, record.seed, record.log, **record.begins))
    else:
        walk = iter([replay(record.size, record.seed, record.log, **record.begins)])  # type: ignore[arg-type]
    shown = [{"b": [v for row in game.board for v in row], "s": game.score} for game in walk]
    return json.dumps(shown, separators=(",", ":"))
