"""A daily try left for a new one is no result, and past its network's ranked tries a browser plays the
day's game unranked, told so in its language."""

import json
import re
import urllib.request

import pytest

pytestmark = pytest.mark.browser


#: A fresh daily try is on the board (another than the game ``id``, when one is given).
DAILY_ON = ("id => { const s = window.game2048.state(); "
            "return s.mode === 'daily' && s.log === '' && s.id !== id; }")


def _daily(game) -> dict:
    game.page.locator("#daily").click()
    confirm = game.page.locator("#confirm")
    if confirm.is_visible():
        confirm.locator("button[value='yes']").click()
    game.page.wait_for_function(DAILY_ON, arg=None)
    return game.state()


def _moves(game, n: int) -> dict:
    game.page.evaluate("""async (n) => {
        const g = window.game2048;
        for (let i = 0; i < n && !g.state().over; i++) {
            g.move('left') || g.move('down') || g.move('right') || g.move('up');
            await g.settled();
        }
    }""", n)
    return game.settled()


def test_a_daily_try_left_for_a_new_one_is_kept_off_the_board_and_the_tries_left_stay_said(game):
    game.open()
    game.ranked()
    first = _daily(game)
    _moves(game, 3)
    game.page.locator("#daily").click()
    confirm = game.page.locator("#confirm")
    assert confirm.is_visible()
    assert "today's leaderboard" in confirm.inner_text()  # not the usual "its score will be sent"
    confirm.locator("button[value='yes']").click()
    game.page.wait_for_function(DAILY_ON, arg=first["id"])
    game.page.wait_for_function("() => localStorage.getItem('game2048:queue') === '[]'", timeout=60_000)
    game.page.evaluate("new Promise((r) => setTimeout(r, 200))")  # the finish's answer has been heard
    message = game.page.locator("#message").inner_text()
    assert re.search(r"more tries today", message) and "recorded" not in message, message
    with urllib.request.urlopen(f"{game.base_url}/api/leaderboard?size=4&mode=daily", timeout=30) as r:
        names = [e["name"] for e in json.loads(r.read())["entries"]]
    assert game.name not in names


def _unranked_daily(route) -> None:
    """The server's answer to a daily start, as it is past the network's ranked tries."""
    body = json.loads(route.request.post_data or "{}")
    if route.request.method != "POST" or body.get("mode") != "daily":
        route.continue_()
        return
    answer = route.fetch()
    route.fulfill(response=answer, json={**answer.json(), "ranked": False})


@pytest.mark.parametrize("lang", ["en", "he"])
def test_past_the_networks_ranked_tries_the_daily_game_is_played_unranked_and_the_page_says_so(game, lang):
    game.page.route("**/api/games", _unranked_daily)
    game.open(f"?lang={lang}")
    game.ranked()
    _daily(game)
    status = game.page.locator("#status")
    game.page.wait_for_function("() => document.getElementById('message').textContent !== ''")
    message = game.page.locator("#message").inner_text()
    assert status.get_attribute("data-ranked") == "false"
    if lang == "en":
        assert "network" in status.inner_text() and "not ranked" in status.inner_text()
        assert "not ranked" in message and "more tries today" in message, message
    else:
        assert re.search("[\u0590-\u05ff]", message) and "רשת" in message, message
        assert "רשת" in status.inner_text()
    # nothing to lose: an undo asks nothing, and a reload still says it
    game.page.unroute("**/api/games")
    _moves(game, 2)
    game.page.reload()
    game.page.wait_for_function("() => window.game2048 !== undefined")
    assert game.page.locator("#status").get_attribute("data-ranked") == "false"
