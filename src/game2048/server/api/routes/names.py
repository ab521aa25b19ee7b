"""Held names, for their holder: take them to another browser (recover), or let one go (release)."""

from __future__ import annotations

from fastapi import APIRouter, Request

from ...errors import responses
from ...records import owners
from ...records import records as games
from ..deps import BODY_ERRORS, limited
from ..schemas import RecoveredOut, RecoverIn, ReleasedOut, ReleaseIn

router = APIRouter(prefix="/api/names")


@router.post("/recover", response_model=RecoveredOut, responses=responses(404, *BODY_ERRORS, 429),
             dependencies=[limited("games")])
def recover_names(body: RecoverIn, request: Request) -> RecoveredOut:
    """The names a recovery code holds: /me shows each name's key as its code, and another browser
    of its holder enters it there to play under those names again. A code that holds no name
    (unknown, or its name went free) is a 404 with code `name_key_unknown`. Rate-limited per client."""
    return RecoveredOut(names=owners.recover(request.app.state.engine, body.code), name_key=body.code)


@router.post("/release", response_model=ReleasedOut, responses=responses(403, 404, *BODY_ERRORS, 429),
             dependencies=[limited("games")])
def release_name(body: ReleaseIn, request: Request) -> ReleasedOut:
    """Let a held name go: anyone may take it with their next finish. Only its key frees it (403
    `name_key_wrong` otherwise); a name nobody holds is a 404 `name_not_held`. Its records stay
    under it. Rate-limited per client."""
    name = games.check_name(body.name)
    owners.release(request.app.state.engine, name, body.name_key)
    return ReleasedOut(name=name)
