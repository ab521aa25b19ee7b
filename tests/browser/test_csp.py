"""Every page works under the Content-Security-Policy: no console errors, no policy violations,
and the policy is really enforced (an injected inline script does not run)."""

from __future__ import annotations

import json
import time
import urllib.request
from collections.abc import Iterator

import pytest

from game2048 import slide
from game2048.server.site.charts import MIN_FONT

pytestmark = pytest.mark.browser

DIRECTIONS_LDRU = ("left", "down", "right", "up")

WATCH_VIOLATIONS = """
window.__violations = [];
document.addEventListener("securitypolicyviolation",
  (e) => window.__violations.push(e.violatedDirective + " " + (e.blockedURI || "inline")));
"""


def _post(url: str, body: dict) -> dict:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as r:
        return json.loads(r.read())


def _dealt_game(base_url: str, name: str, moves: int = 6) -> str:
    """A 3x3 game the server dealt, played a few moves through the API and finished: its id."""
    issued = _post(f"{base_url}/api/games", {"size": 3})
    board, at = issued["board"], 0
    for _ in range(moves):
        letter = next((x for x, d in zip("LDRU", DIRECTIONS_LDRU, strict=True)
                       if slide(board, d)[0] != board), None)
        if letter is None:
            break
        answer = _post(f"{base_url}/api/games/{issued['id']}/moves",
                       {"token": issued["token"], "at": at, "moves": letter})
        board, at = answer["board"], answer["at"]
    _post(f"{base_url}/api/games/{issued['id']}/finish", {"token": issued["token"], "name": name})
    return issued["id"]


@pytest.fixture(scope="module")
def finished_game(base_url: str) -> str:
    return _dealt_game(base_url, "<b>csp</b>")


@pytest.fixture
def page(browser, base_url) -> Iterator:  # type: ignore[no-untyped-def]
    context = browser.new_context()
    context.add_init_script(WATCH_VIOLATIONS)
    page = context.new_page()
    page.errors = []  # type: ignore[attr-defined]
    page.on("console", lambda m: page.errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    yield page
    context.close()


PAGES = ["/", "/leaderboard", "/leaderboard?mode=daily&date=0001-01-01", "/rules", "/strategy", "/boards",
         "/solver", "/docs", "/rules?lang=he"]


def _reviewed(base_url: str, game_id: str, seconds: float = 300) -> str:
    """``game_id`` once the server has made its review."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with urllib.request.urlopen(f"{base_url}/api/games/{game_id}/review", timeout=30) as r:
            if r.status == 200:
                return game_id
        time.sleep(0.5)
    raise AssertionError(f"no review within {seconds} s")


@pytest.mark.parametrize("path", [*PAGES, "GAME", "REVIEW"])
def test_a_page_works_under_the_policy(page, base_url, finished_game, path):
    if path == "REVIEW":
        path = f"/games/{_reviewed(base_url, finished_game)}/review"
    path = f"/games/{finished_game}" if path == "GAME" else path
    response = page.goto(base_url + path, wait_until="networkidle")
    assert response.status == 200
    assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
    if path == "/docs":
        page.wait_for_selector(".opblock", timeout=15000)  # Swagger UI drew the operations
    if path.startswith("/games/"):
        assert page.title().startswith("Review" if path.endswith("/review") else "Game")
        assert "<" in page.title() and "<bdi>" not in page.title()  # the name's text, not tags
        board = "[data-testid=board]" if path.endswith("/review") else "#replay-board"
        page.wait_for_function(f"() => document.querySelectorAll('{board} .grid .cell').length === 9")
    assert page.evaluate("window.__violations") == []
    assert page.errors == []


def test_the_replay_buttons_work_from_the_static_script(page, base_url):
    game_id = _dealt_game(base_url, "stepper")
    page.goto(f"{base_url}/games/{game_id}", wait_until="networkidle")
    status = page.locator("#replay-status")
    page.wait_for_function("() => document.getElementById('replay-status').textContent.length > 0")
    assert status.inner_text().startswith("move 6 of 6")  # the page opens on the final board
    page.locator('[data-step="first"]').click()
    assert status.inner_text().startswith("move 0 of 6")
    page.locator('[data-step="forward"]').click()
    assert status.inner_text().startswith("move 1 of 6")
    assert page.errors == []


def test_the_review_page_steps_from_its_static_script(page, base_url):
    """The review page's data is a JSON block and its script a module file: both work under the
    policy, while the review is made (the page asks again, then reloads itself) and after."""
    game_id = _dealt_game(base_url, "review")
    page.goto(f"{base_url}/games/{game_id}/review", wait_until="networkidle")
    page.wait_for_selector("[data-testid=accuracy]", timeout=300_000)
    status = page.locator("[data-testid=review-status]")
    page.wait_for_function("() => document.getElementById('review-status').textContent.length > 0")
    assert status.inner_text().startswith("Move 1 (1 of ")
    page.locator('[data-step="forward"]').click()
    assert status.inner_text().startswith("Move 2 (2 of ")
    assert page.locator("figure.chart svg").count() == 1
    assert page.evaluate("window.__violations") == []
    assert page.errors == []


def test_charts_keep_their_inline_styles(page, base_url):
    page.goto(base_url + "/strategy", wait_until="networkidle")
    # pygal's <style> inside the SVG applies: the chart's title is drawn at its set size
    size = page.evaluate("getComputedStyle(document.querySelector('figure.chart svg .title')).fontSize")
    assert size == f"{MIN_FONT + 2}px"
    assert page.evaluate("window.__violations") == []


@pytest.mark.parametrize("path", ["/leaderboard", "/"])
def test_an_injected_inline_script_does_not_run(page, base_url, path):
    # on / the game's own inline script runs (its hash is in the policy), and no other
    page.goto(base_url + path, wait_until="networkidle")
    if path == "/":
        assert page.evaluate("typeof window.game2048") == "object"
    page.evaluate("""() => { const s = document.createElement("script");
                   s.textContent = "window.__ran = true"; document.body.append(s); }""")
    page.wait_for_function("() => window.__violations.length > 0")
    assert page.evaluate("window.__ran") is None
    assert any(v.startswith("script-src") for v in page.evaluate("window.__violations"))
    page.errors.clear()  # the refusal itself is reported on the console: that is the point


def test_the_site_cannot_be_framed(page, base_url):
    page.set_content(f'<iframe src="{base_url}/leaderboard"></iframe>')
    page.wait_for_timeout(1000)
    frame = page.frames[-1]
    assert frame.url in ("about:blank", "chrome-error://chromewebdata/") or frame.content().find("<main") < 0
    page.errors.clear()
