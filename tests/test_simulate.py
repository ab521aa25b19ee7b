"""``game2048 simulate``: seeded strategy games, the data file, and the committed data's reproducibility."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from game2048.cli import app
from game2048.record import replay
from game2048.rules import can_move
from game2048.solver import simulate as sim


def test_a_strategy_game_is_a_pure_function_of_size_and_seed() -> None:
    for strategy in ("random", "greedy", "corner-greedy", "corner-rush", "corner"):
        assert sim.play(strategy, 4, 11) == sim.play(strategy, 4, 11)


def test_a_finished_game_ends_on_a_board_with_no_move() -> None:
    for strategy in ("random", "corner"):
        _, score, max_tile, moves, over, board = sim.play(strategy, 3, 5)
        final = sim.decode_board(board)
        assert over == 1 and not can_move(final)
        assert max_tile == max(v for row in final for v in row)
        assert score > 0 and moves > 0


def test_corner_strategies_use_up_only_when_nothing_else_moves() -> None:
    from game2048.game import Game

    game = Game(4, 3)
    rng = __import__("random").Random(3)
    while not game.over:
        move = sim.STRATEGIES["corner"](game, rng)
        if move == "up":
            assert game.legal_moves() == ["up"]
        game.move(move)


def test_a_move_cap_stops_a_game_early_and_says_so() -> None:
    row = sim.play("corner", 5, 1, max_moves=20)
    assert row[3] == 20 and row[4] == 0


def test_boards_round_trip_through_their_text_form() -> None:
    board = [[0, 2, 4], [1024, 8, 0], [2, 0, 16]]
    assert sim.decode_board(sim.encode_board(board)) == board
    big = [[1 << 37] + [0] * 5] + [[0] * 6 for _ in range(5)]
    assert sim.decode_board(sim.encode_board(big)) == big


def test_merge_replaces_a_seed_and_keeps_rows_sorted() -> None:
    data = sim.empty_data()
    sim.merge(data, [("corner", 4, [2, 10, 8, 3, 1, "x"]), ("corner", 4, [0, 5, 4, 2, 1, "y"])], "first")
    sim.merge(data, [("corner", 4, [2, 99, 8, 3, 1, "z"])], "second")
    assert [r[0] for r in data["results"]["4"]["corner"]] == [0, 2]
    assert data["results"]["4"]["corner"][1][1] == 99
    assert [r["command"] for r in data["runs"]] == ["first", "second"]
    assert [r["games"] for r in data["runs"]] == [1, 1]
    sim.merge(data, [("corner", 4, [0, 7, 4, 2, 1, "w"])], "third")
    assert [r["command"] for r in data["runs"]] == ["second", "third"]  # "first" has no game left


def test_processes_give_the_same_rows_as_one_process() -> None:
    one = sorted(sim.run(["random", "corner"], [3], 4, jobs=1))
    two = sorted(sim.run(["random", "corner"], [3], 4, jobs=2))
    assert one == two


def test_the_command_writes_a_valid_deterministic_file(tmp_path) -> None:
    runner = CliRunner()
    outputs = []
    for name in ("a.json", "b.json"):
        out = tmp_path / name
        args = [
            "simulate",
            "--games",
            "3",
            "--sizes",
            "3,4",
            "--strategies",
            "random,corner",
            "--jobs",
            "1",
            "--first-seed",
            "100",
            "--out",
            str(out),
        ]
        result = runner.invoke(app, args)
        assert result.exit_code == 0, result.output
        data = json.loads(out.read_text(encoding="utf-8"))
        assert data["format"] == sim.FORMAT
        assert data["runs"][0]["command"].startswith("game2048 simulate --games 3 --sizes 3,4")
        assert data["runs"][0]["games"] == 12
        assert all(r[6] == data["runs"][0]["id"] for rows in data["results"]["4"].values() for r in rows)
        outputs.append(data["results"])
    assert outputs[0] == outputs[1]
    assert [r[0] for r in outputs[0]["4"]["corner"]] == [100, 101, 102]


def test_the_command_merges_into_an_existing_file(tmp_path) -> None:
    out = tmp_path / "d.json"
    runner = CliRunner()
    base = ["simulate", "--sizes", "3", "--strategies", "corner", "--jobs", "1", "--out", str(out)]
    assert runner.invoke(app, [*base, "--games", "2"]).exit_code == 0
    assert runner.invoke(app, [*base, "--games", "2", "--first-seed", "2"]).exit_code == 0
    data = json.loads(out.read_text(encoding="utf-8"))
    assert [r[0] for r in data["results"]["3"]["corner"]] == [0, 1, 2, 3]
    assert len(data["runs"]) == 2


@pytest.mark.parametrize("bad", [["--sizes", "7"], ["--strategies", "psychic"], ["--sizes", "four"],
                                 ["--sizes", "3,4", "--strategies", "solver-learned"]])
def test_the_command_refuses_bad_options(tmp_path, bad) -> None:
    result = CliRunner().invoke(app, ["simulate", "--games", "1", "--out", str(tmp_path / "x.json"), *bad])
    assert result.exit_code != 0
    assert not (tmp_path / "x.json").exists()


def test_the_network_is_measured_only_where_it_plays(tmp_path, monkeypatch) -> None:
    """``solver-learned`` is the trained network on 4x4; without the weights its preset would play
    the heuristic, so the command refuses rather than write the heuristic's games under its name."""
    from game2048.solver import learned

    assert sim.unplayable("solver-learned", 5) == "solver-learned plays only 4x4"
    assert sim.unplayable("corner", 5) is None
    monkeypatch.setattr(learned, "network", lambda: None)
    assert "needs the trained weights" in (sim.unplayable("solver-learned", 4) or "")
    out = tmp_path / "x.json"
    result = CliRunner().invoke(app, ["simulate", "--games", "1", "--strategies", "solver-learned",
                                      "--out", str(out)])
    assert result.exit_code == 2 and "pip install ./weights" in result.output and not out.exists()


def test_a_run_of_the_network_notes_the_weights_it_played(tmp_path, monkeypatch) -> None:
    from game2048.solver import learned
    from game2048.solver.learn.train import new_run

    learned.use_network(new_run().weights)  # an untrained network: quick, and a network all the same
    monkeypatch.setattr(sim, "weights_games", lambda: 1234)
    try:
        out = tmp_path / "x.json"
        result = CliRunner().invoke(app, ["simulate", "--games", "1", "--strategies", "corner,solver-learned",
                                          "--jobs", "1", "--max-moves", "30", "--out", str(out)])
    finally:
        learned.use_network(None)
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["runs"][0]["weights_games"] == 1234 and len(data["results"]["4"]["solver-learned"]) == 1


def _committed() -> list[tuple[int, str, list]]:
    data = sim.load()
    return [
        (int(size), strategy, rows)
        for size, by_strategy in data["results"].items()
        for strategy, rows in by_strategy.items()
    ]


def test_the_committed_data_covers_the_pages() -> None:
    data = sim.load()
    four = data["results"]["4"]
    for strategy in ("random", "greedy", "corner-greedy", "corner-rush", "corner"):
        assert len(four[strategy]) >= 1000, strategy
    assert all(run["command"].startswith("game2048 simulate") for run in data["runs"])


@pytest.mark.parametrize(("size", "strategy", "rows"), _committed(), ids=lambda v: str(v)[:20])
def test_the_committed_data_is_what_the_command_produces(size: int, strategy: str, rows: list) -> None:
    """A fresh run of the first games reproduces the committed rows exactly.

    If this fails after a change to a strategy or to the solver, the data is
    stale: run the commands listed in the file's ``runs`` again.
    """
    if (why := sim.unplayable(strategy, size)) is not None:
        pytest.skip(f"{why} (scripts/test.sh installs them)")
    first = rows[:3] if size <= 4 else rows[:1]
    for row in first:
        max_moves = None if row[4] else row[3]
        assert sim.play(strategy, size, row[0], max_moves=max_moves) == row[:6]


def test_a_solver_game_replays_from_its_record() -> None:
    pytest.importorskip("game2048.solver")
    from game2048.solver import play_game

    game = play_game(3, 4, "fast")
    again = replay(3, 4, game.log)
    assert (again.score, again.board) == (game.score, game.board)


def test_a_run_saved_in_parts_is_counted_once() -> None:
    data = sim.empty_data()
    run = sim.merge(data, [("corner", 3, [0, 1, 2, 3, 1, "x"])], "cmd")["runs"][-1]
    sim.merge(data, [("corner", 3, [1, 1, 2, 3, 1, "y"])], "cmd", run)
    assert data["runs"] == [{"id": 1, "command": "cmd", "games": 2, "finished": run["finished"]}]


def test_rows_of_an_older_file_are_given_the_run_that_covers_them() -> None:
    data = {
        "format": sim.FORMAT,
        "runs": [
            {
                "command": "game2048 simulate --games 2 --sizes 4 --strategies corner --first-seed 0",
                "games": 2,
            },
            {
                "command": "game2048 simulate --games 1 --sizes 4 --strategies corner --first-seed 1",
                "games": 1,
            },
        ],
        "results": {"4": {"corner": [[0, 1, 2, 3, 1, "a"], [1, 1, 2, 3, 1, "b"]]}},
    }
    sim._adopt_rows_without_run(data)
    assert [r[6] for r in data["results"]["4"]["corner"]] == [1, 2]


def test_simulate_writes_to_the_current_directory_by_default(tmp_path, monkeypatch):
    """Never into the installed package: the pages' own file is written only when named with --out."""
    from game2048.solver.simulate import DATA_FILE

    before = DATA_FILE.stat().st_mtime_ns
    monkeypatch.chdir(tmp_path)
    args = ["simulate", "--games", "1", "--sizes", "3", "--strategies", "random", "--jobs", "1"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert (tmp_path / "simulations.json").exists() and DATA_FILE.stat().st_mtime_ns == before
