"""Rate limits per client address: in-process, or shared through Redis by several workers.

>>> limiter = RateLimiter("2/minute")
>>> [limiter.check("games", "10.0.0.1") for _ in range(3)][:2]
[None, None]
>>> limiter.check("games", "10.0.0.1") > 0   # seconds to wait
True
>>> RateLimiter("0").check("games", "10.0.0.1") is None
True

A request may also be counted inside a store's own round trip (``Hit``, ``HITS_LUA``):
the Redis store counts a move in its move's script, with the same moving window
on the same keys as ``check``, so one move costs one round trip to Redis.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections import deque
from collections.abc import Sequence

from limits import RateLimitItem, parse_many
from limits.storage import RedisStorage, storage_from_string
from limits.strategies import MovingWindowRateLimiter

from .. import metrics
from ..errors import ClientError

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
        #: The Redis the counts are kept in (None: in this process), for a store that counts a
        #: request in its own round trip to the same Redis (``Hit``).
        self.redis_url = redis_url if redis_url and self.items else None
        #: in Redis, ``limits``' moving window; in this process the same windows of our own, for a
        #: fifth of ``limits``' cost (a move is counted on every key: 5 to 8 us of a move's 90 there)
        self.storage = storage_from_string(self.redis_url) if self.redis_url else None
        self.strategy = MovingWindowRateLimiter(self.storage) if self.storage is not None else None
        self._windows = _Windows(self.items) if self.items and self.storage is None else None

    @property
    def enabled(self) -> bool:
        return bool(self.items)

    def check(self, scope: str, client: str) -> int | None:
        if self._windows is not None:
            return self._refused(scope, self._windows.hit(scope, client))
        if self.strategy is None:  # no limit
            return None
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
        return self._refused(scope, wait)

    def _refused(self, scope: str, wait: float | None) -> int | None:
        if wait is None:
            return None
        metrics.RATE_LIMITED.labels(scope).inc()
        return max(1, math.ceil(wait))

    def redis_hits(self, scope: str, client: str) -> tuple[list[str], list[float | int]]:
        """What ``HITS_LUA`` needs to count one request as ``check`` does, in the limiter's Redis:
        the keys (a list of entry times per limit, as ``limits`` keeps them) and the arguments
        (now, then each limit's amount and window in seconds)."""
        assert isinstance(self.storage, RedisStorage)
        keys = [self.storage.prefixed_key(item.key_for(scope, client)) for item in self.items]
        args: list[float | int] = [time.time()]
        for item in self.items:
            args += [item.amount, item.get_expiry()]
        return keys, args

    def redis_refused(self, scope: str, oldest: Sequence[bytes | str]) -> int | None:
        """What ``check`` answers, given what ``HITS_LUA`` returned: for each limit that refused,
        the time of the oldest entry still in its window (the window ends its window after it)."""
        wait: float | None = None
        for item, start in zip(self.items, oldest, strict=True):
            if start not in (b"", ""):
                wait = max(wait or 0.0, float(start) + item.get_expiry() - time.time())
        return self._refused(scope, wait)


class _Windows:
    """``limits``' moving windows (``MovingWindowRateLimiter`` on its memory storage) for one
    process: per limit and client, the times of the last requests counted, at most the limit's
    amount of them. A request is counted against every limit that has room (fewer than its amount
    counted in the window before it, a time exactly a window old still inside, as ``limits``
    counts); the wait is until the oldest entry of the fullest refusing limit leaves its window.
    Clients gone quiet for a whole window are let go every ``SWEEP`` requests.

    >>> windows = _Windows(parse_many("2/second"))
    >>> windows.hit("moves", "a"), windows.hit("moves", "a"), windows.hit("moves", "b")
    (None, None, None)
    >>> 0 < windows.hit("moves", "a") <= 1
    True
    """

    SWEEP = 4096

    def __init__(self, items: Sequence[RateLimitItem]) -> None:
        self.limits = [(item.amount, float(item.get_expiry())) for item in items]
        self.longest = max(expiry for _, expiry in self.limits)
        self.times: dict[tuple[int, str, str], deque[float]] = {}
        self.lock = threading.Lock()
        self.hits = 0

    def hit(self, scope: str, client: str) -> float | None:
        """Count one request; None if every limit took it, else the seconds to wait."""
        now = time.time()
        wait: float | None = None
        times = self.times
        with self.lock:
            for i, (amount, expiry) in enumerate(self.limits):
                key = (i, scope, client)
                kept = times.get(key)
                if kept is None:
                    kept = times[key] = deque(maxlen=amount)
                cutoff = now - expiry
                while kept and kept[0] < cutoff:
                    kept.popleft()
                if len(kept) < amount:
                    kept.append(now)
                else:
                    wait = max(wait or 0.0, kept[0] + expiry - now)
            self.hits += 1
            if self.hits >= self.SWEEP:
                self.hits = 0
                quiet = now - self.longest
                for key in [k for k, kept in times.items() if not kept or kept[-1] < quiet]:
                    del times[key]
        return wait


#: A Lua function counting one request against each limit, as ``limits``' moving window does
#: (``acquire_moving_window.lua``, and ``moving_window.lua`` for a refusal), for a script of a
#: store to begin with: ``local refused = hits(first_key, first_arg)`` counts in ``KEYS[first_key..]``
#: with ``ARGV[first_arg]`` the time now and then an amount and a window (s) per key. It answers a
#: list with one string per limit: "" if it counted, else the time of the oldest entry in the window
#: (every limit is counted, or refused, as ``check`` does), and whether any limit refused.
HITS_LUA = """
local function hits(first_key, first_arg)
  local now = tonumber(ARGV[first_arg])
  local out, refused = {}, false
  for i = first_key, #KEYS do
    local j = first_arg + 1 + 2 * (i - first_key)
    local limit, expiry = tonumber(ARGV[j]), tonumber(ARGV[j + 1])
    local entry = limit >= 1 and redis.call('LINDEX', KEYS[i], limit - 1)
    if limit >= 1 and not (entry and tonumber(entry) >= now - expiry) then
      redis.call('LPUSH', KEYS[i], now)
      redis.call('LTRIM', KEYS[i], 0, limit - 1)
      redis.call('EXPIRE', KEYS[i], expiry)
      out[#out + 1] = ''
    else
      refused = true
      local low, high, oldest = 0, limit - 1, nil
      while low <= high do
        local mid = math.floor((low + high) / 2)
        local value = tonumber(redis.call('LINDEX', KEYS[i], mid))
        if value and value >= now - expiry then
          oldest, low = value, mid + 1
        else
          high = mid - 1
        end
      end
      out[#out + 1] = string.format('%.6f', oldest or now)
    end
  end
  return out, refused
end
"""


class Hit:
    """One request of ``scope`` counted against ``limiter``: by a store that folds the count into its
    own round trip to the limiter's Redis (``keys_args``, then ``settle``), or on its own
    (``count``). Counted once, whichever comes first; 429 (``ClientError``) if refused."""

    def __init__(self, limiter: RateLimiter, scope: str, client: str) -> None:
        self.limiter, self.scope, self.client = limiter, scope, client
        self.counted = False

    def keys_args(self) -> tuple[list[str], list[float | int]]:
        return self.limiter.redis_hits(self.scope, self.client)

    def settle(self, oldest: Sequence[bytes | str]) -> None:
        """Take what the store's script answered for the count (see ``HITS_LUA``)."""
        self.counted = True
        too_many(self.limiter.redis_refused(self.scope, oldest))

    def count(self) -> None:
        """Count now, unless a store already did."""
        if not self.counted:
            self.counted = True
            too_many(self.limiter.check(self.scope, self.client))


#: The code of a scope's refusal where it says more than ``rate_limited`` (the page words each code).
SCOPE_CODES = {"board_hint": "hints_paced"}


def too_many(wait: int | None, scope: str = "") -> None:
    """The 429 of a refused count of ``scope`` (``wait``: the seconds to wait), or nothing (None)."""
    if wait is not None:
        raise ClientError(429, f"too many requests; try again in {wait} s", {"Retry-After": str(wait)},
                          code=SCOPE_CODES.get(scope, "rate_limited"), fields={"retry_after": wait})
