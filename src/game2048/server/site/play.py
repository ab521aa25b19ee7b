"""GET /: the game page, rendered in the player's language before any script runs.

The language is chosen as on every page of the site (``pages.i18n.pick_language``:
``?lang=``, the ``lang`` cookie, Accept-Language, English). The words come from
the game's own language packs, ``web/static/js/i18n/<lang>.json``, the one
source of the game's strings: this module renders them into the HTML and embeds
the active pack for the scripts, so the browser never loads the other three.
The scripts travel inside the page as well, joined from the modules
(``web/bundle.py``), so the first move needs no request after the page;
the page's Content-Security-Policy lets that one script run by its hash.

Also here: the service worker at ``/sw.js`` (it must live at the root to
control ``/``), and ``/robots.txt``.
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import APIRouter
from markupsafe import Markup
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response

from ...limits import NAME_MAX
from ...rules import DEFAULT_SIZE, SIZES, TARGETS
from ...web.assets import page_script, page_styles, service_worker
from ..http.security_headers import policy
from .i18n import PACKS, pick_language, plural_category
from .render import render

router = APIRouter(include_in_schema=False)


def pack(lang: str) -> dict[str, Any]:
    """The game's strings in ``lang``: ``{"lang", "name", "dir", "locale", "strings"}``."""
    return {"lang": lang, **PACKS[lang]}


def text(lang: str, key: str, **values: Any) -> str:
    """One string of the game in ``lang``, with its ``{name}`` placeholders filled."""
    entry = pack(lang)["strings"][key]
    if isinstance(entry, dict):
        entry = entry.get(plural_category(lang, int(values.get("n", 0))), entry["other"])
    for name, value in values.items():
        entry = entry.replace("{" + name + "}", str(value))
    return entry


@router.get("/", response_class=HTMLResponse)
def play_page(request: Request) -> HTMLResponse:
    """The game, in the player's language; the board is a fresh one until the scripts load the saved game."""
    lang = pick_language(request)
    game_pack = pack(lang)
    size = DEFAULT_SIZE
    script, script_hash = page_script()
    response = render(
        request, "play.html", "play", lang=lang,
        s=lambda key, **values: text(lang, key, **values),
        pack_json=json.dumps(game_pack, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/"),
        styles=Markup(page_styles()), script=Markup(script), size=size, sizes=SIZES, target=TARGETS[size],
        description=game_pack["strings"]["description"], name_max=NAME_MAX,
    )
    response.headers["Cache-Control"] = "no-cache"
    # the page's own script may run, and no other inline one
    response.headers["Content-Security-Policy"] = policy((script_hash,))
    return response


@router.get("/sw.js")
def sw() -> Response:
    """The service worker of this release."""
    return service_worker()


@router.get("/robots.txt", response_class=PlainTextResponse)
def robots() -> str:
    """Everything may be indexed but the API."""
    return "User-agent: *\nDisallow: /api/\n"
