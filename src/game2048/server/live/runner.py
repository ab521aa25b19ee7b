"""The one runner of a game in play: every move, state, hint and finish, from any transport.

The WebSocket handler and the HTTP routes (``api``) parse a request, call the
``Runner`` and answer. Only the runner knows how a move runs on this store and
when it is counted against the client's move limit:

- SQLite: on the event loop's thread (a move takes less than handing it to a
  thread), inside the loop turn's group commit (``commits``); the answer waits
  for that commit;
- PostgreSQL and Redis: a game this worker keeps is saved from the event loop
  (``moving.play_kept``); the rest on a thread of the movers' pool, whose
  drivers block;
- the count is made on the loop where it costs no round trip of its own, in the
  store's own round trip where the limits share the store's Redis, else on the
  move's thread.

State, hints and the finish run on a thread; the finish's replay counts against
the client's CPU budget, a hint's solver time against its hint budget.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import Any, TypeVar

from fastapi.concurrency import run_in_threadpool
from sqlalchemy.orm import Session, sessionmaker

from ..clients.address import network_of
from ..limits.cpu import CpuBudget
from ..limits.daily import client_key
from ..limits.rate import Hit, RateLimiter, too_many
from ..records.owners import Holder
from ..records.records import Finished, check_name, could_be_game_id
from . import asked, finishing, moving
from .answer import Position
from .stores import MOVE_CONNECTIONS, LiveStore

#: The threads that play moves on a store whose driver blocks (PostgreSQL, Redis): as many as
#: the store keeps connections for moves. Handing a move to a pool of our own through the event
#: loop's executor costs about two thirds of anyio's ``run_in_threadpool`` (no limiter, no
#: context copy; bench/server.md).
_MOVERS: list[ThreadPoolExecutor] = []
T = TypeVar("T")


def _movers() -> ThreadPoolExecutor:
    if not _MOVERS:
        _MOVERS.append(ThreadPoolExecutor(MOVE_CONNECTIONS, thread_name_prefix="moves"))
    return _MOVERS[0]


class Runner:
    """Runs the requests of games in play for one app (see the module's docstring)."""

    def __init__(self, store: LiveStore, secret: str, sessions: sessionmaker[Session], *,
                 limiters: dict[str, RateLimiter], cpu_budget: CpuBudget, hint_budget: CpuBudget,
                 hint_time: float, checking: Callable[[int, Any, str, int], dict[str, Any]] | None = None,
                 finished: Callable[[], None] = lambda: None, names_per_day: int = 0) -> None:
        self.store, self.secret, self.sessions = store, secret, sessions
        #: Names a network may newly hold a UTC day (0: any number; ``records.owners.Holder``).
        self.names_per_day = names_per_day
        self.limiters, self.cpu_budget, self.hint_budget, self.hint_time = (limiters, cpu_budget,
                                                                            hint_budget, hint_time)
        #: What a ranked players' finish gets for its engine-like check (``reviews.checks``): the
        #: server's own work, not charged to the finishing client.
        self.checking = checking and self._aside(checking)
        #: Called after each finish (the app clears its cached leaderboards, wakes the checker).
        self.finished = finished
        self.commits = store.commits
        moves = limiters["moves"]
        self._limited = bool(moves.items)
        # on Redis with the limits in the same Redis, the store makes the count in the move's own
        # round trip (a ``Hit``); elsewhere the limiter counts in this process or in its own Redis
        self._in_store = moves.redis_url is not None and moves.redis_url == getattr(store, "redis_url", None)
        # a game kept here is played from the event loop where the store saves without a thread and
        # the count needs no round trip of its own
        self.on_loop = bool(store.saves_async) and (not self._limited or moves.redis_url is None
                                                    or self._in_store)

    def _aside(self, work: Callable[..., T]) -> Callable[..., T]:
        def unbilled(*args: Any) -> T:
            with self.cpu_budget.aside():
                return work(*args)
        return unbilled

    def seat(self) -> AbstractContextManager[None]:
        """Held by a transport while it may send moves (a socket while open, an HTTP move while in
        hand): on SQLite, moves from two or more seats share commits (``commits.GroupCommit``)."""
        return self.commits.mover() if self.commits is not None else nullcontext()

    def count(self, scope: str, client: str) -> None:
        """Count one request of ``scope`` against ``client``'s rate limit; 429 past it."""
        too_many(self.limiters[scope].check(scope, client), scope)

    async def exists(self, game_id: str) -> bool:
        """Whether game ``game_id`` is in the store (a socket opens only for a game that is)."""
        if not could_be_game_id(game_id):
            return False
        if self.store.in_process:
            return self.store.load(game_id, log=False) is not None
        return await run_in_threadpool(self.store.load, game_id, log=False) is not None

    def count_move(self, client: str) -> Hit | None:
        """Count one moves request against ``client``'s limit: now (429 past it), or a ``Hit`` the
        store makes in the move's own round trip."""
        if not self._limited:
            return None
        limiter = self.limiters["moves"]
        if self._in_store:
            return Hit(limiter, "moves", client)
        too_many(limiter.check("moves", client))
        return None

    async def move(self, client: str, game_id: str, *, token: str, at: int, moves: str,
                   skip_illegal: bool = False) -> Position:
        """``moving.play`` for ``client``, run as this store runs a move (see the module)."""
        commits = self.commits
        if commits is not None:
            with commits:  # the moves of this turn of the loop share one commit
                moved = self._play(client, game_id, token, at, moves, skip_illegal, self.count_move(client))
            await moving.committed(commits, game_id)
            return moved
        if not self.on_loop:  # the count is a round trip of its own: on the move's thread
            return await asyncio.get_running_loop().run_in_executor(
                _movers(), self._play, client, game_id, token, at, moves, skip_illegal, None, False)
        hit = self.count_move(client)
        kept = await moving.play_kept(self.store, self.secret, game_id, token=token, at=at, moves=moves,
                                      skip_illegal=skip_illegal, hit=hit)
        if kept is not None:
            return kept
        # what play_kept leaves reads the store, whose drivers block: a thread, the move counted
        return await asyncio.get_running_loop().run_in_executor(
            _movers(), self._play, client, game_id, token, at, moves, skip_illegal, hit)

    def _play(self, client: str, game_id: str, token: str, at: int, moves: str, skip_illegal: bool,
              hit: Hit | None, counted: bool = True) -> Position:
        if not counted:
            hit = self.count_move(client)
        return moving.play(self.store, self.secret, game_id, token=token, at=at, moves=moves,
                           charge=self.charge(client), skip_illegal=skip_illegal, hit=hit)

    def charge(self, client: str) -> Callable[[], AbstractContextManager[None]]:
        """What a retry from far back costs: a replay, counted like a finish and measured against
        the client's CPU budget (``with charge(): ...replay...``)."""
        return _Charge(self, client)

    # State, hints and finishes run on a thread. ``count``: the request is counted there first (the
    # socket's messages; an HTTP route counts in its dependency): with the limits in Redis a count
    # is a round trip, which must not hold the event loop.

    async def _off_loop(self, scope: str | None, client: str, work: Callable[[], T]) -> T:
        def run() -> T:
            if scope is not None:
                self.count(scope, client)
            return work()

        return await run_in_threadpool(run)

    async def state(self, client: str, game_id: str, *, token: str, count: bool = False) -> moving.State:
        """Where a game in play stands, and its log."""
        return await self._off_loop("moves" if count else None, client,
                                    lambda: moving.state(self.store, self.secret, game_id, token=token))

    async def hint(self, client: str, game_id: str, *, token: str, at: int,
                   count: bool = False) -> moving.Hint:
        """The solver's move for a game in play (marked helped first); the solver's time counts
        against ``client``'s hint budget."""

        def solve(board: list[list[int]]) -> moving.Hint:
            from ...solver import hint

            with self.hint_budget.spend(client, "hint"):
                return hint(board, self.hint_time)

        return await self._off_loop("hint" if count else None, client, lambda: moving.hint(
            self.store, self.secret, game_id, token=token, at=at, solve=solve))

    async def finish(self, client: str, game_id: str, *, token: str, name: str | None, log: str | None = None,
                     helped: bool = False, abandoned: bool = False, name_key: str | None = None,
                     count: bool = False) -> Finished:
        """``finishing.finish``, its replay measured against ``client``'s CPU budget."""
        return await self._off_loop("games" if count else None, client, lambda: self._finish(
            client, game_id, token, name, log, helped, abandoned, name_key))

    def _finish(self, client: str, game_id: str, token: str, name: str | None, log: str | None, helped: bool,
                abandoned: bool, name_key: str | None) -> Finished:
        name = None if name is None else check_name(name)  # before any work: a bad name is not a bad game
        holder = Holder(client_key(self.secret, f"names:{network_of(client)}"), self.names_per_day)
        with self.cpu_budget.spend(client, "finish"):
            done = finishing.finish(self.store, self.sessions, self.secret, game_id, token=token, name=name,
                                    log=log, helped=helped, abandoned=abandoned, name_key=name_key,
                                    charge=self.charge(client), checking=self.checking,
                                    client=asked.client_of(self.secret, client), holder=holder)
        self.finished()
        return done


class _Charge:
    """``Runner.charge``'s answer: made for every move, used only by a retry from far back."""

    __slots__ = ("client", "runner")

    def __init__(self, runner: Runner, client: str) -> None:
        self.runner, self.client = runner, client

    @contextmanager
    def __call__(self) -> Iterator[None]:
        self.runner.count("games", self.client)
        with self.runner.cpu_budget.spend(self.client, "retry"):
            yield
