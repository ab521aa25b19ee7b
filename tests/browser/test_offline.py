"""Transfer and installation: compressed text, cache-forever static addresses,
the web app manifest, and a service worker after which / opens and plays with
the network off."""

from __future__ import annotations

import gzip
import json
import re
import urllib.request

import pytest

pytestmark = pytest.mark.browser


def fetch(url: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as r:
            return r.status, {k.lower(): v for k, v in r.headers.items()}, r.read()
    except urllib.error.HTTPError as e:
        return e.code, {k.lower(): v for k, v in e.headers.items()}, e.read()


def page_assets(base_url: str) -> list[str]:
    _, _, body = fetch(base_url + "/")
    html = body.decode()
    return re.findall(r'<(?:link|script)[^>]+(?:href|src)="(/static/[^"]+)"', html)


def test_text_answers_are_compressed(base_url):
    release = page_assets(base_url)[0].split("/")[2]
    code = [f"/static/{release}/js/{m}" for m in ("engine.js", "controller.js", "replay.js", "review.js")]
    code.append(f"/static/{release}/css/review.css")
    compressed = 0
    for path in ["/", "/rules", "/leaderboard", *code, "/sw.js"]:
        plain = fetch(base_url + path)[2]
        status, headers, body = fetch(base_url + path, {"Accept-Encoding": "gzip"})
        assert status == 200, path
        if len(plain) < 500:  # too small to be worth it
            continue
        assert headers.get("content-encoding") == "gzip", path
        assert gzip.decompress(body) == plain
        compressed += 1
    assert compressed >= 6


def test_the_pages_files_have_cache_forever_addresses(base_url):
    assets = page_assets(base_url)
    assert len(assets) >= 3  # icons and manifest (the scripts are inside the page)
    release = {a.split("/")[2] for a in assets}
    assert len(release) == 1 and re.fullmatch(r"[0-9a-f]{12}", release.pop())
    for path in assets:
        status, headers, _ = fetch(base_url + path)
        assert status == 200, path
        assert headers["cache-control"] == "public, max-age=31536000, immutable", path


def test_other_addresses_revalidate_by_etag(base_url):
    for path in ["/static/js/app.js", "/static/0123456789ab/js/app.js"]:
        status, headers, _ = fetch(base_url + path)
        assert status == 200 and headers["cache-control"] == "no-cache", path
        again, _, body = fetch(base_url + path, {"If-None-Match": headers["etag"]})
        assert again == 304 and body == b"", path
    for path in ["/", "/sw.js"]:
        assert fetch(base_url + path)[1]["cache-control"] == "no-cache", path


def test_the_javascript_and_css_of_the_page_weigh_at_most_40_kb_compressed(base_url):
    html = fetch(base_url + "/")[2].decode()
    styles = "".join(re.findall(r"<style>(.*?)</style>", html, re.S))
    assert ".board" in styles, "the page's styles travel inside it"
    scripts = "".join(re.findall(r'<script type="module">(.*?)</script>', html, re.S))
    assert "GameController" in scripts, "and so do its scripts"
    total = len(gzip.compress(styles.encode())) + len(gzip.compress(scripts.encode()))
    for path in page_assets(base_url):
        if path.endswith((".js", ".css")):
            total += len(fetch(base_url + path, {"Accept-Encoding": "gzip"})[2])
    print(f"\nJS + CSS of / over the wire: {total} bytes gzipped")
    assert total <= 40 * 1024, total


def test_the_web_app_manifest(base_url):
    _, _, body = fetch(base_url + "/")
    href = re.search(r'<link rel="manifest" href="([^"]+)"', body.decode()).group(1)
    status, headers, raw = fetch(base_url + href)
    assert status == 200
    manifest = json.loads(raw)
    assert manifest["name"] == "2048" and manifest["short_name"]
    assert manifest["start_url"] == "/" and manifest["display"] == "standalone"
    assert manifest["theme_color"] and manifest["background_color"]
    icons = {(i["sizes"], i["type"]) for i in manifest["icons"]}
    assert {("any", "image/svg+xml"), ("192x192", "image/png"), ("512x512", "image/png")} <= icons
    base = base_url + href.rsplit("/", 1)[0] + "/"
    for icon in manifest["icons"]:
        status, headers, data = fetch(base + icon["src"])
        assert status == 200 and headers["content-type"].startswith(icon["type"]), icon
        if icon["type"] == "image/png":
            width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
            assert f"{width}x{height}" == icon["sizes"], icon


def test_the_service_worker_names_this_release_and_its_files(base_url):
    status, headers, body = fetch(base_url + "/sw.js")
    assert status == 200 and "javascript" in headers["content-type"]
    first = body.decode().split("\n", 1)[0]
    release = json.loads(first.removeprefix("const RELEASE = ").rstrip(";"))
    assets = page_assets(base_url)
    assert release["version"] == assets[0].split("/")[2]
    wanted = {a for a in assets if a.endswith((".js", ".css"))}
    assert wanted <= set(release["files"])


def test_after_a_first_visit_the_game_opens_and_plays_offline(game):
    game.open()
    page = game.page
    assert page.evaluate("navigator.serviceWorker.controller") is None  # not before the player plays
    page.keyboard.press("ArrowLeft")  # the first key installs the service worker
    page.keyboard.press("ArrowUp")
    page.evaluate("navigator.serviceWorker.ready")
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")
    before = game.settled()  # the server dealt both tiles
    game.network_cut = True
    page.context.set_offline(True)
    page.reload()
    page.wait_for_function("() => window.game2048 !== undefined")
    assert game.state()["log"] == before["log"], "the saved game is back"
    page.locator("#new-game").click()
    page.locator("#confirm button[value='yes']").click()
    page.wait_for_function("() => window.game2048.state().log === ''")
    for key in ("ArrowLeft", "ArrowDown", "ArrowRight", "ArrowUp") * 3:
        page.keyboard.press(key)
    played = len(game.state()["log"])
    assert played >= 3
    assert game.state()["id"] is None
    page.wait_for_function("() => document.getElementById('status').textContent.startsWith('Offline')")
    page.context.set_offline(False)


def test_a_ranked_game_reloaded_offline_says_why_keys_do_nothing_and_goes_on_once_back(game):
    game.open()
    page = game.page
    game.ranked()
    # the first key installs the service worker; one of the four moves any fresh board (left and up
    # both meet a wall on 3 openings in 1,000)
    for key in ("ArrowLeft", "ArrowUp", "ArrowRight", "ArrowDown"):
        page.keyboard.press(key)
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")
    before = game.settled()
    assert before["id"] is not None and before["log"]
    game.network_cut = True
    page.context.set_offline(True)
    page.reload()
    page.wait_for_function("() => window.game2048 !== undefined")
    # the server deals a ranked game's tiles: without it keys do nothing, and the page says so
    message = page.locator("#message")
    page.wait_for_function("() => document.getElementById('message').textContent.includes('offline')")
    assert "ranked game" in message.inner_text() and "practice game" in message.inner_text()
    for key in ("ArrowLeft", "ArrowDown", "ArrowRight", "ArrowUp"):
        page.keyboard.press(key)
    assert game.state()["log"] == before["log"]
    page.context.set_offline(False)
    page.wait_for_function("() => document.getElementById('message').textContent === ''", timeout=30_000)
    for key in ("ArrowLeft", "ArrowDown", "ArrowRight", "ArrowUp"):
        page.keyboard.press(key)
    after = game.settled()
    assert after["id"] == before["id"] and len(after["log"]) > len(before["log"])
