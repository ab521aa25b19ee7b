"""The daily game's tries: how many a browser and a network may start per size and UTC day.

A try is counted against the browser (an id the server issued, ``limits.browser``)
and its network (the IPv4 address, the IPv6 /64), each with its own allowance,
so that players behind one address are not locked out by each other: past the
network's, a browser with tries of its own left plays unranked. The store
keeps a keyed hash of each, never the address (``client_key``). The allowances are
settings (``config``: GAME2048_DAILY_TRIES, GAME2048_DAILY_TRIES_PER_NETWORK).
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from ..errors import ClientError


@dataclass(frozen=True)
class Tries:
    """Who starts a daily game, as its tries are counted: the browser and the network (None: not
    counted by that), each with its allowance."""

    browser: str | None
    network: str | None
    per_browser: int
    per_network: int


def client_key(secret: str, address: str) -> str:
    """What the server keeps of a client to count its daily tries: a keyed hash, not the address."""
    return hmac.new(secret.encode(), f"client:{address}".encode(), hashlib.sha256).hexdigest()


def count_try(store: Any, secret: str, tries: Tries, day: date, size: int,
              now: datetime) -> tuple[int | None, bool]:
    """Count one daily try in ``store`` (the live store) against the network's and the browser's
    allowances: the tries left for the browser, and whether the try is ranked. Past the network's
    allowance a browser with tries of its own left plays unranked (a household behind one address,
    a new browser of a player who cleared cookies: let in, never on the board); past the browser's,
    or the network's with no browser counted, ClientError (429, code ``daily_tries_used``) counting
    nothing."""
    counted: list[str] = []
    left, ranked = None, True
    for per, who, limit in (("network", tries.network, tries.per_network),
                            ("browser", tries.browser, tries.per_browser)):
        if who is None:
            continue
        key = client_key(secret, f"{per}:{who}")
        used = store.count_try(key, day, size, limit)
        if not used and per == "network" and tries.browser is not None:
            ranked = False
            continue
        if not used:
            for done in counted:
                store.uncount_try(done, day, size)
            raise _used_up(per, limit, size, day, now)
        counted.append(key)
        if per == "browser":
            left = limit - used
    return left, ranked


def _used_up(per: str, limit: int, size: int, day: date, now: datetime) -> ClientError:
    next_day = datetime.combine(day + timedelta(days=1), time(0), UTC)
    wait = int((next_day - now).total_seconds()) + 1
    whom = "this browser has" if per == "browser" else "browsers on this network have"
    return ClientError(
        429, f"{whom} started today's {size}x{size} daily game {limit} times; the next one comes at "
             "00:00 UTC", {"Retry-After": str(wait)}, code="daily_tries_used",
        fields={"per": per, "limit": limit, "tries": limit, "size": size, "retry_after": wait,
                "next_day": next_day.isoformat(), "next_at": next_day.isoformat().replace("+00:00", "Z")})
