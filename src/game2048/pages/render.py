"""Rendering a page of the site: the shared Jinja2 environment and the language cookie.

    from game2048.pages.render import render
    return render(request, "leaderboard.html", "leaderboard", rows=rows)

The template extends ``base.html`` and gets ``lang``, ``dir``, ``t``,
``languages`` and ``active`` (see ``game2048.pages.i18n.page_context``) besides
the keyword arguments.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi.templating import Jinja2Templates
from starlette.requests import Request
from starlette.responses import HTMLResponse

from .i18n import COOKIE, LANGUAGES, page_context

TEMPLATE_DIR = Path(__file__).resolve().parent.parent / "templates"

templates = Jinja2Templates(directory=str(TEMPLATE_DIR))
templates.env.globals["LANGUAGES"] = LANGUAGES

#: A year: the chooser's choice should outlive the visit.
COOKIE_AGE = 365 * 24 * 3600


def render(
    request: Request, name: str, active: str = "", *, status_code: int = 200, **context: Any
) -> HTMLResponse:
    """Render template ``name`` in the request's language; a ``?lang=`` choice is kept in a cookie."""
    ctx = page_context(request, active)
    ctx.update(context)
    response = templates.TemplateResponse(request, name, ctx, status_code=status_code)
    chosen = request.query_params.get("lang")
    if chosen in LANGUAGES and request.cookies.get(COOKIE) != chosen:
        response.set_cookie(COOKIE, chosen, max_age=COOKIE_AGE, samesite="lax")
    return response
