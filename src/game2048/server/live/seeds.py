"""What the server issues: classic seeds, daily seeds and game tokens.

Every seed the server deals from is a secret seed (128 bits, 32 hex digits,
``spawn.secret_seed``): no tile can be worked out from the tiles already dealt
by searching the seeds. Daily seeds and tokens are HMAC-SHA256 of the server's
secret, so every worker that shares the secret agrees on them and nobody
without it can predict them.

>>> daily_seed("k", date(2026, 1, 1), 4) == daily_seed("k", date(2026, 1, 1), 4)
True
>>> daily_seed("k", date(2026, 1, 1), 4) != daily_seed("k", date(2026, 1, 1), 5)
True
>>> check_token("k", "abc", game_token("k", "abc"))
True
"""

from __future__ import annotations

import hashlib
import hmac
from datetime import date

from ...spawn import SECRET_SEED_BITS, secret_seed


def _mac(secret: str, message: str) -> bytes:
    return hmac.new(secret.encode(), message.encode(), hashlib.sha256).digest()


def classic_seed() -> str:
    """A fresh secret seed (128 random bits)."""
    return secret_seed()


def daily_seed(secret: str, day: date, size: int) -> str:
    """The secret seed everyone gets for the daily game of ``day`` (UTC) on a size x size board."""
    return _mac(secret, f"daily:{day.isoformat()}:{size}")[:SECRET_SEED_BITS // 8].hex()


def game_token(secret: str, game_id: str) -> str:
    """The token that proves the holder started game ``game_id``; needed to finish it."""
    return _mac(secret, f"token:{game_id}")[:18].hex()


def check_token(secret: str, game_id: str, token: str) -> bool:
    return hmac.compare_digest(game_token(secret, game_id).encode(), token.encode("utf-8", "replace"))
