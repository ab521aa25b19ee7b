"""A finished game never changes: its page and record carry an ETag and Cache-Control, answer
If-None-Match with 304, and the page's replay is computed once, not on every view."""

from __future__ import annotations

import re

import pytest

from game2048.server.site import records as views


def test_the_record_has_an_etag_and_answers_304(api):
    issued, _, _ = api.honest(moves=40)
    r = api.client.get(f"/api/games/{issued['id']}")
    assert r.status_code == 200 and r.headers["etag"] and "max-age" in r.headers["cache-control"]
    again = api.client.get(f"/api/games/{issued['id']}", headers={"if-none-match": r.headers["etag"]})
    assert again.status_code == 304 and again.content == b""
    assert again.headers["etag"] == r.headers["etag"]
    other = api.client.get(f"/api/games/{issued['id']}", headers={"if-none-match": '"something-else"'})
    assert other.status_code == 200 and other.json() == r.json()


def test_the_page_has_an_etag_per_language_and_answers_304(api):
    issued, _, _ = api.honest(moves=40)
    path = f"/games/{issued['id']}"
    en = api.client.get(path, headers={"accept-language": "en"})
    assert en.status_code == 200 and "max-age" in en.headers["cache-control"]
    assert "Accept-Language" in en.headers["vary"]
    assert api.client.get(path, headers={"if-none-match": en.headers["etag"],
                                         "accept-language": "en"}).status_code == 304
    he = api.client.get(path, headers={"if-none-match": en.headers["etag"], "accept-language": "he"})
    assert he.status_code == 200 and he.headers["etag"] != en.headers["etag"]


def test_the_replay_is_computed_once_per_game_not_per_view(api, monkeypatch):
    issued, _, _ = api.honest(moves=40)
    calls = []
    real = views._replay_frames
    monkeypatch.setattr(views, "_replay_frames", lambda *a: calls.append(a) or real(*a))
    views._frames_cache.__init__(views.FRAMES_CACHE_BYTES)  # empty it
    for _ in range(5):
        assert api.client.get(f"/games/{issued['id']}").status_code == 200
    assert len(calls) == 1


def test_the_cache_is_bounded():
    cache = views._frames_cache
    assert cache.max_bytes == views.FRAMES_CACHE_BYTES
    assert cache.size <= cache.max_bytes


@pytest.mark.parametrize("name", ["<b>bold</b>", "Ada & Bob", "שחקן"])
def test_the_title_is_plain_text(api, name):
    issued, _, _ = api.honest(moves=10, name=name)
    html = api.client.get(f"/games/{issued['id']}").text
    title = re.search(r"<title>(.*?)</title>", html, re.S).group(1)
    assert "<bdi>" not in title and "<b>" not in title
    assert issued["id"] in title


def test_the_page_runs_no_inline_script(api):
    issued, _, _ = api.honest(moves=10)
    html = api.client.get(f"/games/{issued['id']}").text
    for tag in re.findall(r"<script[^>]*>", html):
        assert 'type="application/json"' in tag or "src=" in tag, tag
    assert not re.search(r"\son[a-z]+=", html)  # no inline event handlers


@pytest.mark.parametrize("path", ["/games/{id}", "/api/games/{id}", "/static/js/engine.js"])
def test_each_encoding_of_an_answer_has_its_own_etag(api, path):
    issued, _, _ = api.honest(size=6, moves=600)  # a record well over the 500 bytes that get compressed
    path = path.format(id=issued["id"])
    plain = api.client.get(path, headers={"accept-encoding": "identity"})
    packed = api.client.get(path, headers={"accept-encoding": "gzip"})
    assert "content-encoding" not in plain.headers and packed.headers["content-encoding"] == "gzip"
    assert plain.headers["etag"] != packed.headers["etag"] and packed.content == plain.content
    assert "Accept-Encoding" in packed.headers["vary"] and "Accept-Encoding" in plain.headers["vary"]
    for tag, encoding in ((plain.headers["etag"], "identity"), (packed.headers["etag"], "gzip")):
        again = api.client.get(path, headers={"accept-encoding": encoding, "if-none-match": tag})
        assert again.status_code == 304 and again.headers["etag"] == tag, (encoding, again.headers)


def test_a_long_page_is_compressed_once_not_on_every_view(api, monkeypatch):
    import gzip

    issued, _, _ = api.honest(moves=300)
    calls = []
    real = gzip.compress
    monkeypatch.setattr(gzip, "compress", lambda *a, **k: calls.append(1) or real(*a, **k))
    for _ in range(5):
        page = api.client.get(f"/games/{issued['id']}", headers={"accept-encoding": "gzip"})
        assert page.status_code == 200
    assert len(calls) == 1
