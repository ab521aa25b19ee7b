"""Every answer carries the security headers, and HEAD works wherever GET does."""

from __future__ import annotations

import re

import pytest

from game2048.server.http.security_headers import CONTENT_SECURITY_POLICY

PAGES = ["/", "/leaderboard", "/leaderboard?mode=daily", "/rules", "/strategy", "/boards", "/solver", "/docs",
         "/games/nosuchgame"]
API_GETS = ["/api/leaderboard", "/api/leaderboard?size=6&mode=daily", "/openapi.json", "/healthz", "/readyz",
            "/metrics", "/api/games/nosuchgame"]
STATIC = ["/static/js/app.js", "/static/css/base.css", "/static/js/replay.js", "/docs/assets/swagger-ui.css",
          "/docs/assets/init.js"]


def _has_security_headers(r) -> None:  # type: ignore[no-untyped-def]
    # the game page adds the hash of its own script to script-src (tests/server/site/test_bundle.py)
    policy = re.sub(r" 'sha256-[A-Za-z0-9+/=]+'", "", r.headers["content-security-policy"])
    assert policy == CONTENT_SECURITY_POLICY
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.headers["x-frame-options"] == "DENY"
    assert r.headers["referrer-policy"] == "strict-origin-when-cross-origin"


def test_the_policy_allows_no_inline_script_and_no_framing():
    directives = dict(d.strip().split(" ", 1) for d in CONTENT_SECURITY_POLICY.split(";"))
    assert directives["script-src"] == "'self'"
    assert directives["frame-ancestors"] == "'none'"
    assert directives["object-src"] == "'none'"
    assert "'unsafe-inline'" in directives["style-src"]  # styles only: see headers.py for why
    assert directives["worker-src"] == "'self'" and directives["manifest-src"] == "'self'"


@pytest.mark.parametrize("path", PAGES + API_GETS + STATIC)
def test_every_get_carries_the_security_headers(client, path):
    r = client.get(path)
    assert r.status_code in (200, 404), r.text[:200]
    _has_security_headers(r)


@pytest.mark.parametrize(("method", "path", "body"), [
    ("POST", "/api/games", b"{"),                       # 422 from the body guard
    ("POST", "/api/games", b" " * (300 * 1024)),         # 413 from the body limit
    ("PUT", "/api/games", b"{}"),                        # 405
    ("GET", "/nothing/here", b""),                       # 404
])
def test_refusals_carry_the_security_headers_too(client, method, path, body):
    r = client.request(method, path, content=body, headers={"content-type": "application/json"})
    assert 400 <= r.status_code < 500 and set(r.json()) == {"error"}
    _has_security_headers(r)


@pytest.mark.parametrize("path", PAGES + API_GETS + STATIC)
def test_head_answers_like_get_without_a_body(client, path):
    got = client.get(path)
    head = client.head(path)
    assert head.status_code == got.status_code
    assert head.content == b""
    for name in ("content-type", "content-length", "content-security-policy", "etag", "cache-control"):
        if name == "content-length" and path in ("/metrics", "/readyz"):
            continue  # these answers change from one request to the next
        assert head.headers.get(name) == got.headers.get(name), name


def test_head_of_a_finished_game_page_and_record(api):
    issued, _, r = api.honest(moves=30)
    assert r.status_code == 200
    for path in (f"/games/{issued['id']}", f"/api/games/{issued['id']}"):
        got, head = api.client.get(path), api.client.head(path)
        assert head.status_code == 200 and head.content == b""
        assert head.headers["etag"] == got.headers["etag"]
        assert head.headers["content-length"] == got.headers["content-length"]  # compressed or not


def test_head_on_a_post_only_route_is_refused_cleanly(client):
    r = client.head("/api/hint")
    assert r.status_code == 405 and r.content == b""


def test_docs_page_loads_nothing_from_outside(client):
    r = client.get("/docs")
    assert r.status_code == 200
    assert "http://" not in r.text and "https://" not in r.text and "//cdn" not in r.text
    assert "<script>" not in r.text  # only <script src=...>: the init script is a file
    assert client.get("/docs/assets/swagger-ui-bundle.js").status_code == 200
    assert client.get("/redoc").status_code == 404  # FastAPI's, which loads from a CDN, is off


@pytest.mark.parametrize("path", ["/", "/leaderboard", "/leaderboard?size=3&mode=daily", "/rules",
                                  "/strategy",
                                  "/boards", "/solver", "/games/nosuchgame", "/games/nosuchgame/review"])
def test_every_page_that_picks_a_language_says_so_in_vary(client, path):
    """The language follows Accept-Language and the cookie: a shared cache must keep one copy per value,
    on the pages of finished games and their 404s as on the rest (one ``render`` for every page)."""
    r = client.get(path, headers={"Accept-Language": "ru"})
    assert 'lang="ru"' in r.text
    vary = {v.strip().lower() for v in r.headers.get("vary", "").split(",")}
    assert {"accept-language", "cookie"} <= vary, (path, r.status_code, r.headers.get("vary"))
