"""Security headers on every HTTP answer: a strict Content-Security-Policy and its companions.

Scripts come only from this origin's files: no inline script, no ``eval``,
no inline event handlers (pages may carry ``<script type="application/json">``
data blocks, which are not executed). Nothing may frame the site. One
exception, narrow by construction: the game page carries its own scripts
inside it (web/bundle.py says why), and its answer names that one script by
its SHA-256 (``policy(script_hashes)``); a script injected into the page
would have another hash and does not run. The middleware keeps a policy an
answer set for itself.

Styles are the one relaxation: ``style-src 'self' 'unsafe-inline'``. The
pages' ``<style>`` blocks, a few ``style=""`` attributes, the pygal charts
(inline SVG with their own ``<style>``) and Swagger UI use inline styles.
Nonces would defeat the ``ETag``/304 of immutable pages (a cached body keeps
an old nonce), and hashes would have to be computed over every page after
rendering, which would also bless any style an attacker managed to inject.
Inline styles cannot run script; what they could do (exfiltrate text by
loading a URL per matching selector) is closed by ``img-src``/``font-src``/
``connect-src 'self'``, and every name and value on the pages is escaped.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

_DIRECTIVES = [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "worker-src 'self'",
    "manifest-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
]
CONTENT_SECURITY_POLICY = "; ".join(_DIRECTIVES)


def policy(script_hashes: tuple[str, ...] = ()) -> str:
    """The policy, with inline scripts of these hashes (``'sha256-…'``) allowed to run."""
    return "; ".join(" ".join([d, *script_hashes]) if d == "script-src 'self'" else d for d in _DIRECTIVES)


HEADERS: list[tuple[bytes, bytes]] = [
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"strict-origin-when-cross-origin"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
]
_NAMES = {name for name, _ in HEADERS}
_CSP = b"content-security-policy"


class SecurityHeaders:
    """Pure ASGI middleware: adds ``HEADERS`` to every HTTP answer (WebSockets pass untouched)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = message.get("headers", [])
                own = [(_CSP, v) for k, v in headers if k.lower() == _CSP][:1]  # the game page's
                kept = [(k, v) for k, v in headers if k.lower() not in _NAMES]
                added = [(k, v) for k, v in HEADERS if not (own and k == _CSP)]
                message = {**message, "headers": kept + own + added}
            await send(message)

        await self.app(scope, receive, with_headers)
