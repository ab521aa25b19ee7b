"""Rendering a page of the site: the shared Jinja2 environment and the language cookie.

    from .render import render
    return render(request, "leaderboard.html", "leaderboard", rows=rows)

The template extends ``base.html`` and gets ``lang``, ``dir``, ``t``,
``languages`` and ``active`` (see ``game2048.server.site.i18n.page_context``) besides
the keyword arguments.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi.templating import Jinja2Templates
from starlette.requests import Request
from starlette.responses import HTMLResponse

from ...web.assets import asset_url
from .i18n import COOKIE, LANGUAGES, page_context, strategy_name, strings

TEMPLATE_DIR = Path(__file__).resolve().parent / "templates"

templates = Jinja2Templates(directory=str(TEMPLATE_DIR))
templates.env.globals["LANGUAGES"] = LANGUAGES
templates.env.globals["strategy_name"] = strategy_name
templates.env.globals["asset"] = asset_url

def number(value: float, lang: str = "en", decimals: int = 0) -> str:
    """A number for the page, with the language's ``number_group`` and ``number_decimal`` signs:
    ``number(20480, "ru") == "20\u202f480"``."""
    t = strings(lang)
    return f"{value:,.{decimals}f}".translate({ord(","): t["number_group"], ord("."): t["number_decimal"]})


def percent(share: float, lang: str = "en") -> str:
    """A share 0..1 as a percentage (the language's ``number_percent``), with one decimal when it
    is small or all but 100."""
    value = share * 100
    decimals = 1 if 0 < value < 10 or 99.5 <= value < 100 else 0  # never round 99.7 up to 100
    return strings(lang)["number_percent"].replace("{n}", number(value, lang, decimals))


templates.env.filters["num"] = number
templates.env.filters["pct"] = percent

#: A year: the chooser's choice should outlive the visit.
COOKIE_AGE = 365 * 24 * 3600


def context(request: Request, active: str = "", lang: str | None = None) -> dict[str, Any]:
    """What every template gets: ``lang``, ``dir``, ``t`` (the strings), ``languages``, ``active``."""
    return page_context(request, active, lang)


def render(
    request: Request,
    name: str,
    active: str = "",
    *,
    status_code: int = 200,
    lang: str | None = None,
    **values: Any,
) -> HTMLResponse:
    """Render template ``name`` in the request's language; a ``?lang=`` choice is kept in a cookie.

    ``lang`` overrides the language (for a page that exists only in some languages).
    """
    ctx = page_context(request, active, lang)
    ctx.update(values)
    response = templates.TemplateResponse(request, name, ctx, status_code=status_code)
    return language_headers(request, response)


def language_headers(request: Request, response: HTMLResponse) -> HTMLResponse:
    """``response`` with the headers of a page in the request's language: the ``?lang=`` choice
    kept in a cookie, and ``Vary`` (a page drawn before, kept by the caller, gets them too)."""
    chosen = request.query_params.get("lang")
    if chosen in LANGUAGES and request.cookies.get(COOKIE) != chosen:
        response.set_cookie(COOKIE, chosen, max_age=COOKIE_AGE, samesite="lax")
    # the language follows these request headers: shared caches must keep one copy per value
    response.headers["Vary"] = "Accept-Language, Cookie"
    return response
