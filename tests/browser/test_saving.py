"""Saving in the browser: reload resumes exactly; broken saved data never breaks the page."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.browser

KEY = "game2048:game:4"


def _play(game, keys="ArrowLeft ArrowUp ArrowRight ArrowDown ArrowLeft ArrowUp"):
    for key in keys.split():
        game.page.keyboard.press(key)


def test_reload_resumes_exactly(game):
    game.open()
    _play(game)
    game.page.locator("#undo").click()
    before = game.state()
    assert before["log"]
    game.page.reload()
    game.page.wait_for_function("() => window.game2048 !== undefined")
    after = game.state()
    for field in ("size", "seed", "board", "score", "log", "won", "over", "undosLeft", "id"):
        assert after[field] == before[field], field


def test_each_size_keeps_its_own_game_and_best(game):
    game.open()
    _play(game)
    four = game.state()
    game.page.locator("[data-size='3']").click()
    assert game.state()["size"] == 3
    assert game.page.locator("#leaderboard-link").get_attribute("href") == "/leaderboard?size=3"
    _play(game, "ArrowDown ArrowRight")
    game.page.locator("[data-size='4']").click()
    back = game.state()
    assert (back["seed"], back["log"], back["board"]) == (four["seed"], four["log"], four["board"])
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
    game.page.keyboard.press("ArrowLeft")
    game.page.keyboard.press("ArrowRight")
    assert game.state()["log"]
    assert json.loads(game.storage(KEY))["v"] == 1


def test_a_tampered_score_is_discarded(game):
    game.open()
    _play(game)
    saved = json.loads(game.storage(KEY))
    saved["score"] += 1000
    game.page.evaluate("([k, v]) => localStorage.setItem(k, v)", [KEY, json.dumps(saved)])
    game.page.reload()
    game.page.wait_for_function("() => window.game2048 !== undefined")
    assert game.state()["log"] == ""


def test_the_game_plays_when_storage_is_unavailable(game):
    game.page.add_init_script("""
        Object.defineProperty(window, 'localStorage', {
            get() { throw new DOMException('denied', 'SecurityError'); },
        });
    """)
    game.open()
    _play(game)
    state = game.state()
    assert len(state["log"]) >= 4


def test_the_saved_game_is_the_record_of_the_game(game):
    game.open()
    _play(game)
    saved = json.loads(game.storage(KEY))
    state = game.state()
    assert (saved["seed"], saved["log"], saved["score"], saved["size"]) == (
        state["seed"], state["log"], state["score"], 4)
