"""Saving in the browser: reload resumes exactly; broken saved data never breaks the page."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.browser

KEY = "game2048:game:4"


def _play(game, keys="ArrowLeft ArrowUp ArrowRight ArrowDown ArrowLeft ArrowUp"):
    for key in keys.split():
        game.page.keyboard.press(key)
    return game.settled()


def _reload(game):
    game.page.reload()
    game.page.wait_for_function("() => window.game2048 !== undefined")
    return game.settled()


FIELDS = ("size", "seed", "board", "score", "log", "won", "over", "undosLeft", "id")


def test_reload_resumes_a_ranked_game_exactly(game):
    game.open()
    game.ranked()
    _play(game)
    game.page.locator("#undo").click()
    before = game.settled()
    assert before["log"].endswith("Z") and before["id"] and before["seed"] is None
    after = _reload(game)
    for field in FIELDS:
        assert after[field] == before[field], field


def test_reload_resumes_a_practice_game_exactly(game):
    game.open()
    game.page.evaluate("window.game2048.newGame({seed: 4242})")
    _play(game)
    game.page.locator("#undo").click()
    before = game.settled()
    assert before["seed"] == 4242 and before["id"] is None
    after = _reload(game)
    for field in FIELDS:
        assert after[field] == before[field], field


def test_each_size_keeps_its_own_game_and_best(game):
    game.open()
    four = _play(game)
    game.page.locator("[data-size='3']").click()
    assert game.state()["size"] == 3
    assert game.page.locator("#leaderboard-link").get_attribute("href") == "/leaderboard?size=3"
    _play(game, "ArrowDown ArrowRight")
    game.page.locator("[data-size='4']").click()
    back = game.settled()
    assert (back["id"], back["log"], back["board"]) == (four["id"], four["log"], four["board"])
    best = json.loads(game.storage("game2048:best"))
    assert best["4"] >= four["score"]


@pytest.mark.parametrize("saved", [
    "{not json",
    json.dumps({"v": 1, "size": 4, "seed": 5, "log": "LLLLLLLLLLQ", "score": 0}),
    json.dumps({"grid": {"size": 4, "cells": []}, "score": 100, "over": False}),  # the original game's shape
    json.dumps({"v": 0, "size": 4, "seed": 5, "log": ""}),
    json.dumps({"v": 1, "size": 4, "seed": -1, "log": "", "score": 0, "start": None, "helped": False,
                "mode": "classic", "id": None, "token": None, "date": None, "keepPlaying": False,
                "submitted": False}),
    json.dumps([1, 2, 3]),
], ids=["not-json", "bad-log", "foreign", "old-format", "bad-seed", "wrong-type"])
def test_corrupt_saved_game_is_discarded_and_a_new_game_starts(game, saved):
    game.open()
    game.page.evaluate(
        "([k, v]) => { localStorage.setItem(k, v); localStorage.setItem('game2048:best', '\"x\"') }",
        [KEY, saved],
    )
    game.page.reload()
    game.page.wait_for_function("() => window.game2048 !== undefined")
    state = game.state()
    assert state["log"] == "" and state["size"] == 4
    assert sum(v > 0 for row in state["board"] for v in row) == 2
    _play(game, "ArrowLeft ArrowRight")
    assert game.state()["log"]
    assert json.loads(game.storage(KEY))["v"] == 2


def test_a_tampered_practice_score_is_discarded(game):
    game.open()
    game.page.evaluate("window.game2048.newGame({seed: 99})")
    _play(game)
    saved = json.loads(game.storage(KEY))
    saved["practice"]["score"] += 1000
    game.page.evaluate("([k, v]) => localStorage.setItem(k, v)", [KEY, json.dumps(saved)])
    assert _reload(game)["log"] == ""


def test_a_tampered_ranked_game_is_set_right_by_the_server(game):
    game.open()
    game.ranked()
    honest = _play(game)
    saved = json.loads(game.storage(KEY))
    saved["served"]["score"] += 1000
    saved["served"]["cells"] = [2048, *saved["served"]["cells"][1:]]
    game.page.evaluate("([k, v]) => localStorage.setItem(k, v)", [KEY, json.dumps(saved)])
    after = _reload(game)
    assert (after["score"], after["board"], after["log"]) == (honest["score"], honest["board"], honest["log"])


def test_the_game_plays_when_storage_is_unavailable(game):
    game.page.add_init_script("""
        Object.defineProperty(window, 'localStorage', {
            get() { throw new DOMException('denied', 'SecurityError'); },
        });
    """)
    game.open()
    state = _play(game)
    assert len(state["log"]) >= 4


def test_a_saved_practice_game_is_its_record_and_a_ranked_one_has_no_seed(game):
    game.open()
    game.page.evaluate("window.game2048.newGame({seed: 31337})")
    state = _play(game)
    saved = json.loads(game.storage(KEY))["practice"]
    assert (saved["seed"], saved["log"], saved["score"]) == (31337, state["log"], state["score"])
    game.page.evaluate("window.game2048.newGame()")
    game.ranked()
    state = _play(game)
    saved = json.loads(game.storage(KEY))
    assert saved["practice"] is None and saved["served"]["log"] == state["log"]
    assert "seed" not in json.dumps(saved["served"])
