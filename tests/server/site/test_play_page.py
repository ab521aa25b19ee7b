"""GET /: the game page in the player's language from the first byte, with its files
at cache-forever addresses, compressed, and the service worker and manifest it needs."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from game2048.server.site.i18n import LANGUAGES
from game2048.server.site.play import pack, plural_category, text
from game2048.web.assets import PAGE_STYLES, STATIC_DIR, module_graph, precache_list, release

VECTORS = Path(__file__).resolve().parents[2] / "vectors" / "plurals.json"
NEW_GAME = {"en": "New game", "he": "משחק חדש", "ru": "Новая игра", "th": "เกมใหม่"}


def lang_of(html: str) -> tuple[str, str]:
    m = re.search(r'<html lang="(\w+)" dir="(\w+)">', html)
    assert m
    return m.group(1), m.group(2)


@pytest.mark.parametrize(("query", "headers", "lang"), [
    ("", {}, "en"),
    ("?lang=he", {}, "he"),
    ("", {"Accept-Language": "ru-RU,ru;q=0.9"}, "ru"),
    ("", {"Accept-Language": "th-TH"}, "th"),
    ("", {"Accept-Language": "ru", "Cookie": "lang=he"}, "he"),
    ("?lang=th", {"Accept-Language": "ru", "Cookie": "lang=he"}, "th"),
    ("?lang=xx", {"Accept-Language": "de, ru;q=0.5"}, "ru"),
])
def test_the_page_comes_in_the_chosen_language(client, query, headers, lang):
    page = client.get(f"/{query}", headers=headers)
    assert page.status_code == 200
    assert lang_of(page.text) == (lang, "rtl" if lang == "he" else "ltr")
    assert f'id="new-game">{NEW_GAME[lang]}<' in page.text
    assert f"<title>{text(lang, 'pageTitle')}</title>" in page.text
    embedded = json.loads(re.search(r'<script type="application/json" id="strings">(.*?)</script>',
                                    page.text, re.S).group(1))
    assert embedded == pack(lang), "the page carries its own language's strings, and only those"
    assert "Accept-Language" in page.headers["vary"] and "Cookie" in page.headers["vary"]


def test_a_chosen_language_is_remembered(client):
    page = client.get("/?lang=ru")
    assert "lang=ru" in page.headers["set-cookie"]


PUBLIC = "https://play.example.org"


@pytest.fixture
def published(client):
    """The client of an app that knows the address it is published at (GAME2048_PUBLIC_URL)."""
    import dataclasses

    client.app.state.settings = dataclasses.replace(client.app.state.settings, public_url=PUBLIC)
    return client


def test_the_page_describes_itself_and_names_its_translations_absolutely(published):
    html = published.get("/?lang=ru").text
    assert re.search(r'<meta name="description" content="[^"]{40,}">', html)
    links = dict(re.findall(r'<link rel="alternate" hreflang="([\w-]+)" href="([^"]+)">', html))
    assert links == {
        "en": f"{PUBLIC}/?lang=en", "he": f"{PUBLIC}/?lang=he",
        "ru": f"{PUBLIC}/?lang=ru", "th": f"{PUBLIC}/?lang=th",
        "x-default": f"{PUBLIC}/",
    }


@pytest.mark.parametrize("path", ["/rules", "/strategy", "/boards", "/solver", "/leaderboard"])
def test_every_page_has_a_description_and_absolute_translations(published, path):
    html = published.get(f"{path}?lang=he").text
    description = re.search(r'<meta name="description" content="([^"]*)">', html).group(1)
    assert len(description) >= 40
    hrefs = re.findall(r'<link rel="alternate" hreflang="[\w-]+" href="([^"]+)">', html)
    assert len(hrefs) == 5 and all(h.startswith(f"{PUBLIC}{path}") for h in hrefs)


def test_absolute_links_never_come_from_the_host_header(published, client):
    forged = published.get("/rules", headers={"host": "evil.example"}).text
    assert "evil.example" not in forged and f'href="{PUBLIC}/rules?lang=en"' in forged


def test_without_a_public_address_the_page_names_no_absolute_translations(client):
    html = client.get("/rules", headers={"host": "evil.example"}).text
    assert "evil.example" not in html and 'rel="alternate"' not in html


@pytest.mark.parametrize("path", ["/leaderboard", "/games/nothing", "/rules"])
def test_every_page_that_picks_a_language_varies_by_it(client, path):
    assert "Accept-Language" in client.get(path).headers["vary"]


def test_the_page_links_its_files_at_this_releases_addresses(client):
    html = client.get("/").text
    release_id = release()
    assert f'href="/static/{release_id}/manifest.webmanifest"' in html
    styles = re.search(r"<style>(.*?)</style>", html, re.S).group(1)
    for name in PAGE_STYLES:
        assert (STATIC_DIR / "css" / f"{name}.css").read_text() in styles
    # the one inline script is the game's own, allowed by its hash (tests/server/site/test_bundle.py)
    assert len(re.findall(r"<script(?! type=\"application/json\")", html)) == 1
    assert " on" + "click=" not in html, "no inline event handlers (strict CSP)"


def test_static_files_cache_forever_at_release_addresses_and_revalidate_elsewhere(client):
    forever = client.get(f"/static/{release()}/js/engine.js")
    assert forever.headers["cache-control"] == "public, max-age=31536000, immutable"
    plain = client.get("/static/js/engine.js")
    assert plain.headers["cache-control"] == "no-cache" and plain.text == forever.text
    again = client.get("/static/js/engine.js", headers={"If-None-Match": plain.headers["etag"]})
    assert again.status_code == 304
    assert client.get(f"/static/{release()}/js/nothing.js").status_code == 404


def test_text_answers_are_gzipped(client):
    for path in ["/", "/rules", f"/static/{release()}/js/engine.js", "/openapi.json"]:
        answer = client.get(path, headers={"Accept-Encoding": "gzip"})
        assert answer.headers.get("content-encoding") == "gzip", path


def test_the_service_worker_is_this_release(client):
    sw = client.get("/sw.js")
    assert sw.status_code == 200 and sw.headers["cache-control"] == "no-cache"
    head = json.loads(sw.text.split("\n", 1)[0].removeprefix("const RELEASE = ").rstrip(";"))
    assert head == {"version": release(), "files": precache_list()}
    # every module the page imports, the dealers included, is kept for playing offline
    for module in module_graph():
        assert f"/static/{release()}/{module}" in head["files"], module
    assert {f"/static/{release()}/js/{m}_dealer.js" for m in ("local", "server")} <= set(head["files"])
    assert "self.addEventListener('fetch'" in sw.text


def test_robots_txt(client):
    assert client.get("/robots.txt").text.startswith("User-agent: *")


def test_every_language_of_the_site_has_the_game_s_pack_and_no_other():
    assert sorted(p.stem for p in (STATIC_DIR / "js" / "i18n").glob("*.json")) == sorted(LANGUAGES)


def test_the_server_counts_like_the_browser():
    vectors = json.loads(VECTORS.read_text())["categories"]
    assert sorted(vectors) == sorted(LANGUAGES)  # node tests/vectors/plurals.mjs writes a new language's
    for lang, cases in vectors.items():
        for n, category in cases.items():
            assert plural_category(lang, int(n)) == category, (lang, n)
    assert text("ru", "undosLeft", n=3) == "осталось 3"
    assert text("en", "sayUndo", n=1, score=8) == "Move taken back. Score 8. 1 undo left."
