"""The review: one graded entry per move, loss 0 exactly for the solver's move, and accuracies that
tell a solver's game from a random one."""

from __future__ import annotations

import random

import pytest

from game2048 import Game, RecordError
from game2048.solver import review
from game2048.solver.review import (
    CLASSES,
    THRESHOLDS,
    board_weight,
    grade,
    grade_moves,
    move_accuracy,
    summarise,
    worst,
)
from game2048.solver.simulate import STRATEGIES


def played(strategy: str, size: int, seed: int, max_moves: int) -> Game:
    """A game played by one of the simulations' strategies."""
    game = Game(size, seed)
    rng = random.Random(seed)
    choose = STRATEGIES[strategy]
    while game.moves < max_moves and (move := choose(game, rng)) is not None:
        game.move(move)
    return game


def test_review_has_exactly_the_documented_shape():
    game = played("random", 3, 4, 40)
    r = review(3, 4, game.log)
    assert set(r) == {"size", "seed", "preset", "accuracy", "counts", "moves"}
    assert (r["size"], r["seed"], r["preset"]) == (3, 4, "normal")
    assert list(r["counts"]) == list(CLASSES)
    assert sum(r["counts"].values()) == len(r["moves"]) == len(game.log)
    assert 0 <= r["accuracy"] <= 100
    for i, m in enumerate(r["moves"]):
        assert set(m) == {"n", "played", "best", "loss", "class"}
        assert m["n"] == i + 1
        assert m["played"][0].upper() == game.log[i]
        assert m["best"] in ("up", "down", "left", "right")
        assert m["loss"] >= 0 and m["class"] in CLASSES


def test_the_solvers_own_move_loses_nothing_and_only_it_is_best():
    r = review(4, 9, played("corner", 4, 9, 120).log)
    assert any(m["played"] == m["best"] for m in r["moves"])
    assert any(m["played"] != m["best"] for m in r["moves"])
    for m in r["moves"]:
        same = m["played"] == m["best"]
        assert (m["loss"] == 0) == same
        assert (m["class"] == "best") == same


def test_undone_moves_are_graded_and_undo_gets_no_entry():
    game = Game(4, 3)
    for letter in "LDR":
        game.move(letter) or game.move("U")
    game.undo()
    game.undo()
    game.move(game.legal_moves()[0])
    r = review(4, 3, game.log)
    letters = [(i + 1, c) for i, c in enumerate(game.log) if c != "Z"]
    assert [(m["n"], m["played"][0].upper()) for m in r["moves"]] == letters
    assert len(r["moves"]) == len(game.log) - 2


def test_counts_and_accuracy_follow_from_the_moves():
    r = review(3, 11, played("greedy", 3, 11, 60).log)
    for name in CLASSES:
        assert r["counts"][name] == sum(m["class"] == name for m in r["moves"])
    mean = sum(move_accuracy(m["loss"]) for m in r["moves"]) / len(r["moves"])
    assert r["accuracy"] == round(mean, 1)


def test_a_review_made_in_pieces_equals_the_whole():
    game = played("random", 4, 21, 90)
    game.undo()
    game.move(game.legal_moves()[-1])
    whole = list(grade_moves(4, 21, game.log))
    cut = len(game.log) // 3
    parts = [*grade_moves(4, 21, game.log, start=0, stop=cut), *grade_moves(4, 21, game.log, start=cut)]
    assert parts == whole


def test_a_game_from_a_position_is_graded_from_that_position():
    """A practice game that began from a loaded position: its record replays only from there."""
    from game2048.solver import analyse

    board = [[2, 4, 8, 16], [0, 0, 2, 0], [0, 0, 0, 0], [0, 4, 0, 0]]
    game = Game.from_board(board, score=40, seed=5)
    for _ in range(8):
        game.move(game.legal_moves()[-1])
    r = review(4, 5, game.log, start_board=board)
    assert [m["n"] for m in r["moves"]] == list(range(1, 9))
    assert r["moves"][0]["best"] == analyse(board)[0]  # graded on the loaded board, not an opening
    pieces = [*grade_moves(4, 5, game.log, start=0, stop=3, start_board=board),
              *grade_moves(4, 5, game.log, start=3, start_board=board)]
    assert pieces == r["moves"]
    with pytest.raises(RecordError):
        review(4, 5, "UUUUUUUU", start_board=board)  # checked from the position too, before any search


def test_classes_rise_with_the_loss():
    assert grade(0.0, same=True) == "best"
    assert grade(0.0) == "good"
    bounds = list(THRESHOLDS.values())
    assert bounds == sorted(bounds)
    for name, start in THRESHOLDS.items():
        assert grade(start) == name
        assert grade(start * 0.999) != name
    assert move_accuracy(0) == 100
    assert move_accuracy(bounds[0]) > move_accuracy(bounds[-1]) > 0


def test_board_weight_counts_each_cell_in_its_row_and_its_column():
    assert board_weight([[2, 0, 0], [0, 0, 0], [0, 0, 4]]) == 2 * (47 * (1 + 16) + 270 * 7)
    assert board_weight([[1024] + [0] * 3] + [[0] * 4] * 3) == 2 * (47 * 10**4 + 270 * 15)
    full = [[2, 4], [8, 16]] * 1
    assert board_weight([row * 2 for row in full] * 2) == 2 * 47 * 4 * (1 + 16 + 81 + 256)


def test_a_bad_record_is_refused_before_any_search():
    with pytest.raises(RecordError, match="position 2"):
        review(4, 1, "LLX")
    with pytest.raises(ValueError, match="preset"):
        review(4, 1, "L", preset="perfect")


def test_worst_lists_the_largest_losses_first():
    moves = [{"n": 1, "loss": 0.0}, {"n": 2, "loss": 0.3}, {"n": 3, "loss": 0.5}, {"n": 4, "loss": 0.3}]
    assert [m["n"] for m in worst(moves, 3)] == [3, 2, 4]
    assert summarise(4, 0, "fast", [])["accuracy"] == 100.0


# The targets of issue 13 on small fixed seeds; bench/review_calibration.py measures them on more games.


@pytest.mark.parametrize("size", [3, 4])
def test_a_fast_solver_game_scores_at_least_85(size: int):
    r = review(size, 2, played("solver-fast", size, 2, 400).log)
    assert r["accuracy"] >= 85


@pytest.mark.parametrize("size", [3, 4])
def test_a_random_game_scores_at_most_60_with_mistakes_or_blunders(size: int):
    r = review(size, 2, played("random", size, 2, 400).log)
    assert r["accuracy"] <= 60
    assert r["counts"]["mistake"] + r["counts"]["blunder"] > 0


def test_a_corner_method_game_lands_between():
    solver = review(4, 5, played("solver-fast", 4, 5, 400).log)["accuracy"]
    corner = review(4, 5, played("corner", 4, 5, 400).log)["accuracy"]
    rand = review(4, 5, played("random", 4, 5, 400).log)["accuracy"]
    assert rand < corner < solver
