"""What routes share, written once: the database session, the path's game id, the client's
limits. Each is an ``Annotated`` alias or a dependency a route names in its signature.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Path, Request
from sqlalchemy.orm import Session

from ...limits import GAME_ID_MAX
from ..clients.address import client_address
from ..limits.cpu import Verifier
from ..limits.rate import Hit, too_many

__all__ = ["BODY_ERRORS", "Client", "Db", "GameId", "Verifier", "count_move", "count_request", "engine_check",
           "limited", "replay_charge", "session"]

#: What any route with a JSON body can answer before it runs: too slow, too large, unreadable.
BODY_ERRORS = (408, 413, 422)


def session(request: Request) -> Iterator[Session]:
    with request.app.state.sessions() as s:
        yield s


def count_request(app: FastAPI, scope: str, client: str) -> None:
    """Count one request of ``scope`` against the client's rate limit; 429 past it."""
    too_many(app.state.limiters[scope].check(scope, client))


def count_move(app: FastAPI, client: str) -> Hit | None:
    """Count one moves request against the client's rate limit: now (429 past it, as
    ``count_request``), or, when the store can count it in the move's own round trip (Redis, the
    limits kept in the same Redis), a ``Hit`` for ``mover.play`` to hand to the store."""
    limiter = app.state.limiters["moves"]
    if not limiter.items:  # no move limit: nothing to count
        return None
    if limiter.redis_url is not None and limiter.redis_url == getattr(app.state.store, "redis_url", None):
        return Hit(limiter, "moves", client)
    too_many(limiter.check("moves", client))
    return None


def moves_on_loop(app: FastAPI) -> bool:
    """Whether a move on a game this worker keeps can be played from the event loop, without a
    thread (``mover.play_kept``): the store saves without one (PostgreSQL, Redis) and the move's
    count needs no round trip of its own (no move limit, limits kept in this process, or kept in
    the store's own Redis and counted in the move's round trip)."""
    store, limiter = app.state.store, app.state.limiters["moves"]
    return bool(store.saves_async) and (not limiter.items or limiter.redis_url is None
                                        or limiter.redis_url == getattr(store, "redis_url", None))


def limited(scope: str):  # type: ignore[no-untyped-def]
    """A dependency that counts one request of ``scope`` against the client's rate limit."""

    def check(request: Request) -> None:
        count_request(request.app, scope, client_address(request))

    return Depends(check)


def engine_check(app: FastAPI) -> Callable[[int, int, str], dict[str, Any]] | None:
    """What a ranked players' finish gets for its engine-like check (``reviews.checks``): the
    check itself (inline), an unchecked mark for the background checker, or nothing (off)."""
    from ..reviews import checks

    mode = app.state.settings.engine_check
    if mode == "off":
        return None
    if mode == "inline":
        return lambda size, seed, log: checks.record_fields(checks.check(size, seed, log))
    return lambda _size, _seed, _log: {"checked": False}


def replay_charge(app: FastAPI, client: str) -> Callable[[], AbstractContextManager[None]]:
    """What a retry from far back costs: a replay, counted like a finish and measured against
    the client's CPU budget (``with charge(): ...replay...``)."""
    return _Charge(app, client)


class _Charge:
    """``replay_charge``'s answer: made for every move, used only by a retry from far back."""

    __slots__ = ("app", "client")

    def __init__(self, app: FastAPI, client: str) -> None:
        self.app, self.client = app, client

    @contextmanager
    def __call__(self) -> Iterator[None]:
        count_request(self.app, "games", self.client)
        with self.app.state.cpu_budget.spend(self.client, "retry"):
            yield


Db = Annotated[Session, Depends(session)]
GameId = Annotated[str, Path(max_length=GAME_ID_MAX)]
Client = Annotated[str, Depends(client_address)]
