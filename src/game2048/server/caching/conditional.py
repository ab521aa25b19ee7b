"""Answers for things that never change (a finished game): ``ETag``, ``Cache-Control``, and 304.

The ETag is a digest of the body itself, so it changes exactly when what the
client would get changes (another language, a new release of the page), and
nothing has to be remembered to answer ``If-None-Match``.

>>> etag(b"{}")
'"44136fa355b3678a1146ad16f7e8649e"'
>>> matches('W/"a", "44136fa355b3678a1146ad16f7e8649e"', etag(b"{}"))
True
"""

from __future__ import annotations

import hashlib

from starlette.requests import Request
from starlette.responses import Response

#: A finished game's record: it cannot change, but the JSON shape may grow with a release.
RECORD_CACHE = "public, max-age=3600"
#: A finished game's page: also depends on the language (cookie, Accept-Language).
PAGE_CACHE = "public, max-age=300"


def etag(body: bytes) -> str:
    return '"' + hashlib.sha256(body).hexdigest()[:32] + '"'


def matches(if_none_match: str | None, tag: str) -> bool:
    """Whether an ``If-None-Match`` header names ``tag`` (weak comparison, as RFC 9110 asks)."""
    if not if_none_match:
        return False
    if if_none_match.strip() == "*":
        return True
    return any(t.strip().removeprefix("W/") == tag for t in if_none_match.split(","))


def cached(request: Request, response: Response, cache_control: str, vary: str | None = None) -> Response:
    """``response`` with its ETag and Cache-Control, or a 304 with the same headers when the
    client already holds this body. A response that sets a cookie is cacheable by the browser only."""
    tag = etag(bytes(response.body))
    if "set-cookie" in response.headers:
        cache_control = cache_control.replace("public", "private")
    headers = {"ETag": tag, "Cache-Control": cache_control}
    if vary:
        headers["Vary"] = vary
    if matches(request.headers.get("if-none-match"), tag):
        not_modified = Response(status_code=304, headers=headers)
        for value in response.headers.getlist("set-cookie"):
            not_modified.headers.append("set-cookie", value)
        return not_modified
    response.headers.update(headers)
    return response
