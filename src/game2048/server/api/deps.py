"""What routes share, written once: the database session, the path's game id, the client's
limits. Each is an ``Annotated`` alias or a dependency a route names in its signature.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, Path, Request
from sqlalchemy.orm import Session

from ...limits import GAME_ID_MAX
from ..clients.address import client_address
from ..limits.cpu import Verifier

__all__ = ["BODY_ERRORS", "Client", "Db", "GameId", "Verifier", "budget_left", "limited",
           "session"]

#: What any route with a JSON body can answer before it runs: too slow, too large, unreadable.
BODY_ERRORS = (408, 413, 422)


def session(request: Request) -> Iterator[Session]:
    with request.app.state.sessions() as s:
        yield s


def limited(scope: str):  # type: ignore[no-untyped-def]
    """A dependency that counts one request of ``scope`` against the client's rate limit."""

    def check(request: Request) -> None:
        request.app.state.runner.count(scope, client_address(request))

    return Depends(check)


def _budget_left(request: Request) -> None:
    request.app.state.cpu_budget.check(client_address(request))


#: A dependency that refuses a client whose CPU budget is spent before its body is looked at.
budget_left = Depends(_budget_left)

Db = Annotated[Session, Depends(session)]
GameId = Annotated[str, Path(max_length=GAME_ID_MAX)]
Client = Annotated[str, Depends(client_address)]
