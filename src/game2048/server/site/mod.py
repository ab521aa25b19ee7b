"""``/mod``, the operators' page: sign in, the queue of games that wait for a person with their
evidence, the actions, and the audit log (``moderation``). English only; closed (404) unless
GAME2048_MOD_PASSWORD_HASH is set."""

from __future__ import annotations

import hmac
from itertools import pairwise
from typing import Any
from urllib.parse import parse_qs

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from ..clients.address import client_address
from ..errors import ClientError
from ..moderation import access
from ..moderation.actions import ACTIONS, act, audit_log
from ..moderation.queue import cases
from ..moderation.reports import REASONS
from .charts import scatter_chart
from .render import render

router = APIRouter(include_in_schema=False)


def _open(request: Request) -> str:
    """The stored password hash, or 404 when /mod is closed."""
    stored = request.app.state.settings.mod_password_hash
    if not stored:
        raise ClientError(404, "not found")
    return stored


def _operator(request: Request) -> tuple[str | None, str]:
    token = request.cookies.get(access.COOKIE, "")
    return access.operator_of(request.app.state.secret, token), token


async def _form(request: Request) -> dict[str, str]:
    try:
        fields = parse_qs((await request.body()).decode(), max_num_fields=20, strict_parsing=False)
    except (UnicodeDecodeError, ValueError):
        raise ClientError(400, "a form of name=value pairs was expected") from None
    return {name: values[0] for name, values in fields.items()}


@router.get("/mod", response_class=HTMLResponse)
def mod_page(request: Request, done: str = "") -> HTMLResponse:
    """The queue and the audit log for a signed-in operator; the sign-in form for anyone else."""
    _open(request)
    operator, token = _operator(request)
    headers = {"Cache-Control": "no-store", "X-Robots-Tag": "noindex"}
    if operator is None:
        response = render(request, "mod.html", lang="en", operator=None, error=done == "wrong")
    else:
        with request.app.state.sessions() as session:
            queue, log = cases(session), audit_log(session)
        response = render(request, "mod.html", lang="en", operator=operator, queue=queue, log=log,
                          actions=ACTIONS, reasons=REASONS, done=done,
                          form_token=access.form_token(request.app.state.secret, token),
                          charts={case.id: _times_chart(case.times) for case in queue})
    response.headers.update(headers)
    return response


@router.post("/mod/login")
async def mod_login(request: Request) -> Response:
    stored = _open(request)
    request.app.state.runner.count("login", client_address(request))  # every try: wrong ones are limited
    form = await _form(request)
    operator = form.get("operator", "").strip()[:64]
    if not operator or not access.password_ok(stored, form.get("password", "")):
        return RedirectResponse("/mod?done=wrong", status_code=303)
    response = RedirectResponse("/mod", status_code=303)
    response.set_cookie(access.COOKIE, access.session_token(request.app.state.secret, operator),
                        max_age=access.SESSION_SECONDS, path="/mod", secure=True, httponly=True,
                        samesite="strict")
    return response


@router.post("/mod/logout")
async def mod_logout(request: Request) -> Response:
    _open(request)
    await _signed_form(request)
    response = RedirectResponse("/mod", status_code=303)
    response.delete_cookie(access.COOKIE, path="/mod", secure=True, httponly=True, samesite="strict")
    return response


@router.post("/mod/act")
async def mod_act(request: Request) -> Response:
    _open(request)
    operator, form = await _signed_form(request)
    with request.app.state.sessions() as session:
        done = act(session, operator, form.get("action", ""), form.get("target", ""), form.get("why", ""))
    request.app.state.answers.clear()  # the boards this worker keeps change with the action
    return RedirectResponse(f"/mod?done={done.id}", status_code=303)


async def _signed_form(request: Request) -> tuple[str, dict[str, str]]:
    """The form of a signed-in operator, its token checked (403 otherwise)."""
    operator, token = _operator(request)
    form = await _form(request)
    expected = access.form_token(request.app.state.secret, token)
    if operator is None or not hmac.compare_digest(form.get("form_token", ""), expected):
        raise ClientError(403, "sign in again: this form is not from your session")
    return operator, form


def _times_chart(times: list[int] | None) -> Any:
    """Each move's time (ms since the move before) against its number: a script's times are flat."""
    if not times or len(times) < 2:
        return None
    gaps = [(n, later - earlier) for n, (earlier, later) in enumerate(pairwise(times), start=2)]
    return scatter_chart("Time before each move", gaps, x_title="move", y_title="ms since the move before")
