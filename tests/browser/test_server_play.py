"""The game and the server: server seeds, submitting finished games, the retry
queue, offline play, the daily game, the nickname, hints and autoplay."""

from __future__ import annotations

import json
import urllib.request

import pytest

pytestmark = pytest.mark.browser

def _get(url):
    with urllib.request.urlopen(url, timeout=5) as r:
        return json.loads(r.read())


def _server_game(game):
    game.page.wait_for_function("() => window.game2048.state().id !== null")
    return game.state()


def _play_some(game, n=8):
    for key in ("ArrowLeft ArrowDown ArrowRight ArrowDown " * n).split()[:n]:
        game.page.keyboard.press(key)


def test_a_new_game_gets_a_server_seed_and_the_abandoned_one_is_verified(game):
    game.open()
    first = _server_game(game)
    assert first["ranked"] is True
    _play_some(game)
    played = game.state()
    game.new_game()
    game.page.wait_for_function("() => localStorage.getItem('game2048:queue') === '[]'")
    record = _get(f"{game.base_url}/api/games/{played['id']}")
    assert (record["seed"], record["log"], record["score"], record["name"]) == (
        played["seed"], played["log"], played["score"], "tester")
    assert game.page.locator("#message").inner_text()
    assert game.state()["id"] not in (None, played["id"])


def test_a_game_over_is_submitted(game):
    game.open()
    _server_game(game)
    # play the seeded game to its end through the automation API
    game.page.evaluate("""() => {
        const g = window.game2048;
        for (let i = 0; i < 5000 && !g.state().over; i++) {
            g.move('left') || g.move('down') || g.move('right') || g.move('up');
            if (g.state().won && !g.state().keepPlaying) g.keepPlaying();
        }
    }""")
    state = game.state()
    assert state["over"] is True
    game.page.wait_for_function("() => localStorage.getItem('game2048:queue') === '[]'")
    record = _get(f"{game.base_url}/api/games/{state['id']}")
    assert record["log"] == state["log"] and record["score"] == state["score"]


def test_a_failed_submission_is_queued_and_retried(game):
    game.open()
    played = _server_game(game)
    _play_some(game)
    played = game.state()
    failing = {"on": True}

    def finish(route):
        if failing["on"]:
            route.abort()
        else:
            route.continue_()

    game.network_cut = True
    game.page.route("**/api/games/*/finish", finish)
    game.new_game()
    game.page.wait_for_function(
        "() => JSON.parse(localStorage.getItem('game2048:queue') || '[]').length === 1")
    queued = json.loads(game.storage("game2048:queue"))[0]
    assert (queued["id"], queued["log"]) == (played["id"], played["log"])
    # the queue survives a reload and is sent once the server answers
    failing["on"] = False
    game.page.reload()
    game.page.wait_for_function("() => localStorage.getItem('game2048:queue') === '[]'")
    assert _get(f"{game.base_url}/api/games/{played['id']}")["log"] == played["log"]


def test_without_the_server_the_game_starts_and_plays_unranked(game):
    game.network_cut = True
    game.page.route("**/api/**", lambda route: route.abort())
    game.open()
    _play_some(game, 8)  # a random board: some of these keys may move nothing
    state = game.state()
    assert state["id"] is None and state["ranked"] is False and len(state["log"]) >= 3
    assert game.page.locator("#status").inner_text() == "Offline: this game is not ranked"
    game.new_game()
    assert game.storage("game2048:queue") in (None, "[]")


def test_the_daily_game_has_the_same_seed_for_everyone(game, browser):
    game.open()
    _server_game(game)
    game.page.locator("#daily").click()
    game.page.wait_for_function("() => window.game2048.state().mode === 'daily'")
    mine = game.state()
    other = browser.new_page()
    other.goto(game.base_url + "/")
    other.wait_for_function("() => window.game2048 && window.game2048.state().id !== null")
    other.locator("#daily").click()
    other.wait_for_function("() => window.game2048.state().mode === 'daily'")
    assert other.evaluate("window.game2048.state().seed") == mine["seed"]
    other.context.close()


def test_the_nickname_is_asked_once_and_can_be_changed(game):
    game.open()
    game.page.evaluate("localStorage.setItem('game2048:name', '\"\"')")
    game.page.reload()
    game.page.wait_for_function("() => window.game2048 !== undefined")
    _server_game(game)
    _play_some(game, 4)
    game.new_game()
    dialog = game.page.locator("#nickname")
    assert dialog.is_visible()
    game.page.locator("#nickname-input").fill("Ada")
    dialog.get_by_role("button", name="Save").click()
    game.page.wait_for_function("() => localStorage.getItem('game2048:queue') === '[]'")
    assert json.loads(game.storage("game2048:name")) == "Ada"
    _play_some(game, 4)
    game.new_game()
    assert dialog.is_hidden()
    game.page.locator("#name").click()
    assert dialog.is_visible()
    assert game.page.locator("#nickname-input").input_value() == "Ada"
    game.page.keyboard.press("Escape")


def test_a_hint_shows_a_direction_and_unranks_the_game(game):
    game.open()
    _server_game(game)
    game.page.locator("#hint").click()
    game.page.wait_for_function("() => document.getElementById('hint-out').textContent !== ''")
    assert game.page.locator("#hint-out").inner_text().startswith("Hint:")
    state = game.state()
    assert state["helped"] is True and state["ranked"] is False
    assert game.page.locator("#status").inner_text() == "The solver helped: not ranked"


def test_autoplay_plays_and_any_key_stops_it(game):
    game.open()
    _server_game(game)
    button = game.page.locator("#autoplay")
    button.click()
    assert button.get_attribute("aria-pressed") == "true"
    game.page.wait_for_function("() => window.game2048.state().moves >= 3", timeout=20000)
    game.page.keyboard.press("Shift")
    assert button.get_attribute("aria-pressed") == "false"
    moves = game.state()["moves"]
    game.page.wait_for_timeout(400)
    assert game.state()["moves"] == moves
    assert game.state()["helped"] is True
    # the button itself, pressed from the keyboard, switches it on and off
    button.focus()
    game.page.keyboard.press("Enter")
    assert button.get_attribute("aria-pressed") == "true"
    game.page.keyboard.press("Enter")
    assert button.get_attribute("aria-pressed") == "false"
