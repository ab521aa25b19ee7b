"""The learned evaluator: symmetric features, TD updates, exact resume, learning, legal and real games."""

from __future__ import annotations

import random
import signal
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from game2048 import Game, replay
from game2048.cli import app
from game2048.rules import DIRECTIONS, slide
from game2048.solver.learn import checkpoint, ntuple
from game2048.solver.learn.play import best_move, evaluate, pack, play_game
from game2048.solver.learn.train import ROUND_GAMES, new_run, tables, train


@pytest.fixture(scope="module")
def random_weights() -> np.ndarray:
    rng = np.random.default_rng(7)
    return rng.random((ntuple.TUPLES, ntuple.TABLE_SIZE), dtype=np.float32) - np.float32(0.5)


@pytest.fixture(scope="module")
def trained() -> np.ndarray:
    """A network after 1,500 training games (about a second)."""
    run = new_run(seed=3)
    train(run, max_games=1500, log=None)
    return run.weights


def unpack(b: int) -> list[list[int]]:
    return [[(1 << e) if (e := (b >> (4 * (4 * r + c))) & 0xF) else 0 for c in range(4)] for r in range(4)]


def symmetries(board: list[list[int]]) -> list[list[list[int]]]:
    out = []
    m = board
    for _ in range(4):
        m = [list(row) for row in zip(*m[::-1], strict=True)]  # a quarter turn
        out += [m, [row[::-1] for row in m]]
    return out


_TILES = st.sampled_from([0, 0, 0, 2, 4, 8, 16, 64, 512, 2048, 32768])
boards_4x4 = (
    st.lists(_TILES, min_size=16, max_size=16)
    .filter(lambda cells: cells.count(32768) <= 1)
    .map(lambda cells: [cells[i : i + 4] for i in range(0, 16, 4)])
)


@settings(max_examples=40, deadline=None)
@given(board=boards_4x4)
def test_a_board_and_its_eight_symmetries_have_the_same_value(
    random_weights: np.ndarray, board: list[list[int]]
) -> None:
    values = [float(ntuple.value(random_weights, pack(s))) for s in symmetries(board)]
    assert max(values) - min(values) <= 1e-4 * max(1.0, max(map(abs, values)))


def reference_value(w: np.ndarray, board: list[list[int]]) -> float:
    """The network written out: each tuple's cells read in order, the first in the lowest 4 bits."""
    total = 0.0
    for s in symmetries(board):
        cells = [v.bit_length() - 1 if v else 0 for row in s for v in row]
        for k, tup in enumerate(ntuple.TUPLE_CELLS):
            total += float(w[k, sum(cells[c] << (4 * j) for j, c in enumerate(tup))])
    return total


@settings(max_examples=40, deadline=None)
@given(board=boards_4x4)
def test_the_value_sums_each_tuple_over_the_eight_symmetries(
    random_weights: np.ndarray, board: list[list[int]]
) -> None:
    expected = reference_value(random_weights, board)
    assert ntuple.value(random_weights, pack(board)) == pytest.approx(expected, abs=1e-3)


def test_moves_and_points_follow_the_rules() -> None:
    slide_t, points_t = tables()
    rnd = random.Random(5)
    for _ in range(300):
        board = [[rnd.choice([0, 0, 2, 2, 4, 8, 16, 1024]) for _ in range(4)] for _ in range(4)]
        b = pack(board)
        for d, name in enumerate(DIRECTIONS):
            after, gained = ntuple.move(b, d, slide_t, points_t)
            expect, expect_points = slide(board, name)
            assert unpack(int(after)) == expect
            assert gained == expect_points


def test_a_td_update_moves_the_value_toward_its_target() -> None:
    w = np.zeros((ntuple.TUPLES, ntuple.TABLE_SIZE), dtype=np.float32)
    b = pack([[2, 4, 8, 16], [0, 2, 0, 0], [0, 0, 0, 0], [0, 0, 0, 4]])
    target = 100.0
    before = ntuple.value(w, b)
    after = ntuple.update(w, b, 0.1 / ntuple.FEATURES * (target - before))
    assert after == pytest.approx(ntuple.value(w, b))
    assert before < after < target
    # with every cell different the 32 looks select 32 distinct weights: a full step lands on the target
    w[:] = 0
    distinct = pack([[(1 << e) if e else 0 for e in range(4 * r, 4 * r + 4)] for r in range(4)])
    assert ntuple.update(w, distinct, 1.0 / ntuple.FEATURES * target) == pytest.approx(target, rel=1e-5)


def test_checkpoint_save_and_resume_continue_exactly(tmp_path) -> None:
    straight = new_run(seed=11, window=150)
    train(straight, max_games=4 * ROUND_GAMES, log=None)

    cut = new_run(seed=11, window=150)
    path = tmp_path / checkpoint.FILE_NAME
    train(cut, max_games=2 * ROUND_GAMES, checkpoint=path, log=None)
    assert not path.with_name(path.name + ".tmp").exists()
    resumed = checkpoint.load(path)
    assert np.array_equal(resumed.weights, cut.weights)
    assert resumed.header() == cut.header()
    train(resumed, max_games=4 * ROUND_GAMES, log=None)

    assert np.array_equal(resumed.weights, straight.weights)
    for name in ("games", "moves", "rng", "pending_scores", "pending_tops", "alpha", "window"):
        assert getattr(resumed, name) == getattr(straight, name), name
    assert [r["mean_score"] for r in resumed.curve] == [r["mean_score"] for r in straight.curve]
    assert len(resumed.curve) == 2


def test_a_checkpoint_maps_read_only(tmp_path) -> None:
    run = new_run(seed=2)
    run.weights[1, 12345] = 3.5
    path = tmp_path / "x.ckpt"
    checkpoint.save(run, path)
    mapped = checkpoint.load(path, writable=False)
    assert mapped.weights[1, 12345] == 3.5 and not mapped.weights.flags.writeable


def test_training_improves_on_an_untrained_network(trained: np.ndarray) -> None:
    untrained = evaluate(checkpoint.new_weights(), 40, seed=0)
    learned = evaluate(trained, 40, seed=0)
    assert learned.mean_score > 2 * untrained.mean_score


@settings(max_examples=60, deadline=None)
@given(board=boards_4x4, ply=st.sampled_from([1, 2]))
def test_the_player_always_picks_a_legal_move(
    random_weights: np.ndarray, board: list[list[int]], ply: int
) -> None:
    move = best_move(random_weights, board, ply=ply)
    legal = [d for d in DIRECTIONS if slide(board, d)[0] != board]
    assert (move is None) == (not legal)
    if move is not None:
        assert move in legal


def test_a_seeded_game_is_the_real_game_and_replays(trained: np.ndarray) -> None:
    for seed in (0, 1, 2**52 + 3):
        for ply in (1, 2):
            game = play_game(trained, seed, ply=ply)
            real = replay(4, seed, game.log)
            assert real.score == game.score
            assert real.max_tile == game.max_tile
            assert real.over != game.capped
            fresh = Game(4, seed)
            assert fresh.board == replay(4, seed, "").board


def test_evaluation_is_deterministic_for_a_seed(trained: np.ndarray) -> None:
    one = evaluate(trained, 12, seed=100, ply=1)
    two = evaluate(trained, 12, seed=100, ply=1, threads=2)
    assert one.as_dict() | {"us_per_move": 0} == two.as_dict() | {"us_per_move": 0}
    assert evaluate(trained, 12, seed=101).mean_score != one.mean_score


def test_a_player_refuses_boards_it_cannot_hold() -> None:
    with pytest.raises(ValueError):
        pack([[32768, 32768, 0, 0], [0] * 4, [0] * 4, [0] * 4])
    with pytest.raises(ValueError):
        pack([[65536, 0, 0, 0], [0] * 4, [0] * 4, [0] * 4])
    with pytest.raises(ValueError):
        pack([[0] * 3] * 3)
    with pytest.raises(ValueError):
        play_game(checkpoint.new_weights(), "00112233445566778899aabbccddeeff")  # type: ignore[arg-type]


def test_learn_stops_on_sigterm_saves_and_resumes_and_learn_eval_reads_it(tmp_path) -> None:
    cli = "from game2048.cli import app; app()"
    command = [sys.executable, "-c", cli, "learn", "--dir", str(tmp_path), "--window", "50"]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    assert proc.stdout.readline().startswith("new run")
    assert proc.stdout.readline().startswith("games")  # a row of the curve: it is training
    proc.send_signal(signal.SIGTERM)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0
    assert "checkpoint" in out and "stopped" in out
    games = checkpoint.read_header(tmp_path / checkpoint.FILE_NAME)[0]["games"]
    assert games > 0

    runner = CliRunner()
    with checkpoint.claim(tmp_path):  # as if another run were training in this folder
        busy = runner.invoke(app, ["learn", "--dir", str(tmp_path), "--games", str(games + 100)])
        assert busy.exit_code == 1 and "another training run" in busy.output
    again = runner.invoke(app, ["learn", "--dir", str(tmp_path), "--games", str(games + 100)])
    assert again.exit_code == 0, again.output
    assert "resuming" in again.output and f"{games + 100:,} games" in again.output
    shown = runner.invoke(app, ["learn-eval", "--dir", str(tmp_path), "--games", "3", "--ply", "2"])
    assert shown.exit_code == 0, shown.output
    assert "2-ply" in shown.output and "µs" in shown.output
    missing = runner.invoke(app, ["learn-eval", "--dir", str(tmp_path / "none")])
    assert missing.exit_code != 0
