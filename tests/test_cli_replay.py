"""`game2048 replay` prints the outcome of a record, or one clear line and a failing status."""

import json

from typer.testing import CliRunner

from game2048 import Game
from game2048.cli import app

runner = CliRunner()


def test_help_lists_commands():
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0 and "replay" in result.output


def test_replay_from_stdin_prints_board_score_and_ranking():
    game = Game(4, 77)
    for d in "LURDLURD":
        game.move(d)
    result = runner.invoke(app, ["replay", "-"], input=json.dumps(game.record()))
    assert result.exit_code == 0
    assert f"score: {game.score}" in result.output
    assert f"max tile: {game.max_tile}" in result.output
    assert "ranked: yes" in result.output


def test_replay_from_file_with_undo_is_unranked(tmp_path):
    game = Game(3, 5)
    game.move("L") or game.move("R")
    game.undo()
    path = tmp_path / "game.json"
    path.write_text(json.dumps(game.record()))
    result = runner.invoke(app, ["replay", str(path)])
    assert result.exit_code == 0 and "ranked: no" in result.output


def test_replay_of_a_record_with_a_secret_seed():
    game = Game(5, "00112233445566778899aabbccddeeff")
    for d in "LURDLURD":
        game.move(d)
    result = runner.invoke(app, ["replay", "-"], input=json.dumps(game.record()))
    assert result.exit_code == 0 and f"score: {game.score}" in result.output


def test_bad_records_fail_with_one_line(tmp_path):
    cases = {
        "bad secret seed": json.dumps({"size": 4, "seed": "00112233", "log": ""}),
        "seed not a number or string": json.dumps({"size": 4, "seed": [1], "log": ""}),
        "no seed": json.dumps({"size": 4, "seed": None, "log": "L"}),
        "not json": "{",
        "not a record": "[1, 2]",
        "bad letter": json.dumps({"size": 4, "seed": 1, "log": "LQ"}),
        "bad size": json.dumps({"size": 9, "seed": 1, "log": ""}),
    }
    for text in cases.values():
        result = runner.invoke(app, ["replay", "-"], input=text)
        assert result.exit_code == 1
        assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1
    missing = runner.invoke(app, ["replay", str(tmp_path / "nope.json")])
    assert missing.exit_code == 1 and "cannot read" in missing.stderr
    latin1 = tmp_path / "latin1.json"
    latin1.write_bytes(b'{"size": 4, "seed": 1, "log": "L\xe9"}')
    garbled = runner.invoke(app, ["replay", str(latin1)])
    assert garbled.exit_code == 1 and garbled.stderr == f"error: {latin1} is not UTF-8 text\n"


def test_replay_plays_a_record_from_its_start_board():
    """A game begun from a position replays from that position and score, not from an opening."""
    game = Game.from_board([[128, 128, 0], [0, 0, 0], [0, 0, 0]], score=1000, seed=9)
    game.move("left")
    record = game.record()
    assert record["start"] == {"board": [[128, 128, 0], [0, 0, 0], [0, 0, 0]], "score": 1000}
    result = runner.invoke(app, ["replay", "-"], input=json.dumps(record))
    assert result.exit_code == 0, result.output
    assert f"score: {game.score}" in result.output and "max tile: 256" in result.output
    assert "won: yes" in result.output
    assert "ranked: no (began from a position)" in result.output


def test_replay_refuses_a_bad_start_with_one_line():
    record = {"size": 3, "seed": 1, "log": "L", "start": {"board": "full"}}
    result = runner.invoke(app, ["replay", "-"], input=json.dumps(record))
    assert result.exit_code == 1 and result.stderr.startswith("error: start must be")
