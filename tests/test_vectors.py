"""The committed vectors (shared with the browser engine's tests) match this engine."""

import json
from pathlib import Path

import pytest

from game2048 import Game, RecordError, replay, slide, slide_row, spawn
from game2048.spawn import game_key, secret_word, spawn_choice

VECTORS = json.loads((Path(__file__).parent / "vectors" / "engine.json").read_text())


def test_vectors_cover_every_size_and_outcome():
    games = VECTORS["games"]
    assert {g["size"] for g in games} == {3, 4, 5, 6}
    assert any(g["won"] and g["size"] == 3 for g in games)
    assert any(g["over"] for g in games) and any(not g["ranked"] for g in games)
    assert len(games) >= 200
    secret = [g for g in games if isinstance(g["seed"], str)]
    assert {g["size"] for g in secret} == {3, 4, 5, 6} and any(g["won"] for g in secret)
    assert any(isinstance(b["seed"], str) for b in VECTORS["bad_records"])


def test_spawn_vectors():
    for case in VECTORS["spawn"]:
        ordinal, exp = spawn_choice(case["seed"], case["index"], case["empty"])
        assert (ordinal, 1 << exp) == (case["ordinal"], case["tile"])


def test_secret_seed_words_are_keyed_blake2b_of_index_and_attempt():
    for case in VECTORS["secret_words"]:
        assert str(secret_word(game_key(case["seed"]), case["index"], case["attempt"])) == case["word"]


def test_secret_seed_spawn_vectors():
    for case in VECTORS["secret_spawn"]:
        ordinal, exp = spawn_choice(case["seed"], case["index"], case["empty"])
        assert (ordinal, 1 << exp) == (case["ordinal"], case["tile"])


@pytest.mark.parametrize("case", VECTORS["secret_rejections"], ids=lambda c: f"{c['rejected']}-rejected")
def test_secret_seed_rejection_vectors(case, monkeypatch):
    # the vectors lower the limit so that the first attempts are rejected
    empty = case["empty"]
    limits = list(spawn.LIMITS)
    limits[empty] = int(case["limit"])
    monkeypatch.setattr(spawn, "LIMITS", tuple(limits))
    ordinal, exp = spawn_choice(case["seed"], case["index"], empty)
    assert (ordinal, 1 << exp) == (case["ordinal"], case["tile"])
    monkeypatch.undo()
    assert spawn_choice(case["seed"], case["index"], empty) != (ordinal, exp)


@pytest.mark.parametrize("seed", VECTORS["bad_seeds"], ids=repr)
def test_bad_seed_vectors_are_refused(seed):
    with pytest.raises(ValueError, match="seed") as info:
        replay(4, seed, "")
    assert not isinstance(info.value, RecordError)
    if seed is not None:  # Game(size) with no seed chooses one
        with pytest.raises(ValueError, match="seed"):
            Game(4, seed)


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
