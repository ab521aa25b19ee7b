"""Temporal coherence learning: each weight's step scaled by |E| / A of its own steps; its
accumulators live in the checkpoint, not in shipped weights."""

from __future__ import annotations

import numpy as np
import pytest
from typer.testing import CliRunner

from game2048.cli import app
from game2048.solver.learn import checkpoint, ntuple, shipped
from game2048.solver.learn.train import ROUND_GAMES, new_run, train

T = ntuple.TUPLES

#: Fifteen different tiles and one empty cell: the board's 32 looks select 32 different weights.
DISTINCT = sum(e << (4 * i) for i, e in enumerate([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]))


def fresh(stages: int = 1) -> tuple[np.ndarray, np.ndarray]:
    weights = checkpoint.new_weights(stages)
    return weights, checkpoint.new_accumulators(weights)


def test_a_weights_first_step_is_the_plain_step() -> None:
    rng = np.random.default_rng(3)
    for _ in range(20):
        board = np.uint64(int(rng.integers(0, 2**63)) | int(rng.integers(0, 2)) << 63)
        plain = checkpoint.new_weights()
        w, tc = fresh()
        assert ntuple.update_coherent(w, tc, board, 0.25) == ntuple.update(plain, board, 0.25)
        assert np.array_equal(w, plain)


def test_steps_that_cancel_slow_a_weight_down_and_steps_that_agree_do_not() -> None:
    b = np.uint64(DISTINCT)
    w, tc = fresh()
    assert ntuple.update_coherent(w, tc, b, 1.0) == pytest.approx(32.0)  # rate 1
    assert ntuple.update_coherent(w, tc, b, -1.0) == pytest.approx(0.0)  # |E| / A = 1 / 1
    # E is now 0 and A is 2: the next step does nothing, whatever its size
    assert ntuple.update_coherent(w, tc, b, 5.0) == pytest.approx(0.0)
    assert np.all(tc[..., 1][w != 0] >= 0)
    # E 5, A 7: the next step moves at 5/7 of its size
    assert ntuple.update_coherent(w, tc, b, 1.0) == pytest.approx(32 * 5 / 7, rel=1e-6)

    agreeing, tc2 = fresh()
    for i in range(1, 6):
        assert ntuple.update_coherent(agreeing, tc2, b, 0.5) == pytest.approx(32 * 0.5 * i)


def test_training_with_coherence_moves_weights_and_keeps_a_at_least_e() -> None:
    run = new_run(alpha=0.1, seed=2, coherence=True)
    train(run, max_games=ROUND_GAMES, log=None)
    e, a = run.accumulators[..., 0], run.accumulators[..., 1]
    stepped = a > 0
    assert stepped.sum() > 10_000
    assert np.all(a >= np.abs(e) - 1e-6 * a)
    # some weights were pushed both ways: their rate is below 1
    assert np.any(np.abs(e[stepped]) < 0.5 * a[stepped])
    plain = new_run(alpha=0.1, seed=2)
    train(plain, max_games=ROUND_GAMES, log=None)
    assert plain.accumulators is None
    assert not np.array_equal(plain.weights, run.weights)


def test_a_coherent_run_resumes_exactly_from_its_checkpoint(tmp_path) -> None:
    path = tmp_path / checkpoint.FILE_NAME
    straight = new_run(alpha=0.05, seed=4, coherence=True, stages=2)
    train(straight, max_games=3 * ROUND_GAMES, log=None)
    cut = new_run(alpha=0.05, seed=4, coherence=True, stages=2)
    train(cut, max_games=ROUND_GAMES, checkpoint=path, log=None)
    assert checkpoint.read_header(path)[0]["accumulators"] is True
    back = checkpoint.load(path)
    assert back.coherence and back.accumulators is not None
    assert np.array_equal(back.accumulators, cut.accumulators)
    train(back, max_games=3 * ROUND_GAMES, log=None)
    assert np.array_equal(back.weights, straight.weights)
    assert np.array_equal(back.accumulators, straight.accumulators)
    # a reader that only plays maps the weights and leaves the accumulators on disk
    mapped = checkpoint.load(path, writable=False)
    assert mapped.accumulators is None and np.array_equal(mapped.weights, cut.weights)


def test_a_checkpoint_cut_inside_its_accumulators_is_refused(tmp_path) -> None:
    path = tmp_path / checkpoint.FILE_NAME
    run = new_run(coherence=True)
    run.learning_state()
    checkpoint.save(run, path)
    with open(path, "r+b") as f:
        f.truncate(path.stat().st_size - 4096)
    with pytest.raises(ValueError, match="cut short"):
        checkpoint.load(path)


def test_new_stages_start_with_no_steps_taken() -> None:
    run = new_run(alpha=0.1, seed=1, coherence=True)
    train(run, max_games=ROUND_GAMES, log=None)
    before = run.accumulators.copy()
    checkpoint.add_stages(run, 3)
    assert run.accumulators.shape == (3 * T, ntuple.TABLE_SIZE, 2)
    assert np.array_equal(run.accumulators[:T], before)
    assert not run.accumulators[T:].any()


def test_shipped_weights_keep_the_setting_but_not_the_accumulators(tmp_path) -> None:
    run = new_run(alpha=0.1, seed=5, coherence=True)
    train(run, max_games=ROUND_GAMES, log=None)
    out = tmp_path / "network.weights"
    shipped.write(run, out)
    back = shipped.read(out)
    assert back.coherence and back.accumulators is None
    # resumed, it starts them again: every weight's next step at the full rate
    assert not back.learning_state().any()


def test_learn_turns_coherence_on_and_off_on_resume(tmp_path) -> None:
    runner = CliRunner()
    folder = str(tmp_path / "run")
    first = runner.invoke(
        app, ["learn", "--dir", folder, "--fresh", "--coherence", "--games", str(ROUND_GAMES)]
    )
    assert first.exit_code == 0, first.output
    assert "temporal coherence" in first.output
    path = tmp_path / "run" / checkpoint.FILE_NAME
    assert checkpoint.load(path).accumulators is not None
    again = runner.invoke(app, ["learn", "--dir", folder, "--games", str(2 * ROUND_GAMES)])
    assert again.exit_code == 0 and "temporal coherence" in again.output  # the run's setting
    off = runner.invoke(app, ["learn", "--dir", folder, "--no-coherence", "--games", str(3 * ROUND_GAMES)])
    assert off.exit_code == 0 and "temporal coherence" not in off.output
    header, _ = checkpoint.read_header(path)
    assert header["coherence"] is False and "accumulators" not in header
    assert checkpoint.load(path).accumulators is None
