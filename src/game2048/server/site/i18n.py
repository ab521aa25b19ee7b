"""Languages of the site: which one a request gets, and the short interface strings.

Every page extends ``templates/base.html``, which needs ``lang``, ``dir``, ``t``
(this module's strings for the language), ``languages`` (the chooser links) and
``active`` (the navigation key of the page). ``page_context`` builds all of it:

    from .i18n import page_context, pick_language, strings

    lang = pick_language(request)           # ?lang= > cookie "lang" > Accept-Language > en
    t = strings(lang)                       # t["nav_rules"] == "Rules" for "en"
    ctx = page_context(request, "leaderboard")   # everything base.html reads

``game2048.server.site.render.render`` does the rest (template look-up, the ``lang``
cookie, ``Vary``). Long texts (the rules, the prose of the content pages) are templates
of their own, one per language, under ``templates/pages/``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from ...web.assets import STATIC_DIR

#: The site's languages, in the chooser's order: the one list a new language joins (docs/languages.md).
LANGUAGES: tuple[str, ...] = ("en", "he", "ru", "th")
DEFAULT_LANGUAGE = "en"
COOKIE = "lang"

STRINGS_DIR = Path(__file__).resolve().parent / "strings"
#: Every interface string of the site's pages, ``STRINGS[lang][key]``: one JSON file a language
#: (``strings/<lang>.json``), written like the game's own packs: ``{name}`` placeholders. Its
#: ``number_*`` and ``plural_*`` keys say how the language writes numbers and counts (CLDR's data).
STRINGS: dict[str, dict[str, str]] = {
    code: json.loads((STRINGS_DIR / f"{code}.json").read_text(encoding="utf-8")) for code in LANGUAGES
}
#: The game's language packs (``web/static/js/i18n/<lang>.json``): besides the game's strings, each
#: gives the language's ``name`` in itself, its ``dir`` (``ltr`` or ``rtl``) and its ``locale``.
PACKS: dict[str, dict[str, Any]] = {
    code: json.loads((STATIC_DIR / "js" / "i18n" / f"{code}.json").read_text(encoding="utf-8"))
    for code in LANGUAGES
}


def strategy_name(lang: str, name: str) -> str:
    """A strategy's display name in ``lang`` (its code name if it has none)."""
    return strings(lang).get(f"strategy_{name}", name)


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


_CONDITION = re.compile(r"n(?: % (\d+))? (!?=) ([\d.,]+)")


def _holds(rule: str, n: int) -> bool:
    """Whether whole number ``n`` meets a CLDR plural rule: ``n % 10 = 2..4 and n % 100 != 12..14``."""
    def condition(modulus: str | None, operator: str, values: str) -> bool:
        x = n % int(modulus) if modulus else n
        inside = any(int(v.split("..")[0]) <= x <= int(v.split("..")[-1]) for v in values.split(","))
        return inside == (operator == "=")
    return any(all(condition(*_CONDITION.fullmatch(c.strip()).groups())  # type: ignore[union-attr]
                   for c in part.split(" and ")) for part in rule.split(" or "))


def plural_category(lang: str, n: int) -> str:
    """The CLDR plural category of a whole number by the ``plural_*`` rules of ``strings/<lang>.json``;
    ``tests/vectors/plurals.json`` binds it to the browser's ``Intl.PluralRules``.

    >>> [plural_category("ru", n) for n in (1, 3, 5, 11, 21, 24)]
    ['one', 'few', 'many', 'many', 'one', 'few']
    """
    rules = strings(lang)
    return next((c for c in ("zero", "one", "two", "few", "many")
                 if f"plural_{c}" in rules and _holds(rules[f"plural_{c}"], abs(n))), "other")


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
                "name": PACKS[code]["name"],
                "dir": PACKS[code]["dir"],
                "href": href,
                "absolute": origin + href,
                "current": code == current,
            }
        )
    return links


def _origin(request: Any) -> str:
    """``scheme://host[:port]`` the site is published at (``GAME2048_PUBLIC_URL``), or "" (links
    stay relative). Never the request's ``Host``: a cache in front would keep a forged one."""
    app = getattr(request, "app", None)
    settings = getattr(getattr(app, "state", None), "settings", None)
    return (getattr(settings, "public_url", None) or "").rstrip("/")


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
        "dir": PACKS.get(lang, PACKS[DEFAULT_LANGUAGE])["dir"],
        "t": strings(lang),
        "languages": language_links(request.url.path, request.query_params, lang, origin),
        "origin": origin,  # the alternates need absolute links: only with GAME2048_PUBLIC_URL
        "x_default": origin + request.url.path + (f"?{urlencode(rest)}" if rest else ""),
        "active": active,
    }
