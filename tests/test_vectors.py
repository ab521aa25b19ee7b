"""The committed vectors (shared with the browser engine's tests) match this engine."""

import json
from pathlib import Path

import pytest

from game2048 import RecordError, replay, slide, slide_row
from game2048.spawn import spawn_choice

VECTORS = json.loads((Path(__file__).parent / "vectors" / "engine.json").read_text())


def test_vectors_cover_every_size_and_outcome():
    games = VECTORS["games"]
    assert {g["size"] for g in games} == {3, 4, 5, 6}
    assert any(g["won"] and g["size"] == 3 for g in games)
    assert any(g["over"] for g in games) and any(not g["ranked"] for g in games)
    assert len(games) >= 200


def test_spawn_vectors():
    for case in VECTORS["spawn"]:
        ordinal, exp = spawn_choice(case["seed"], case["index"], case["empty"])
        assert (ordinal, 1 << exp) == (case["ordinal"], case["tile"])


def test_slide_vectors():
    for case in VECTORS["slide_row"]:
        assert slide_row(case["line"]) == (case["result"], case["points"])
    for case in VECTORS["slide"]:
        assert slide(case["board"], case["direction"]) == (case["result"], case["points"])


@pytest.mark.parametrize("case", VECTORS["games"], ids=lambda c: f"{c['size']}-{c['seed']}-{len(c['log'])}")
def test_game_vectors(case):
    game = replay(case["size"], case["seed"], case["log"])
    got = {
        "board": game.board, "score": game.score, "over": game.over, "won": game.won,
        "max_tile": game.max_tile, "undos_left": game.undos_left, "ranked": game.ranked,
    }
    assert got == {k: case[k] for k in got}


def test_bad_record_vectors():
    for case in VECTORS["bad_records"]:
        with pytest.raises(RecordError) as info:
            replay(case["size"], case["seed"], case["log"])
        assert info.value.position == case["position"]
