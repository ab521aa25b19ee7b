"""Multi-stage networks: a board is valued and trained by its stage's tables; new stages start as
copies of the last; checkpoints, shipped files and patches carry the stages."""

from __future__ import annotations

import sys
import types

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from game2048.cli import app
from game2048.solver.learn import checkpoint, ntuple, shipped
from game2048.solver.learn.play import best_move, evaluate, pack
from game2048.solver.learn.train import ROUND_GAMES, new_run, train

T = ntuple.TUPLES


@pytest.fixture(autouse=True)
def own_cache_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("xdg-cache")))


@pytest.fixture(scope="module")
def two_stages() -> np.ndarray:
    """Two stages of random weights, the second unlike the first."""
    rng = np.random.default_rng(11)
    return rng.random((2 * T, ntuple.TABLE_SIZE), dtype=np.float32) - np.float32(0.5)


def board_of(exponents: list[int]) -> int:
    return sum(e << (4 * i) for i, e in enumerate(exponents))


@settings(max_examples=300, deadline=None)
@given(cells=st.lists(st.integers(0, 15), min_size=16, max_size=16), stages=st.integers(1, ntuple.MAX_STAGES))
def test_a_boards_stage_follows_its_largest_tile(cells: list[int], stages: int) -> None:
    shape_only = np.zeros((stages * T, 1), dtype=np.float32)  # stage_base reads only the tables' count
    met = sum(max(cells) >= e for e in ntuple.STAGE_EXPONENTS)
    assert ntuple.stage_base(shape_only, np.uint64(board_of(cells))) == T * min(met, stages - 1)


def test_every_tile_value_picks_its_stage() -> None:
    """Each exponent alone, in each cell: the bit arithmetic sees 8192 and 16384 wherever they are."""
    three = np.zeros((3 * T, 1), dtype=np.float32)
    for cell in range(16):
        for e in range(16):
            cells = [0] * 16
            cells[cell] = e
            expect = 0 if e < 13 else 1 if e == 13 else 2
            assert ntuple.stage_base(three, np.uint64(board_of(cells))) == T * expect, (cell, e)


def test_a_board_is_valued_and_trained_by_its_stages_tables(two_stages: np.ndarray) -> None:
    early = pack([[4096, 2, 0, 0], [2048, 4, 0, 0], [8, 0, 0, 0], [0, 0, 0, 2]])
    late = pack([[8192, 2, 0, 0], [2048, 4, 0, 0], [8, 0, 0, 0], [0, 0, 0, 2]])
    first, second = np.ascontiguousarray(two_stages[:T]), np.ascontiguousarray(two_stages[T:])
    assert ntuple.value(two_stages, early) == pytest.approx(ntuple.value(first, early))
    assert ntuple.value(two_stages, late) == pytest.approx(ntuple.value(second, late))
    assert ntuple.value(first, late) != pytest.approx(ntuple.value(second, late))

    w = two_stages.copy()
    after = ntuple.update(w, late, 0.5)  # 32 looks, some on one weight: at least 32 * 0.5 higher
    assert after >= ntuple.value(two_stages, late) + 32 * 0.5 - 1e-3
    assert np.array_equal(w[:T], two_stages[:T])  # the first stage never saw the 8192
    assert not np.array_equal(w[T:], two_stages[T:])


def test_a_new_stage_starts_as_a_copy_and_plays_the_same_moves() -> None:
    run = new_run(seed=4)
    train(run, max_games=3 * ROUND_GAMES, log=None)
    one = run.weights.copy()
    checkpoint.add_stages(run, 2)
    assert run.weights.shape == (2 * T, ntuple.TABLE_SIZE)
    assert np.array_equal(run.weights[:T], one) and np.array_equal(run.weights[T:], one)
    rnd = np.random.default_rng(3)
    for _ in range(50):
        board = [[int(2 ** e) if e else 0 for e in row] for row in rnd.integers(0, 15, (4, 4))]
        b = pack(board)
        assert ntuple.value(run.weights, b) == pytest.approx(ntuple.value(one, b))
        assert best_move(run.weights, board, ply=2) == best_move(one, board, ply=2)
    assert evaluate(run.weights, 5, seed=9).mean_score == evaluate(one, 5, seed=9).mean_score
    with pytest.raises(ValueError, match="2 to 3 stages, not 1"):
        checkpoint.add_stages(run, 1)
    with pytest.raises(ValueError, match="2 to 3 stages"):
        checkpoint.add_stages(run, 4)
    train(run, max_games=run.games + ROUND_GAMES, log=None)  # trains on: small games touch stage 0 only
    assert np.array_equal(run.weights[T:], one)


def test_a_checkpoint_keeps_its_stages(tmp_path) -> None:
    run = new_run(seed=2, stages=3)
    run.weights[9, 4321] = 2.5
    path = tmp_path / checkpoint.FILE_NAME
    checkpoint.save(run, path)
    assert checkpoint.read_header(path)[0]["stages"] == 3
    for writable in (True, False):
        back = checkpoint.load(path, writable=writable)
        assert back.weights.shape == (3 * T, ntuple.TABLE_SIZE) and back.weights[9, 4321] == 2.5
        assert back.header() == run.header()
    with open(path, "r+b") as f:  # cut into the last stage
        f.truncate(path.stat().st_size - 4096)
    with pytest.raises(ValueError, match="cut short"):
        checkpoint.load(path)


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory):
    """A one-stage shipped file and the run it came from."""
    run = new_run(seed=6)
    train(run, max_games=2 * ROUND_GAMES, log=None)
    path = tmp_path_factory.mktemp("base") / shipped.FILE_NAME
    shipped.write(run, path)
    return path, run


def staged(run: checkpoint.Run, stages: int, nudge: float) -> checkpoint.Run:
    """``run`` with ``stages`` stages, its last stage's weights moved by ``nudge`` where they are not 0."""
    out = checkpoint.Run(**{**vars(run), "weights": run.weights.copy()})
    checkpoint.add_stages(out, stages)
    last = out.weights[T * (stages - 1):]
    last[last != 0] += np.float32(nudge)
    return out


def test_a_whole_file_ships_every_stage(base, tmp_path) -> None:
    _, run = base
    two = staged(run, 2, 3.0)
    path = tmp_path / "two.weights"
    header = shipped.write(two, path)
    assert len(header["scales"]) == 2 * T and header["run"]["stages"] == 2
    back = shipped.read(path)
    assert back.weights.shape == two.weights.shape and back.header() == two.header()
    mapped = shipped.open_mapped(path, cache_dir=tmp_path / "cache")
    assert np.array_equal(mapped.weights, back.weights)
    assert shipped.open_mapped(path, cache_dir=tmp_path / "cache").weights.shape == (2 * T, ntuple.TABLE_SIZE)


def test_a_patch_adds_stages_from_the_last_one_and_moves_them(base, tmp_path) -> None:
    path, run = base
    scales = shipped.read_header(path)["scales"]
    two = staged(run, 2, 5 * max(scales))  # the new stage moved by 5 steps or so wherever it has weights
    patch = tmp_path / f"{shipped.PATCH_PREFIX}1"
    header = shipped.write_patch(two, [path], patch)
    assert header["scales"] == scales + scales and header["run"]["stages"] == 2
    assert header["nonzero"][:T] == [0] * T  # the first stage did not move
    back = shipped.read_chain([path, patch])
    on_grid = np.stack([np.multiply(np.rint(two.weights[k].astype(np.float64) / s), np.float32(s),
                                    dtype=np.float32) for k, s in enumerate(scales + scales)])
    assert np.array_equal(back.weights, on_grid)
    mapped = shipped.open_mapped([path, patch], cache_dir=tmp_path / "cache")
    assert np.array_equal(mapped.weights, back.weights)

    three = staged(two, 3, -2 * max(scales))
    more = tmp_path / f"{shipped.PATCH_PREFIX}2"
    shipped.write_patch(three, [path, patch], more)
    assert shipped.read_chain([path, patch, more]).weights.shape == (3 * T, ntuple.TABLE_SIZE)
    with pytest.raises(ValueError, match="cannot take stages away"):
        shipped.write_patch(run, [path, patch], tmp_path / "fewer")
    fewer = tmp_path / "fewer-made-elsewhere"
    shipped.write_patch(run, [path], fewer)  # one stage, on the base alone
    with pytest.raises(shipped.Corrupt, match="fewer stages"):
        shipped.read_chain([path, patch, fewer])


def test_learn_stages_promotes_on_resume_and_never_takes_stages_away(base, tmp_path, monkeypatch) -> None:
    path, run = base
    monkeypatch.setitem(sys.modules, "game2048_weights", types.SimpleNamespace(path=lambda: path))
    runner = CliRunner()
    folder = str(tmp_path / "run")
    games = str(run.games + ROUND_GAMES)
    grown = runner.invoke(app, ["learn", "--dir", folder, "--games", games, "--stages", "2"])
    assert grown.exit_code == 0, grown.output
    assert "2 stages (1 new)" in grown.output
    saved = checkpoint.load(tmp_path / "run" / checkpoint.FILE_NAME)
    assert saved.weights.shape == (2 * T, ntuple.TABLE_SIZE)
    kept = runner.invoke(app, ["learn", "--dir", folder, "--games", str(run.games + 2 * ROUND_GAMES)])
    assert kept.exit_code == 0 and "2 stages" in kept.output and "new)" not in kept.output
    refused = runner.invoke(app, ["learn", "--dir", folder, "--games", games, "--stages", "1"])
    assert refused.exit_code == 1 and "2 to 3 stages" in refused.output
    measured = runner.invoke(app, ["learn-eval", "--dir", folder, "--games", "2"])
    assert measured.exit_code == 0 and "2 stages" in measured.output
    exported = runner.invoke(app, ["learn-export", str(tmp_path / "p"), "--dir", folder, "--patch"])
    assert exported.exit_code == 0, exported.output
    assert shipped.read_chain([path, tmp_path / "p"]).weights.shape == (2 * T, ntuple.TABLE_SIZE)
