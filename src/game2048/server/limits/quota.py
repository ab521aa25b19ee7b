"""What one client address may store a day: practice records, counted and weighed.

``check(client, size)`` refuses (429) before any work a record that would take the address past
either quota of the UTC day; ``count(client, size)`` records what was kept. Counted in Redis with
``REDIS_URL`` (all workers share the counts), else per process.

>>> quota = StorageQuota(records=2, bytes_=100)
>>> quota.check("10.0.0.1", 40); quota.count("10.0.0.1", 40)
>>> quota.check("10.0.0.1", 70)
Traceback (most recent call last):
...
game2048.server.errors.ClientError: this address stored 40 of its 100 bytes of practice records today; ...
"""

from __future__ import annotations

import logging
import math
import time

from limits import RateLimitItemPerDay
from limits.storage import MemoryStorage, storage_from_string
from limits.strategies import FixedWindowRateLimiter

from .. import metrics
from ..errors import ClientError

log = logging.getLogger(__name__)

#: Practice records one address may keep a UTC day.
DEFAULT_RECORDS_PER_DAY = 200
#: Bytes of practice records (log, name, start) one address may keep a UTC day.
DEFAULT_BYTES_PER_DAY = 4 * 1024 * 1024


class StorageQuota:
    def __init__(self, records: int = DEFAULT_RECORDS_PER_DAY, bytes_: int = DEFAULT_BYTES_PER_DAY,
                 redis_url: str | None = None) -> None:
        self.records = RateLimitItemPerDay(records) if records else None
        self.bytes = RateLimitItemPerDay(bytes_) if bytes_ else None
        on = self.records or self.bytes
        self.storage = storage_from_string(redis_url) if redis_url and on else MemoryStorage()
        self.strategy = FixedWindowRateLimiter(self.storage)

    def check(self, client: str, size: int) -> None:
        """Raise ClientError(429) if keeping ``size`` more bytes would pass a quota of today."""
        for item, cost, what in ((self.records, 1, "practice records"), (self.bytes, size, "bytes")):
            if item is None:
                continue
            try:
                stats = self.strategy.get_window_stats(item, "store", what, client)
            except Exception:  # a limit store that is down must not take the game down with it
                log.exception("storage quota store unavailable; letting the record through")
                return
            if cost > stats.remaining:
                wait = max(1, math.ceil(stats.reset_time - time.time()))
                metrics.RATE_LIMITED.labels("store").inc()
                used = item.amount - stats.remaining
                unit = "bytes of practice records" if what == "bytes" else "practice records"
                raise ClientError(429, f"this address stored {used} of its {item.amount} {unit} today; "
                                       f"try again in {wait} s", {"Retry-After": str(wait)})

    def count(self, client: str, size: int) -> None:
        """Count one kept record of ``size`` bytes."""
        for item, cost, what in ((self.records, 1, "practice records"), (self.bytes, size, "bytes")):
            if item is None:
                continue
            try:
                self.strategy.hit(item, "store", what, client, cost=cost)
            except Exception:
                log.exception("storage quota store unavailable; not counting")
                return
