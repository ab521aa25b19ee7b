"""The operators' sign-in: a password whose hash the operator sets, a signed session cookie, and a
form token against cross-site requests.

``/mod`` is closed (404) unless ``GAME2048_MOD_PASSWORD_HASH`` holds a hash made by
``password_hash`` (``game2048 mod password``). Signing in names the operator (kept in the audit
log) and sets a cookie that is Secure, HttpOnly and SameSite=Strict; it holds the name, its
expiry and an HMAC under the server's secret, nothing to look up. Every form carries a token
derived from the session (``form_token``), checked on each post. Wrong passwords are limited
per client by the route (the ``login`` limiter).

>>> stored = password_hash("correct horse", salt=b"0" * 16)
>>> password_ok(stored, "correct horse"), password_ok(stored, "wrong")
(True, False)
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import time

COOKIE = "g2048_mod"
#: How long a sign-in lasts.
SESSION_SECONDS = 8 * 3600
#: scrypt's cost (RFC 7914): about 16 MiB and 50 ms a try.
_N, _R, _P = 2**14, 8, 1


def password_hash(password: str, salt: bytes | None = None) -> str:
    """``scrypt$n$r$p$salt$hash``, for GAME2048_MOD_PASSWORD_HASH."""
    salt = salt or secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=_N, r=_R, p=_P, dklen=32)
    return "$".join(["scrypt", str(_N), str(_R), str(_P), salt.hex(), digest.hex()])


def password_ok(stored: str, password: str) -> bool:
    try:
        kind, n, r, p, salt, digest = stored.split("$")
        tried = hashlib.scrypt(password.encode(), salt=bytes.fromhex(salt), n=int(n), r=int(r), p=int(p),
                               dklen=len(digest) // 2)
    except (ValueError, MemoryError):
        return False
    return kind == "scrypt" and hmac.compare_digest(tried.hex(), digest)


def session_token(secret: str, operator: str, now: float | None = None) -> str:
    """The cookie's value: who signed in, until when, signed."""
    until = int((now or time.time()) + SESSION_SECONDS)
    body = base64.urlsafe_b64encode(f"{until}:{operator}".encode()).decode()
    return f"{body}.{_sign(secret, body)}"


def operator_of(secret: str, token: str | None, now: float | None = None) -> str | None:
    """The operator a cookie names, if it is ours and has not expired."""
    if not token or token.count(".") != 1:
        return None
    body, signature = token.split(".")
    if not hmac.compare_digest(signature, _sign(secret, body)):
        return None
    try:
        until, operator = base64.urlsafe_b64decode(body.encode()).decode().split(":", 1)
        return operator if int(until) > (now or time.time()) else None
    except ValueError:
        return None


def form_token(secret: str, token: str) -> str:
    """The token every form of a session carries (a cross-site page cannot know it)."""
    return _sign(secret, f"form:{token}")


def _sign(secret: str, text: str) -> str:
    return hmac.new(secret.encode(), f"mod:{text}".encode(), hashlib.sha256).hexdigest()
