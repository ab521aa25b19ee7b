"""`game2048 review` prints the review of a record as a report or as exactly the library's JSON."""

from __future__ import annotations

import json
import random

import pytest
from typer.testing import CliRunner

from game2048 import Game
from game2048.cli import app
from game2048.solver import review
from game2048.solver.simulate import STRATEGIES

runner = CliRunner()


def record(strategy: str, size: int, seed: int, moves: int) -> dict:
    game = Game(size, seed)
    rng = random.Random(seed)
    while game.moves < moves and (move := STRATEGIES[strategy](game, rng)) is not None:
        game.move(move)
    return game.record()


@pytest.fixture(scope="module")
def solver_game() -> dict:
    return record("solver-fast", 4, 1, 400)


@pytest.fixture(scope="module")
def random_game() -> dict:
    return record("random", 4, 1, 400)


def review_json(rec: dict, *options: str) -> dict:
    result = runner.invoke(app, ["review", "-", "--json", *options], input=json.dumps(rec))
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_json_is_exactly_the_library_dict(solver_game):
    out = review_json(solver_game)
    assert out == review(solver_game["size"], solver_game["seed"], solver_game["log"])
    assert len(out["moves"]) == 400


def test_json_on_a_solver_game_and_a_random_game_meets_the_targets(solver_game, random_game):
    fast, rand = review_json(solver_game), review_json(random_game)
    for r in (fast, rand):
        assert set(r) == {"size", "seed", "preset", "accuracy", "counts", "moves"}
        assert sum(r["counts"].values()) == len(r["moves"])
        for m in r["moves"]:
            assert (m["played"] == m["best"]) == (m["loss"] == 0) == (m["class"] == "best")
    assert fast["accuracy"] >= 85
    assert rand["accuracy"] <= 60 and rand["counts"]["mistake"] + rand["counts"]["blunder"] > 0


def test_preset_is_passed_through():
    out = review_json(record("random", 3, 2, 30), "--preset", "fast")
    assert out["preset"] == "fast"


def test_report_names_accuracy_counts_and_the_worst_moves_with_their_boards(tmp_path, random_game):
    path = tmp_path / "game.json"
    path.write_text(json.dumps(random_game))
    result = runner.invoke(app, ["review", str(path)])
    assert result.exit_code == 0, result.output
    out = result.stdout
    expected = review(random_game["size"], random_game["seed"], random_game["log"])
    assert f"accuracy: {expected['accuracy']:.1f}" in out
    assert f"blunder: {expected['counts']['blunder']}" in out
    worst_lines = [line for line in out.splitlines() if line.startswith("move ")]
    assert len(worst_lines) == 5
    assert all("played" in line and "better" in line for line in worst_lines)
    # each worst move is followed by the board before it: 4 rows of 4 cells
    lines = out.splitlines()
    first = lines.index(worst_lines[0])
    assert all(len(row.split()) == 4 for row in lines[first + 1 : first + 5])


def test_a_perfect_game_says_so():
    game = Game(3, 8)
    result = runner.invoke(app, ["review", "-"], input=json.dumps(game.record()))
    assert result.exit_code == 0 and "0 moves reviewed" in result.stdout


def test_a_record_that_began_from_a_position_is_reviewed_from_it():
    """A practice record as GET /api/games/{id} serves it: its start is the board it began from."""
    board = [[2, 4, 8, 16], [0, 0, 2, 0], [0, 0, 0, 0], [0, 4, 0, 0]]
    game = Game.from_board(board, score=40, seed=5)
    for _ in range(12):
        game.move(game.legal_moves()[-1])
    rec = {"size": 4, "seed": 5, "log": game.log, "start": {"board": board, "score": 40}}
    assert review_json(rec) == review(4, 5, game.log, start_board=board)
    report = runner.invoke(app, ["review", "-"], input=json.dumps(rec))
    assert report.exit_code == 0, report.output
    assert f"accuracy: {review_json(rec)['accuracy']:.1f}" in report.stdout
    # from an opening the same log is not a game: the start is what made it one
    opening = runner.invoke(app, ["review", "-"], input=json.dumps({**rec, "start": None}))
    assert opening.exit_code == 1 and opening.stderr.startswith("error: bad record")


def test_bad_records_fail_with_one_error_line(tmp_path):
    cases = [
        "{",
        "[1, 2]",
        json.dumps({"size": 4, "seed": 1}),
        json.dumps({"size": 4, "seed": 1, "log": "LQ"}),
        json.dumps({"size": 9, "seed": 1, "log": ""}),
        json.dumps({"size": "4", "seed": 1, "log": "L"}),
        json.dumps({"size": 4, "seed": -1, "log": "L"}),
        json.dumps({"size": 4, "seed": 1, "log": "L", "start": [[2]]}),
        json.dumps({"size": 4, "seed": 1, "log": "L", "start": {"board": [[2, 2], [0, 0]]}}),
        json.dumps({"size": 4, "seed": 1, "log": "L", "start": {"board": [[3, 0, 0, 0]] * 4}}),
    ]
    for text in cases:
        result = runner.invoke(app, ["review", "-", "--json"], input=text)
        assert result.exit_code == 1, text
        assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1, result.stderr
        assert result.stdout == ""
    missing = runner.invoke(app, ["review", str(tmp_path / "nope.json")])
    assert missing.exit_code == 1 and "cannot read" in missing.stderr


def test_an_unknown_preset_is_a_usage_error():
    result = runner.invoke(app, ["review", "-", "--preset", "perfect"], input="{}")
    assert result.exit_code == 2 and "fast, normal, strong" in result.output
