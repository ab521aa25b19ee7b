"""Languages of the site: which one a request gets, and the short interface strings.

Every page extends ``templates/base.html``, which needs ``lang``, ``dir``, ``t``
(this module's strings for the language), ``languages`` (the chooser links) and
``active`` (the navigation key of the page). ``page_context`` builds all of it:

    from .i18n import page_context, pick_language, strings

    lang = pick_language(request)           # ?lang= > cookie "lang" > Accept-Language > en
    t = strings(lang)                       # t["nav_rules"] == "Rules" for "en"
    ctx = page_context(request, "leaderboard")   # everything base.html reads

``game2048.site.render.render`` does the rest (template look-up, the ``lang``
cookie). Long texts (the rules, the prose of the content pages) are templates
of their own, one per language, under ``templates/pages/``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode

LANGUAGES: tuple[str, ...] = ("en", "he", "ru", "th")
DEFAULT_LANGUAGE = "en"
RTL: frozenset[str] = frozenset({"he"})
#: Each language's name in itself, for the chooser.
NATIVE_NAMES: dict[str, str] = {"en": "English", "he": "עברית", "ru": "Русский", "th": "ไทย"}
COOKIE = "lang"

STRINGS: dict[str, dict[str, str]] = {
    "en": {
        "site": "2048",
        "desc_rules": (
            "The complete rules of 2048: how tiles slide and merge, scoring, "
            "winning, game over, and the edge cases, with worked examples."
        ),
        "desc_strategy": (
            "The corner method for 2048 against the usual mistakes, "
            "measured over thousands of simulated games."
        ),
        "desc_boards": "How hard 2048 is on 3×3, 4×4, 5×5 and 6×6 boards, measured by simulation.",
        "desc_solver": (
            "How the built-in 2048 solver chooses its moves "
            "(expectimax) and how strong it measured."
        ),
        "desc_leaderboard": (
            "2048 leaderboards per board size, all time and daily; every "
            "score replayed and verified by the server."
        ),
        "tagline": "Free 2048 on boards from 3×3 to 6×6, with verified scores",
        "nav_label": "Site",
        "nav_play": "Play",
        "nav_leaderboard": "Leaderboard",
        "nav_rules": "Rules",
        "nav_strategy": "Strategy",
        "nav_boards": "Boards",
        "nav_solver": "Solver",
        "language": "Language",
        "skip": "Skip to content",
        "footer": "Every ranked score is replayed and checked by the server.",
        "title_rules": "2048 rules",
        "title_strategy": "2048 strategy: the corner method, measured",
        "title_boards": "2048 on 3×3, 4×4, 5×5 and 6×6: how hard each board is",
        "title_solver": "The 2048 solver: how it works and how strong it is",
        "board": "Board",
        "strategy": "Strategy",
        "games": "Games",
        "mean_score": "Mean score",
        "median_score": "Median score",
        "best_score": "Best score",
        "mean_moves": "Moves per game",
        "largest_tile": "Largest tile",
        "share_reaching": "Share of games reaching the tile",
        "share_ending": "Share of games ending with this largest tile",
        "score_range": "Score",
        "target": "Target",
        "max_tile": "Largest possible tile",
        "reached": "reached",
        "no_data": "No measurements for this yet.",
        "data_note": "Measured with {command}; {games} games in all.",
        "chart_alt": "Chart; the same figures are in the table below it.",
        "play_now": "Play 2048",
        "versus": "Mean score (games) of the fast solver and of the corner method",
        "largest_seen": "Largest tile seen",
        "cells": "Cells",
        "runs": "The commands behind these figures, in order (a later run replaces games with the same seed)",
        "score_share": "Share of games by final score",
        "capped": "Stopped by the move cap",
    },
    "he": {
        "site": "2048",
        "desc_rules": (
            "החוקים המלאים של 2048: איך אריחים מחליקים ומתאחדים, ניקוד, "
            "ניצחון, סוף המשחק ומקרי הקצה, עם דוגמאות."
        ),
        "desc_strategy": "שיטת הפינה ב־2048 מול הטעויות הנפוצות, במדידה על אלפי משחקים מדומים.",
        "desc_boards": "כמה קשה 2048 על לוחות 3×3, 4×4, 5×5 ו־6×6, לפי מדידה בסימולציה.",
        "desc_solver": "איך הפותר המובנה של 2048 בוחר מהלכים (expectimax) ועד כמה הוא חזק במדידה.",
        "desc_leaderboard": (
            "טבלאות השיאים של 2048 לכל גודל לוח, של כל הזמנים "
            "ויומיות; השרת משחזר ומאמת כל ניקוד."
        ),
        "tagline": "2048 בחינם על לוחות מ־3×3 עד 6×6, עם ניקוד מאומת",
        "nav_label": "אתר",
        "nav_play": "משחק",
        "nav_leaderboard": "טבלת שיאים",
        "nav_rules": "חוקים",
        "nav_strategy": "אסטרטגיה",
        "nav_boards": "לוחות",
        "nav_solver": "פותר",
        "language": "שפה",
        "skip": "דילוג לתוכן",
        "footer": "השרת משחזר ובודק כל ניקוד לפני שהוא נכנס לדירוג.",
        "title_rules": "חוקי 2048",
        "title_strategy": "אסטרטגיה ב־2048: שיטת הפינה במספרים",
        "title_boards": "2048 על 3×3, 4×4, 5×5 ו־6×6: כמה קשה כל לוח",
        "title_solver": "הפותר של 2048: איך הוא עובד ועד כמה הוא חזק",
        "board": "לוח",
        "strategy": "אסטרטגיה",
        "games": "משחקים",
        "mean_score": "ניקוד ממוצע",
        "median_score": "ניקוד חציוני",
        "best_score": "הניקוד הגבוה ביותר",
        "mean_moves": "מהלכים למשחק",
        "largest_tile": "האריח הגדול ביותר",
        "share_reaching": "שיעור המשחקים שהגיעו לאריח",
        "share_ending": "שיעור המשחקים שזה האריח הגדול בסופם",
        "score_range": "ניקוד",
        "target": "יעד",
        "max_tile": "האריח הגדול האפשרי",
        "reached": "הגיעו",
        "no_data": "עדיין אין מדידות לזה.",
        "data_note": "נמדד בפקודה {command}; בסך הכול {games} משחקים.",
        "chart_alt": "תרשים; אותם נתונים מופיעים בטבלה שמתחתיו.",
        "play_now": "לשחק 2048",
        "versus": "ניקוד ממוצע (מספר משחקים) של הפותר המהיר ושל שיטת הפינה",
        "largest_seen": "האריח הגדול ביותר שנראה",
        "cells": "משבצות",
        "runs": "הפקודות שמאחורי המספרים, לפי הסדר (הרצה מאוחרת מחליפה משחקים קודמים עם אותו זרע)",
        "score_share": "התפלגות הניקוד הסופי",
        "capped": "נעצרו במגבלת המהלכים",
    },
    "ru": {
        "site": "2048",
        "desc_rules": (
            "Полные правила 2048: как плитки сдвигаются и сливаются, очки, "
            "победа, конец игры и тонкие случаи — с примерами."
        ),
        "desc_strategy": "Метод угла в 2048 против типичных ошибок — по тысячам смоделированных партий.",
        "desc_boards": "Насколько трудна 2048 на досках 3×3, 4×4, 5×5 и 6×6 — по результатам моделирования.",
        "desc_solver": (
            "Как встроенный решатель 2048 выбирает ход (expectimax) "
            "и насколько он силён по измерениям."
        ),
        "desc_leaderboard": (
            "Рейтинги 2048 по размерам доски, за всё время и за день; "
            "каждый счёт сервер переиграл и проверил."
        ),
        "tagline": "Бесплатная 2048 на досках от 3×3 до 6×6 с проверенными результатами",
        "nav_label": "Разделы",
        "nav_play": "Играть",
        "nav_leaderboard": "Рейтинг",
        "nav_rules": "Правила",
        "nav_strategy": "Стратегия",
        "nav_boards": "Доски",
        "nav_solver": "Решатель",
        "language": "Язык",
        "skip": "К содержанию",
        "footer": "Каждый результат в рейтинге сервер переигрывает и проверяет.",
        "title_rules": "Правила 2048",
        "title_strategy": "Стратегия 2048: метод угла в цифрах",
        "title_boards": "2048 на досках 3×3, 4×4, 5×5 и 6×6: насколько трудна каждая",
        "title_solver": "Решатель 2048: как он устроен и насколько силён",
        "board": "Доска",
        "strategy": "Стратегия",
        "games": "Партий",
        "mean_score": "Средний счёт",
        "median_score": "Медианный счёт",
        "best_score": "Лучший счёт",
        "mean_moves": "Ходов за партию",
        "largest_tile": "Самая большая плитка",
        "share_reaching": "Доля партий, дошедших до плитки",
        "share_ending": "Доля партий, закончившихся с этой старшей плиткой",
        "score_range": "Счёт",
        "target": "Цель",
        "max_tile": "Наибольшая возможная плитка",
        "reached": "дошли",
        "no_data": "Измерений пока нет.",
        "data_note": "Измерено командой {command}; всего партий: {games}.",
        "chart_alt": "Диаграмма; те же числа — в таблице под ней.",
        "play_now": "Играть в 2048",
        "versus": "Средний счёт (число партий): быстрый решатель и метод угла",
        "largest_seen": "Самая большая плитка",
        "cells": "Клеток",
        "runs": "Команды, давшие эти числа, по порядку (поздний запуск заменяет партии с тем же зерном)",
        "score_share": "Распределение итогового счёта",
        "capped": "Остановлено по лимиту ходов",
    },
    "th": {
        "site": "2048",
        "desc_rules": (
            "กติกา 2048 ฉบับเต็ม: ไทล์เลื่อนและรวมกันอย่างไร "
            "การคิดคะแนน การชนะ เกมจบ และกรณีพิเศษ พร้อมตัวอย่าง"
        ),
        "desc_strategy": "วิธีเข้ามุมใน 2048 เทียบกับข้อผิดพลาดที่พบบ่อย วัดจากเกมจำลองหลายพันเกม",
        "desc_boards": "2048 บนกระดาน 3×3, 4×4, 5×5 และ 6×6 ยากแค่ไหน วัดด้วยการจำลอง",
        "desc_solver": "ตัวแก้เกม 2048 ในตัวเลือกตาเดินอย่างไร (expectimax) และเก่งแค่ไหนจากการวัด",
        "desc_leaderboard": (
            "ตารางอันดับ 2048 ตามขนาดกระดาน ตลอดกาลและรายวัน "
            "ทุกคะแนนเซิร์ฟเวอร์เล่นซ้ำและตรวจแล้ว"
        ),
        "tagline": "เล่น 2048 ฟรีบนกระดาน 3×3 ถึง 6×6 พร้อมคะแนนที่ตรวจสอบแล้ว",
        "nav_label": "เมนู",
        "nav_play": "เล่น",
        "nav_leaderboard": "อันดับ",
        "nav_rules": "กติกา",
        "nav_strategy": "กลยุทธ์",
        "nav_boards": "ขนาดกระดาน",
        "nav_solver": "ตัวแก้เกม",
        "language": "ภาษา",
        "skip": "ข้ามไปที่เนื้อหา",
        "footer": "เซิร์ฟเวอร์เล่นซ้ำและตรวจทุกคะแนนก่อนนำขึ้นตารางอันดับ",
        "title_rules": "กติกา 2048",
        "title_strategy": "กลยุทธ์ 2048: วิธีเข้ามุมวัดด้วยตัวเลข",
        "title_boards": "2048 บนกระดาน 3×3, 4×4, 5×5 และ 6×6: แต่ละขนาดยากแค่ไหน",
        "title_solver": "ตัวแก้เกม 2048: ทำงานอย่างไรและเก่งแค่ไหน",
        "board": "กระดาน",
        "strategy": "กลยุทธ์",
        "games": "จำนวนเกม",
        "mean_score": "คะแนนเฉลี่ย",
        "median_score": "คะแนนมัธยฐาน",
        "best_score": "คะแนนสูงสุด",
        "mean_moves": "จำนวนตาต่อเกม",
        "largest_tile": "ไทล์ใหญ่ที่สุด",
        "share_reaching": "สัดส่วนเกมที่ไปถึงไทล์นี้",
        "share_ending": "สัดส่วนเกมที่จบโดยมีไทล์นี้ใหญ่ที่สุด",
        "score_range": "คะแนน",
        "target": "เป้าหมาย",
        "max_tile": "ไทล์ใหญ่ที่สุดที่เป็นไปได้",
        "reached": "ไปถึง",
        "no_data": "ยังไม่มีผลการวัดสำหรับส่วนนี้",
        "data_note": "วัดด้วยคำสั่ง {command} รวมทั้งหมด {games} เกม",
        "chart_alt": "แผนภูมิ ตัวเลขชุดเดียวกันอยู่ในตารางด้านล่าง",
        "play_now": "เล่น 2048",
        "versus": "คะแนนเฉลี่ย (จำนวนเกม) ของตัวแก้เกมโหมดเร็วและของวิธีเข้ามุม",
        "largest_seen": "ไทล์ใหญ่ที่สุดที่เคยได้",
        "cells": "จำนวนช่อง",
        "runs": "คำสั่งที่ให้ตัวเลขเหล่านี้ตามลำดับ (การรันครั้งหลังแทนที่เกมก่อนหน้าที่ใช้ซีดเดียวกัน)",
        "score_share": "สัดส่วนเกมตามคะแนนสุดท้าย",
        "capped": "หยุดเพราะครบจำนวนตาที่กำหนด",
    },
}

#: Display names of the simulated strategies (see ``game2048.site.simulate``).
STRATEGY_NAMES: dict[str, dict[str, str]] = {
    "en": {
        "random": "Random moves",
        "greedy": "Greedy, all four directions",
        "corner-greedy": "Corner, merging whenever possible",
        "corner-rush": "Corner, rushing when nearly full",
        "corner": "Corner method",
        "solver-fast": "Solver (fast preset)",
    },
    "he": {
        "random": "מהלכים אקראיים",
        "greedy": "חמדנות, בכל ארבעת הכיוונים",
        "corner-greedy": "פינה, איחוד בכל הזדמנות",
        "corner-rush": "פינה, חיפזון כשהלוח כמעט מלא",
        "corner": "שיטת הפינה",
        "solver-fast": "הפותר (מצב מהיר)",
    },
    "ru": {
        "random": "Случайные ходы",
        "greedy": "Жадная игра во все стороны",
        "corner-greedy": "Угол, но сливать всё подряд",
        "corner-rush": "Угол, но спешка на почти полной доске",
        "corner": "Метод угла",
        "solver-fast": "Решатель (быстрый режим)",
    },
    "th": {
        "random": "เดินสุ่ม",
        "greedy": "ละโมบ ใช้ครบสี่ทิศ",
        "corner-greedy": "เข้ามุม แต่รวมทุกครั้งที่รวมได้",
        "corner-rush": "เข้ามุม แต่รีบเมื่อกระดานเกือบเต็ม",
        "corner": "วิธีเข้ามุม",
        "solver-fast": "ตัวแก้เกม (โหมดเร็ว)",
    },
}


def strategy_name(lang: str, name: str) -> str:
    """A strategy's display name in ``lang`` (its code name if it has none)."""
    return STRATEGY_NAMES.get(lang, STRATEGY_NAMES[DEFAULT_LANGUAGE]).get(name, name)


def _from_accept_language(header: str) -> str | None:
    """The best supported language of an Accept-Language header, by its q values."""
    best: tuple[float, int, str] | None = None
    for position, part in enumerate(header.split(",")):
        tag, _, params = part.strip().partition(";")
        code = tag.strip().lower().split("-")[0]
        if code == "iw":  # the old code for Hebrew, still sent by some browsers
            code = "he"
        if code not in LANGUAGES:
            continue
        q = 1.0
        params = params.strip()
        if params.startswith("q="):
            try:
                q = float(params[2:])
            except ValueError:
                q = 0.0
        if q > 0 and (best is None or (q, -position) > (best[0], best[1])):
            best = (q, -position, code)
    return best[2] if best else None


def pick_language(request: Any) -> str:
    """The language for a request: ``?lang=``, then the ``lang`` cookie, then Accept-Language, then English.

    Works with any object that has Starlette's ``query_params``, ``cookies`` and ``headers``.
    """
    for candidate in (request.query_params.get("lang"), request.cookies.get(COOKIE)):
        if candidate in LANGUAGES:
            return candidate
    return _from_accept_language(request.headers.get("accept-language", "")) or DEFAULT_LANGUAGE


def strings(lang: str) -> dict[str, str]:
    """The interface strings of ``lang`` (English for an unknown language)."""
    return STRINGS.get(lang, STRINGS[DEFAULT_LANGUAGE])


def direction(lang: str) -> str:
    """``rtl`` for right-to-left languages, else ``ltr``."""
    return "rtl" if lang in RTL else "ltr"


def language_links(
    path: str, query: Mapping[str, str], current: str, origin: str = ""
) -> list[dict[str, Any]]:
    """One chooser link per language: the same page and query with ``lang`` replaced.

    ``href`` is relative (for the chooser), ``absolute`` starts with ``origin``
    (for ``<link rel="alternate" hreflang>``, which must be absolute).
    """
    links = []
    for code in LANGUAGES:
        params = {k: v for k, v in query.items() if k != "lang"}
        params["lang"] = code
        href = f"{path}?{urlencode(params)}"
        links.append(
            {
                "code": code,
                "name": NATIVE_NAMES[code],
                "href": href,
                "absolute": origin + href,
                "current": code == current,
            }
        )
    return links


def _origin(request: Any) -> str:
    """``scheme://host[:port]`` of the request (behind a proxy, as ``--proxy-headers`` reports it)."""
    url = getattr(request, "url", None)
    return f"{url.scheme}://{url.netloc}" if url is not None and url.netloc else ""


def page_context(request: Any, active: str = "", lang: str | None = None) -> dict[str, Any]:
    """Everything ``base.html`` reads: lang, dir, t, languages, active.

    ``active`` is the navigation key of the page: play, leaderboard, rules,
    strategy, boards or solver ("" for none).
    """
    lang = lang or pick_language(request)
    origin = _origin(request)
    rest = {k: v for k, v in request.query_params.items() if k != "lang"}
    return {
        "request": request,
        "lang": lang,
        "dir": direction(lang),
        "t": strings(lang),
        "languages": language_links(request.url.path, request.query_params, lang, origin),
        "x_default": origin + request.url.path + (f"?{urlencode(rest)}" if rest else ""),
        "active": active,
    }
