"""Server-rendered pages: the leaderboards and the record and replay of one game.

They extend the site's ``base.html`` (header, navigation, language chooser)
when the content pages are installed, and a plain one of our own otherwise.
"""

from __future__ import annotations

import json
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates
from jinja2 import ChoiceLoader, Environment, FileSystemLoader

from ..game import Game
from ..record import replay
from ..rules import SIZES
from ..server.http import conditional
from ..server.http.cache import BoundedLRU
from ..server.limits.cpu import client_address
from ..server.records import records as games
from ..server.records.records import MODES, ClientError
from ..web.assets import asset_url
from .review_texts import TEXTS as REVIEW_TEXTS

router = APIRouter(include_in_schema=False)

_HERE = Path(__file__).resolve().parent
#: The site's shared templates (base.html) and ours.
templates = Jinja2Templates(
    env=Environment(
        loader=ChoiceLoader(
            [FileSystemLoader(_HERE.parent / "templates"), FileSystemLoader(_HERE / "templates")]
        ),
        autoescape=True,
    )
)

templates.env.globals["asset"] = asset_url  # cache-forever addresses of the game's styles and scripts

#: Games longer than this show their final board only: every frame is sent with the page.
MAX_FRAMES = 3000
LEADERBOARD_ROWS = 50
#: The earliest day a date can name (the page's ``date`` parameter hides the class).
FIRST_DAY = date.min
#: What the replays of finished games' pages may hold in memory, per process. A finished
#: game never changes, so its frames are computed once, not on every view.
FRAMES_CACHE_BYTES = 32 * 1024 * 1024
_frames_cache = BoundedLRU(FRAMES_CACHE_BYTES)

TEXTS: dict[str, dict[str, str]] = {
    "en": {
        "lb_title": "Leaderboard",
        "all_time": "All time",
        "daily": "Daily game",
        "player": "Player",
        "score": "Score",
        "max_tile": "Largest tile",
        "moves": "Moves",
        "finished": "Finished",
        "replay": "Replay",
        "empty": "No ranked games on this board yet. Play one and be the first!",
        "date": "Date",
        "prev_day": "Previous day",
        "next_day": "Next day",
        "verified": "Every score here was replayed by the server from the game's seed and moves.",
        "game": "Game",
        "seed": "Seed",
        "log": "Moves",
        "ranked": "Ranked",
        "unranked": "Not ranked: undo or solver help was used.",
        "first": "Start",
        "back": "Back",
        "play": "Play",
        "pause": "Pause",
        "forward": "Forward",
        "last": "End",
        "step": "move {i} of {n}",
        "check": "Anyone can replay the record (size, seed, moves) and check the score.",
        "too_long": "This game is too long to step through here; this is its final board.",
        "record_json": "The record as JSON",
        "not_found": "There is no finished game with this id.",
    },
    "he": {
        "lb_title": "טבלת שיאים",
        "all_time": "כל הזמנים",
        "daily": "המשחק היומי",
        "player": "שחקן",
        "score": "ניקוד",
        "max_tile": "האריח הגדול ביותר",
        "moves": "מהלכים",
        "finished": "הסתיים",
        "replay": "שחזור",
        "empty": "עדיין אין משחקים מדורגים בלוח הזה. שחקו ראשונים!",
        "date": "תאריך",
        "prev_day": "היום הקודם",
        "next_day": "היום הבא",
        "verified": "השרת שחזר כל ניקוד כאן מהזרע של המשחק ומהמהלכים שלו.",
        "game": "משחק",
        "seed": "זרע",
        "log": "מהלכים",
        "ranked": "מדורג",
        "unranked": "לא מדורג: נעשה שימוש בביטול מהלך או בעזרת הפותר.",
        "first": "התחלה",
        "back": "אחורה",
        "play": "הפעלה",
        "pause": "השהיה",
        "forward": "קדימה",
        "last": "סוף",
        "step": "מהלך {i} מתוך {n}",
        "check": "כל אחד יכול לשחזר את הרשומה (גודל, זרע, מהלכים) ולבדוק את הניקוד.",
        "too_long": "המשחק ארוך מכדי לעבור עליו כאן צעד אחר צעד; זה הלוח הסופי שלו.",
        "record_json": "הרשומה כ־JSON",
        "not_found": "אין משחק שהסתיים עם המזהה הזה.",
    },
    "ru": {
        "lb_title": "Рейтинг",
        "all_time": "За всё время",
        "daily": "Игра дня",
        "player": "Игрок",
        "score": "Счёт",
        "max_tile": "Самая большая плитка",
        "moves": "Ходов",
        "finished": "Завершена",
        "replay": "Повтор",
        "empty": "На этой доске пока нет партий в рейтинге. Сыграйте первым!",
        "date": "Дата",
        "prev_day": "Предыдущий день",
        "next_day": "Следующий день",
        "verified": "Каждый счёт здесь сервер переиграл по зерну партии и её ходам.",
        "game": "Партия",
        "seed": "Зерно",
        "log": "Ходы",
        "ranked": "В рейтинге",
        "unranked": "Вне рейтинга: использовалась отмена хода или помощь решателя.",
        "first": "В начало",
        "back": "Назад",
        "play": "Воспроизвести",
        "pause": "Пауза",
        "forward": "Вперёд",
        "last": "В конец",
        "step": "ход {i} из {n}",
        "check": "Любой может переиграть запись (размер, зерно, ходы) и проверить счёт.",
        "too_long": "Партия слишком длинная для пошагового просмотра; показана итоговая доска.",
        "record_json": "Запись в формате JSON",
        "not_found": "Завершённой партии с таким номером нет.",
    },
    "th": {
        "lb_title": "ตารางอันดับ",
        "all_time": "ตลอดกาล",
        "daily": "เกมประจำวัน",
        "player": "ผู้เล่น",
        "score": "คะแนน",
        "max_tile": "ไทล์ใหญ่ที่สุด",
        "moves": "จำนวนตา",
        "finished": "จบเมื่อ",
        "replay": "ดูย้อนหลัง",
        "empty": "กระดานนี้ยังไม่มีเกมที่ติดอันดับ มาเป็นคนแรกกันเถอะ!",
        "date": "วันที่",
        "prev_day": "วันก่อนหน้า",
        "next_day": "วันถัดไป",
        "verified": "ทุกคะแนนในตารางนี้ เซิร์ฟเวอร์เล่นซ้ำจากซีดและการเดินของเกมแล้ว",
        "game": "เกม",
        "seed": "ซีด",
        "log": "การเดิน",
        "ranked": "ติดอันดับ",
        "unranked": "ไม่ติดอันดับ: มีการย้อนกลับหรือใช้ความช่วยเหลือจากตัวแก้เกม",
        "first": "เริ่มต้น",
        "back": "ย้อน",
        "play": "เล่น",
        "pause": "หยุด",
        "forward": "ถัดไป",
        "last": "สุดท้าย",
        "step": "ตาที่ {i} จาก {n}",
        "check": "ทุกคนเล่นซ้ำบันทึกนี้ (ขนาด ซีด การเดิน) เพื่อตรวจคะแนนได้",
        "too_long": "เกมนี้ยาวเกินกว่าจะดูทีละตาที่นี่ จึงแสดงกระดานสุดท้าย",
        "record_json": "บันทึกเกมแบบ JSON",
        "not_found": "ไม่พบเกมที่จบแล้วซึ่งมีรหัสนี้",
    },
}


def _context(request: Request, active: str) -> dict[str, Any]:
    """What base.html needs (from the site's language helper when installed) plus our strings."""
    try:
        from .i18n import page_context
    except ImportError:
        lang = request.query_params.get("lang") or request.cookies.get("lang") or "en"
        lang = lang if lang in TEXTS else "en"
        ctx: dict[str, Any] = {"lang": lang, "dir": "rtl" if lang == "he" else "ltr", "t": {},
                               "languages": [], "active": active}
    else:
        ctx = page_context(request, active)
    lang = ctx["lang"]
    ctx["t"] = {**ctx["t"], **TEXTS.get(lang, TEXTS["en"]), **REVIEW_TEXTS.get(lang, REVIEW_TEXTS["en"])}
    return ctx


def _render(request: Request, name: str, active: str, status_code: int = 200, **extra: Any) -> HTMLResponse:
    ctx = _context(request, active)
    ctx.update(extra)
    response = templates.TemplateResponse(request, name, ctx, status_code=status_code)
    chosen = request.query_params.get("lang")
    if chosen in TEXTS and request.cookies.get("lang") != chosen:
        response.set_cookie("lang", chosen, max_age=365 * 24 * 3600, samesite="lax")
    return response


def _day(text: str | None) -> date:
    try:
        return date.fromisoformat(text) if text else games.utc_today()
    except ValueError:
        return games.utc_today()


@router.get("/leaderboard", response_class=HTMLResponse)
def leaderboard_page(
    request: Request, size: str = "4", mode: str = "classic", date: str | None = None
) -> HTMLResponse:
    """All-time and daily leaderboards per board size; a bad parameter falls back to the default."""
    board_size = int(size) if size in {str(s) for s in SIZES} else 4
    board_mode = mode if mode in MODES else "classic"
    day = _day(date) if board_mode == "daily" else None
    with request.app.state.sessions() as s:
        entries = games.leaderboard(s, board_size, board_mode, day, LEADERBOARD_ROWS)  # type: ignore[arg-type]
    today = games.utc_today()
    return _render(
        request, "leaderboard.html", "leaderboard", entries=entries, size=board_size, mode=board_mode,
        day=day, sizes=SIZES, modes=MODES,
        prev_day=day - timedelta(days=1) if day and day > FIRST_DAY else None,
        next_day=day + timedelta(days=1) if day and day < today else None,
    )


def frames(size: int, seed: int, log: str, start: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """The board and score before the first move and after each letter of the log."""
    if start is None:
        game = Game(size, seed)
    else:  # a practice game from a position
        game = Game.from_board(start["board"], score=start["score"], seed=seed)
    out = [{"b": [v for row in game.board for v in row], "s": game.score}]
    for letter in log:
        if letter == "Z":
            game.undo()
        else:
            game.move(letter)
        out.append({"b": [v for row in game.board for v in row], "s": game.score})
    return out


@router.get("/games/{game_id}", response_class=HTMLResponse)
def game_page(request: Request, game_id: str) -> HTMLResponse:
    """A finished game: who, what score, the record, and a step-by-step replay.

    The page carries an ETag (304 to a client that has it) and its replay comes
    from a bounded cache: a view costs a database read and a template, not a replay.
    """
    try:
        with request.app.state.sessions() as s:
            record = games.get_record(s, game_id[:64])
    except ClientError:
        return _render(request, "game_missing.html", "leaderboard", status_code=404)
    shown = _frames_cache.get(record.id)
    if shown is None:
        # a replay costs real CPU on a long game: it counts against the viewer's budget
        with request.app.state.cpu_budget.spend(client_address(request), "page"):
            shown = record_frames(record)
    response = _render(
        request, "game.html", "leaderboard", record=record, stepper=len(record.log) <= MAX_FRAMES,
        frames_json=shown,
    )
    return conditional.cached(request, response, conditional.PAGE_CACHE, vary="Accept-Language, Cookie")


def record_frames(record: games.Record) -> str:
    """A finished game's frames as its page sends them (JSON, see ``_replay_frames``), from the
    bounded cache or replayed now and kept. A replay of a long game costs real CPU: call this
    inside the viewer's ``cpu_budget.spend`` (the game page and the review page do)."""
    shown = _frames_cache.get(record.id)
    if shown is None:
        shown = _replay_frames(record.size, record.seed, record.log, record.start)
        _frames_cache.put(record.id, shown, len(shown))
    return shown  # type: ignore[return-value]


def _replay_frames(size: int, seed: int, log: str, start: dict[str, Any] | None = None) -> str:
    """The page's frames as JSON: every position for a short game, the final one for a long one.
    ``start`` is the position a practice game began from (None for an opening)."""
    if len(log) <= MAX_FRAMES:
        shown = frames(size, seed, log, start)
    else:
        g = replay(size, seed, log, start=start["board"] if start else None,
                   start_score=start["score"] if start else 0)
        shown = [{"b": [v for row in g.board for v in row], "s": g.score}]
    return json.dumps(shown, separators=(",", ":"))
