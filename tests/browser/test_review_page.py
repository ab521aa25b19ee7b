"""The review page in a real browser: it waits for the review, then steps through the moves with
the keyboard, on a 360 px phone, left to right and right to left."""

from __future__ import annotations

import json
import random
import time
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest

from game2048 import slide

pytestmark = pytest.mark.browser

PHONE = {"width": 360, "height": 740}
DIRECTIONS = ("up", "down", "left", "right")


def call(base_url: str, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
    request = urllib.request.Request(
        base_url + path, method=method, data=json.dumps(body).encode() if body is not None else None,
        headers={"Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def finished_game(base_url: str, seed: int = 1, moves: int = 70) -> str:
    """A 4x4 game the server dealt, played with random legal moves through the API (one undo, at
    the tenth move) and finished; its id."""
    status, issued = call(base_url, "POST", "/api/games", {"size": 4})
    assert status == 201
    rng = random.Random(seed)
    board, at, played, undone = issued["board"], 0, 0, False
    while played < moves:
        legal = [d for d in DIRECTIONS if slide(board, d)[0] != board]
        if not legal:
            break
        letter = "Z" if played == 10 and not undone else rng.choice(legal)[0].upper()
        undone = undone or letter == "Z"
        status, answer = call(base_url, "POST", f"/api/games/{issued['id']}/moves",
                              {"token": issued["token"], "at": at, "moves": letter})
        assert status == 200, answer
        board, at = answer["board"], answer["at"]
        played += letter != "Z"
    # a name of its own: a name belongs to the first who finished under it
    status, _ = call(base_url, "POST", f"/api/games/{issued['id']}/finish",
                     {"token": issued["token"], "name": f"Ada {issued['id'][:8]}"})
    assert status == 200
    return issued["id"]


def wait_for_review(base_url: str, game_id: str, seconds: float = 240) -> dict:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        status, body = call(base_url, "GET", f"/api/games/{game_id}/review")
        if status == 200:
            return body
        assert status == 202, body
        time.sleep(0.5)
    raise AssertionError(f"no review within {seconds} s")


@pytest.fixture(scope="module")
def reviewed(base_url: str) -> tuple[str, dict]:
    game_id = finished_game(base_url)
    return game_id, wait_for_review(base_url, game_id)


@pytest.fixture
def page(browser, request) -> Iterator:  # type: ignore[no-untyped-def]
    context = browser.new_context(viewport=PHONE)
    p = context.new_page()
    errors: list[str] = []
    p.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    p.on("pageerror", lambda e: errors.append(str(e)))
    yield p
    context.close()
    assert errors == [], errors


def test_the_page_waits_for_the_review_then_shows_it(page, base_url):
    game_id = finished_game(base_url, seed=2, moves=40)
    page.goto(f"{base_url}/games/{game_id}/review")
    assert page.locator("#review-pending progress").count() == 1  # asked for just now: still being made
    page.wait_for_selector("[data-testid=accuracy]", timeout=240_000)
    assert page.locator("figure.chart svg").count() == 1


def test_keys_step_through_the_moves_and_jump_to_mistakes(page, base_url, reviewed):
    game_id, review = reviewed
    moves = review["moves"]
    page.goto(f"{base_url}/games/{game_id}/review")
    assert page.evaluate("document.scrollingElement.scrollWidth") <= PHONE["width"]
    assert page.locator("figure.chart svg").count() == 1
    status = page.locator("[data-testid=review-status]")
    current = page.locator("ol.moves button[aria-current]")

    def at() -> int:
        return int(current.get_attribute("data-i"))

    assert at() == 0 and status.inner_text().startswith(f"Move {moves[0]['n']} (1 of {len(moves)})")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert at() == 2 and f"(3 of {len(moves)})" in status.inner_text()
    page.keyboard.press("ArrowLeft")
    assert at() == 1
    page.keyboard.press("End")
    assert at() == len(moves) - 1
    page.keyboard.press("Home")
    assert at() == 0
    bad = [i for i, m in enumerate(moves) if m["class"] in ("mistake", "blunder")]
    assert bad, "a game of random moves has mistakes"
    page.keyboard.press("n")
    assert at() == bad[0]
    m = moves[bad[0]]
    best = page.locator("[data-testid=best-arrow]")
    played = page.locator("[data-testid=played-arrow]")
    assert best.is_visible() and best.get_attribute("data-dir") == m["best"]
    assert played.is_visible() and played.get_attribute("data-dir") == m["played"] != m["best"]
    assert current.get_attribute("class").split()[1] == f"c-{m['class']}"
    # the board drawn is the position before that move, with the game's own tiles
    data = json.loads(page.locator("#review-data").inner_text())
    cells = data["boards"][bad[0]]
    assert page.locator("[data-testid=board] .tile").count() == sum(1 for v in cells if v)
    # a click on a move shows it; the played arrow only when it was not the best move
    page.locator("ol.moves button[data-i='0']").click()
    assert at() == 0
    assert played.is_visible() == (moves[0]["played"] != moves[0]["best"])


def test_right_to_left_the_arrow_keys_swap(page, base_url, reviewed):
    game_id, _ = reviewed
    page.goto(f"{base_url}/games/{game_id}/review?lang=he")
    assert page.evaluate("document.documentElement.dir") == "rtl"
    assert page.evaluate("document.scrollingElement.scrollWidth") <= PHONE["width"]
    page.keyboard.press("ArrowLeft")
    assert page.locator("ol.moves button[aria-current]").get_attribute("data-i") == "1"
    assert "מהלך" in page.locator("[data-testid=review-status]").inner_text()
