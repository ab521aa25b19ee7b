"""A budget of server CPU time per client address, for work a client can make the server do.

Verifying a record (replaying its log) and drawing a long game's page cost
real CPU time, up to seconds for a long 6×6 game. Request rate limits do not
bound that, so this module counts what the work actually cost: the CPU time
of the thread that did it (``time.thread_time``), charged to the client's
address in a sliding window (``"10/minute"``: ten CPU seconds a minute). A
client whose budget is spent is refused with 429 and ``Retry-After`` before
any work starts.

Work the server does for itself inside a client's block (the engine-like check
of a finish, and a solver's first compile with it) runs under ``aside()`` and is
not charged. A refused verification is charged ``refusal_weight`` times its cost, and its
fingerprint (kind, game, log) is remembered: the same record sent again is
refused at once with the first answer, at no cost.

Use it as a dependency in a route that runs in the thread pool (a plain
``def`` route), around the work itself::

    @router.post("/records")
    def post_record(body: RecordIn, verify: Verifier) -> RecordOut:
        with verify("record", body.size, body.seed, body.log):
            return games.check_record(...)

>>> budget = CpuBudget("1/minute")
>>> with budget.spend("10.0.0.1", "finish", ("g1", "LLRR")):
...     pass
>>> budget.check("10.0.0.1") is None
True
"""

from __future__ import annotations

import hashlib
import logging
import math
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Any

from fastapi import Depends, Request
from limits import RateLimitItem, parse_many
from limits.storage import MemoryStorage, storage_from_string
from limits.strategies import SlidingWindowCounterRateLimiter

from .. import metrics
from ..clients.address import client_address
from ..config import DEFAULT_CPU_BUDGET
from ..errors import ClientError

log = logging.getLogger(__name__)

#: A refused verification costs this many times its CPU time.
REFUSAL_WEIGHT = 4
#: How many refused fingerprints each process remembers.
REMEMBERED = 4096


class CpuBudget:
    """``spend(client, kind, key)`` measures and charges work; ``check(client)`` refuses a spent client."""

    def __init__(self, spec: str = DEFAULT_CPU_BUDGET, redis_url: str | None = None,
                 refusal_weight: float = REFUSAL_WEIGHT, remembered: int = REMEMBERED,
                 namespace: str = "cpu") -> None:
        spec = spec.strip()
        # counted in CPU milliseconds, so that one window holds a whole number of units
        self.items: list[RateLimitItem] = [] if spec in ("", "0", "off") else [
            type(item)(item.amount * 1000, item.multiples, item.namespace) for item in parse_many(spec)
        ]
        self.storage = storage_from_string(redis_url) if redis_url and self.items else MemoryStorage()
        self.strategy = SlidingWindowCounterRateLimiter(self.storage)
        self.refusal_weight = refusal_weight
        self.remembered = remembered
        self._refused: OrderedDict[bytes, str] = OrderedDict()
        self._lock = threading.Lock()
        self._aside = threading.local()  # per thread: CPU seconds of ``aside()`` blocks so far
        self.namespace = namespace  # the budget's name in the limit store and in metrics

    def check(self, client: str) -> None:
        """Raise ClientError(429) if ``client`` has no CPU time left in some window."""
        wait = 0.0
        for item in self.items:
            try:
                if self.strategy.test(item, self.namespace, client):
                    continue
                reset = self.strategy.get_window_stats(item, self.namespace, client).reset_time
            except Exception:  # a limit store that is down must not take the game down with it
                log.exception("CPU budget store unavailable; letting the request through")
                return
            wait = max(wait, reset - time.time(), 1.0)
        if wait:
            metrics.RATE_LIMITED.labels(self.namespace).inc()
            seconds = math.ceil(wait)
            raise ClientError(429, f"this address used its share of the server's CPU time; "
                                   f"try again in {seconds} s", {"Retry-After": str(seconds)},
                              code="cpu_spent", fields={"retry_after": seconds})

    def charge(self, client: str, seconds: float) -> None:
        """Count ``seconds`` of CPU time against ``client`` (up to what each window has left)."""
        cost = math.ceil(seconds * 1000)
        for item in self.items:
            try:
                left = self.strategy.get_window_stats(item, self.namespace, client).remaining
                if left > 0:
                    self.strategy.hit(item, self.namespace, client, cost=min(cost, left))
            except Exception:
                log.exception("CPU budget store unavailable; not counting")
                return

    @contextmanager
    def spend(self, client: str, kind: str, key: tuple[Any, ...] | None = None) -> Iterator[None]:
        """Run the block as ``client``'s work of ``kind``: measured, charged, and counted in metrics.

        With ``key`` (what identifies the work, e.g. game id and log), a block
        that ends in a 422 ClientError is remembered, and the same key is
        refused at once the next time. The block must run in this thread.
        """
        print_ = _fingerprint(kind, key) if key is not None else None
        if print_ is not None:
            with self._lock:
                earlier = self._refused.get(print_)
            if earlier is not None:
                metrics.observe_verification(kind, "repeated", 0.0)
                raise ClientError(422, f"this record was refused before: {earlier}")
        self.check(client)
        start = time.thread_time() - getattr(self._aside, "seconds", 0.0)

        def spent() -> float:
            return time.thread_time() - getattr(self._aside, "seconds", 0.0) - start

        try:
            yield
        except ClientError as exc:
            used = spent()
            refused = exc.status == 422
            self.charge(client, used * (self.refusal_weight if refused else 1))
            metrics.observe_verification(kind, "refused" if refused else "error", used)
            if refused and print_ is not None:
                self._remember(print_, exc.message)
            raise
        except BaseException:
            self.charge(client, spent())
            raise
        else:
            used = spent()
            self.charge(client, used)
            metrics.observe_verification(kind, "accepted", used)

    @contextmanager
    def aside(self) -> Iterator[None]:
        """The block is the server's own work: the ``spend`` around it, in this thread, does not
        charge its CPU time."""
        start = time.thread_time()
        try:
            yield
        finally:
            self._aside.seconds = getattr(self._aside, "seconds", 0.0) + time.thread_time() - start

    def _remember(self, print_: bytes, message: str) -> None:
        with self._lock:
            self._refused[print_] = message
            self._refused.move_to_end(print_)
            while len(self._refused) > self.remembered:
                self._refused.popitem(last=False)


def _fingerprint(kind: str, key: tuple[Any, ...]) -> bytes:
    digest = hashlib.sha256(kind.encode())
    for part in key:
        digest.update(b"\0" + str(part).encode("utf-8", "surrogatepass"))
    return digest.digest()


class Verification:
    """What the ``Verifier`` dependency hands a route: ``with verify(kind, *key): ...``."""

    def __init__(self, budget: CpuBudget, client: str) -> None:
        self.budget = budget
        self.client = client

    def __call__(self, kind: str, *key: Any) -> Any:
        return self.budget.spend(self.client, kind, key or None)


def _verification(request: Request) -> Verification:
    budget: CpuBudget = request.app.state.cpu_budget
    client = client_address(request)
    budget.check(client)  # a spent client is refused before its body is even looked at
    return Verification(budget, client)


#: A route parameter ``verify: Verifier`` checks the client's budget and measures the work.
Verifier = Annotated[Verification, Depends(_verification)]
