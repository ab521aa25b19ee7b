"""In a notebook: a game's positions step one by one, and a review shows its summary and worst moves."""

from __future__ import annotations

import json

import pytest

from game2048 import Game
from game2048.notebook import Steps
from game2048.solver import review


def _game() -> Game:
    game = Game(4, seed=8)
    for letter in "LURDLLUR":
        game.move(letter)
    game.undo()
    game.move("down") or game.move("up")
    return game


def test_steps_hold_every_position_from_the_opening_to_the_end():
    game = _game()
    steps = Steps.of(game)
    assert len(steps) == len(game.log) + 1
    assert steps[0].board == Game(4, seed=8).board and steps[0].letter == ""
    assert steps[-1].board == game.board and steps[-1].score == game.score
    assert [p.letter for p in steps][1:] == list(game.log)
    assert "undo" in steps[len(game.log) - 1].caption
    assert steps[3]._repr_svg_().startswith("<svg")


def test_steps_start_from_a_start_board():
    game = Game.from_board([[128, 128, 0], [0, 0, 0], [0, 0, 0]], score=500, seed=1)
    game.move("left")
    steps = Steps.of(game)
    assert steps[0].board == [[128, 128, 0], [0, 0, 0], [0, 0, 0]] and steps[0].score == 500
    assert steps[1].board == game.board


def test_the_strip_draws_each_position_and_a_long_game_is_sampled():
    steps = Steps.of(_game())
    html = steps._repr_html_()
    assert html.count("<svg") == len(steps) and "start" in html
    assert steps.strip(limit=4).count("<svg") == 4 and "every" in steps.strip(limit=4)


def test_a_bad_record_fails_whole():
    with pytest.raises(ValueError, match="bad record"):
        Steps(4, 1, "LLQ")


def test_the_slider_needs_ipywidgets_and_falls_back_to_the_strip():
    steps = Steps.of(_game())
    try:
        import ipywidgets  # noqa: F401
    except ImportError:
        assert steps.slider() is steps
    else:
        box = steps.slider()
        picture, caption, slider = box.children
        slider.value = 3
        assert caption.value == steps[3].caption and picture.value.startswith("<svg")


def test_a_review_shows_its_summary_and_worst_moves_and_stays_the_json_dict():
    game = _game()
    result = review(game.size, game.seed, game.log, "fast")
    assert json.loads(json.dumps(result)) == dict(result)
    html = result._repr_html_()
    assert f"accuracy <b>{result['accuracy']:.1f}</b>" in html and "blunder:" in html
    if any(m["loss"] > 0 for m in result["moves"]):
        assert "Worst moves" in html and "<svg" in html
