"""Which browser a request comes from: an id the server issues, in a signed HttpOnly cookie.

Daily tries are counted per browser (and per network, ``address.network_of``).
The id means nothing but "the same browser as before": it is random, it is
signed with the server's secret so nobody can choose one, and a browser that
drops it (or never keeps cookies) is simply a new browser, counted on its
network's allowance like any other.

>>> value = sign("k", "abc"); read("k", value), read("k", "abc.0"), read("k", "x")
('abc', None, None)
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from starlette.requests import HTTPConnection
from starlette.responses import Response

COOKIE = "game2048_browser"
#: As long as browsers keep a cookie at most (400 days); each new daily game renews it.
MAX_AGE = 400 * 24 * 3600


def _mac(secret: str, browser: str) -> str:
    return hmac.new(secret.encode(), f"browser:{browser}".encode(), hashlib.sha256).hexdigest()[:32]


def sign(secret: str, browser: str) -> str:
    return f"{browser}.{_mac(secret, browser)}"


def read(secret: str, value: str | None) -> str | None:
    """The browser id in a cookie's value, or None if there is none or its signature is not ours."""
    if not value or len(value) > 128:
        return None
    browser, _, mac = value.rpartition(".")
    if not browser or not hmac.compare_digest(mac.encode("utf-8", "replace"), _mac(secret, browser).encode()):
        return None
    return browser


def browser_of(connection: HTTPConnection, secret: str) -> tuple[str, bool]:
    """The request's browser id, and whether it is new (then ``remember`` it in the answer)."""
    known = read(secret, connection.cookies.get(COOKIE))
    return (known, False) if known else (secrets.token_urlsafe(12), True)


def remember(response: Response, connection: HTTPConnection, secret: str, browser: str) -> None:
    """Set (or renew) the browser's cookie: HttpOnly, SameSite=Lax, Secure over HTTPS."""
    response.set_cookie(COOKIE, sign(secret, browser), max_age=MAX_AGE, path="/", httponly=True,
                        samesite="lax", secure=connection.url.scheme in ("https", "wss"))
