"""In-process caches: short-lived leaderboard answers, and results that never change.

Reads outnumber finishes by far, and a leaderboard that is up to a second old
is as good as a fresh one. A worker clears its own cache whenever it accepts a
finish, so a player sees their own score at once; other workers catch up
within ``ttl`` seconds. Nothing here needs to be shared between workers.

>>> cache = AnswerCache(ttl=60)
>>> cache.get(("4", "classic")) is None
True
>>> cache.put(("4", "classic"), b"{}")
>>> cache.get(("4", "classic"))
b'{}'
>>> cache.clear(); cache.get(("4", "classic")) is None
True
"""

from __future__ import annotations

import threading
import time
from collections.abc import Hashable

#: Enough keys for every size, mode, recent date and limit anyone asks for.
MAX_KEYS = 512


class AnswerCache:
    def __init__(self, ttl: float = 1.0) -> None:
        self.ttl = ttl
        self._answers: dict[Hashable, tuple[float, bytes]] = {}
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> bytes | None:
        hit = self._answers.get(key)
        if hit is None or hit[0] < time.monotonic():
            return None
        return hit[1]

    def put(self, key: Hashable, body: bytes) -> None:
        if self.ttl <= 0:
            return
        with self._lock:
            if len(self._answers) >= MAX_KEYS:
                self._answers.clear()
            self._answers[key] = (time.monotonic() + self.ttl, body)

    def clear(self) -> None:
        with self._lock:
            self._answers.clear()


class BoundedLRU:
    """Least-recently-used values up to ``max_bytes`` in all (each value's size is given by the caller).

    For results that never change once made, e.g. a finished game's replay frames.

    >>> lru = BoundedLRU(max_bytes=10)
    >>> lru.put("a", "aaaaaa", 6); lru.put("b", "bbbbbb", 6)
    >>> lru.get("a") is None, lru.get("b")
    (True, 'bbbbbb')
    """

    def __init__(self, max_bytes: int) -> None:
        from collections import OrderedDict

        self.max_bytes = max_bytes
        self.size = 0
        self._values: OrderedDict[Hashable, tuple[object, int]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> object | None:
        with self._lock:
            hit = self._values.get(key)
            if hit is None:
                return None
            self._values.move_to_end(key)
            return hit[0]

    def put(self, key: Hashable, value: object, size: int) -> None:
        if size > self.max_bytes:
            return
        with self._lock:
            old = self._values.pop(key, None)
            if old is not None:
                self.size -= old[1]
            self._values[key] = (value, size)
            self.size += size
            while self.size > self.max_bytes:
                _, (_, dropped) = self._values.popitem(last=False)
                self.size -= dropped
