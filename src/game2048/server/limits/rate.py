"""Rate limits per client address: in-process, or shared through Redis by several workers.

>>> limiter = RateLimiter("2/minute")
>>> [limiter.check("games", "10.0.0.1") for _ in range(3)][:2]
[None, None]
>>> limiter.check("games", "10.0.0.1") > 0   # seconds to wait
True
>>> RateLimiter("0").check("games", "10.0.0.1") is None
True
"""

from __future__ import annotations

import logging
import math
import time

from limits import RateLimitItem, parse_many
from limits.storage import MemoryStorage, storage_from_string
from limits.strategies import MovingWindowRateLimiter

from ..ops import metrics

log = logging.getLogger(__name__)


class RateLimiter:
    """``check(scope, client)`` counts one request; returns None, or the seconds to wait.

    ``spec`` is ``"120/minute"`` (several joined by ``;``, e.g. ``"10/second;120/minute"``)
    or ``"0"`` for no limit. With ``redis_url`` the counters live in Redis, so
    every worker sees the same counts.
    """

    def __init__(self, spec: str, redis_url: str | None = None) -> None:
        spec = spec.strip()
        self.items: list[RateLimitItem] = [] if spec in ("", "0", "off") else parse_many(spec)
        self.storage = storage_from_string(redis_url) if redis_url and self.items else MemoryStorage()
        self.strategy = MovingWindowRateLimiter(self.storage)

    @property
    def enabled(self) -> bool:
        return bool(self.items)

    def check(self, scope: str, client: str) -> int | None:
        wait: float | None = None
        for item in self.items:
            try:
                if self.strategy.hit(item, scope, client):
                    continue
                reset = self.strategy.get_window_stats(item, scope, client).reset_time
            except Exception:  # a limit store that is down must not take the game down with it
                log.exception("rate limit store unavailable; letting the request through")
                return None
            wait = max(wait or 0.0, reset - time.time())
        if wait is None:
            return None
        metrics.RATE_LIMITED.labels(scope).inc()
        return max(1, math.ceil(wait))
