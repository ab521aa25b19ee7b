"""The learned evaluator: symmetric features, TD updates, exact resume, learning, games, shipped weights."""

from __future__ import annotations

import json
import random
import shutil
import signal
import subprocess
import sys
import tomllib
import types
import zlib
from pathlib import Path

import numpy as np
import pytest
import setuptools
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from game2048 import Game, replay
from game2048.cli import app
from game2048.rules import DIRECTIONS, slide
from game2048.solver.learn import checkpoint, ntuple, shipped
from game2048.solver.learn.play import best_move, evaluate, pack, play_game
from game2048.solver.learn.train import ROUND_GAMES, new_run, tables, train


@pytest.fixture(autouse=True)
def own_cache_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing here decompresses weights into the user's own cache directory."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("xdg-cache")))


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


def test_restarts_replay_late_positions_and_stay_out_of_the_curve(tmp_path) -> None:
    """With ``restart`` 1 every game after a game from the empty board starts again from a late
    position of it: half of each round's games, shorter ones (they begin in the second half), counted
    in the run's games and moves but not in the curve, which holds whole games only."""
    from game2048.solver.learn.train import _Worker

    run = new_run(seed=3, window=10_000, restart=1.0)
    train(run, max_games=2 * ROUND_GAMES, log=None)
    assert run.games == 2 * ROUND_GAMES and len(run.pending_scores) == ROUND_GAMES
    worker = _Worker(7)
    worker.play(checkpoint.Run(**{**vars(run), "weights": run.weights.copy()}))
    again = worker.restarted.astype(bool)
    assert list(again) == [False, True] * (ROUND_GAMES // 2)
    assert worker.lengths[again].mean() < worker.lengths[~again].mean()
    # a restarted game carries on the board of the game before it: its top tile is at least that of
    # the position it began from, which is never below the first moves' (a 4 or more on an empty start)
    assert (worker.tops[again] >= 3).all()
    # deterministic, and a save and a resume keep the setting
    twin = new_run(seed=3, window=10_000, restart=1.0)
    train(twin, max_games=2 * ROUND_GAMES, log=None)
    assert np.array_equal(twin.weights, run.weights) and twin.moves == run.moves
    path = tmp_path / checkpoint.FILE_NAME
    checkpoint.save(run, path)
    assert checkpoint.load(path).restart == 1.0
    plain = new_run(seed=3, window=10_000)
    train(plain, max_games=2 * ROUND_GAMES, log=None)
    assert plain.moves != run.moves and len(plain.pending_scores) == 2 * ROUND_GAMES


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
@given(board=boards_4x4, ply=st.sampled_from([1, 2, 3]))
def test_the_player_always_picks_a_legal_move(
    random_weights: np.ndarray, board: list[list[int]], ply: int
) -> None:
    move = best_move(random_weights, board, ply=ply)
    legal = [d for d in DIRECTIONS if slide(board, d)[0] != board]
    assert (move is None) == (not legal)
    if move is not None:
        assert move in legal


def _searched(w: np.ndarray, b: np.uint64, ply: int) -> list[float | None]:
    """Each direction's value at ``ply`` by a plain expectimax over ``ntuple.move`` and
    ``ntuple.value`` (None where the move is illegal): the reference ``choose`` must agree with."""
    slide_table, points = tables()

    def best_after_spawns(after: np.uint64, depth: int) -> float:
        cells = [i for i in range(16) if (int(after) >> (4 * i)) & 0xF == 0]
        total = 0.0
        for i in cells:
            for tile, p in ((1, 0.9), (2, 0.1)):
                values = [v for v in moves(np.uint64(int(after) | (tile << (4 * i))), depth) if v is not None]
                total += p * (max(values) if values else 0.0)
        return total / len(cells)

    def moves(board: np.uint64, depth: int) -> list[float | None]:
        out: list[float | None] = []
        for d in range(4):
            moved, gained = ntuple.move(board, d, slide_table, points)
            after = np.uint64(moved)
            if after == board:
                out.append(None)
            elif depth == 1:
                out.append(gained + float(ntuple.value(w, after)))
            else:
                out.append(gained + best_after_spawns(after, depth - 1))
        return out

    return moves(b, ply)


@settings(max_examples=8, deadline=None)
@given(board=boards_4x4)
def test_a_deeper_search_picks_the_move_a_plain_expectimax_values_most(
    random_weights: np.ndarray, board: list[list[int]]
) -> None:
    slide_table, points = tables()
    b = pack(board)
    for ply in (2, 3):
        values = _searched(random_weights, b, ply)
        chosen = int(ntuple.choose(random_weights, b, ply, slide_table, points))
        legal = [v for v in values if v is not None]
        if not legal:
            assert chosen == -1
            continue
        assert values[chosen] is not None
        assert values[chosen] == pytest.approx(max(legal), rel=1e-5, abs=1e-3)


@settings(max_examples=30, deadline=None)
@given(board=boards_4x4)
def test_the_networks_expectimax_without_a_cut_is_the_players_deeper_plies(
    random_weights: np.ndarray, board: list[list[int]]
) -> None:
    """``deep.search`` at depth 1 and 2, cutting nothing, values each move as ``choose``'s ply 2 and 3."""
    from game2048.solver.learn import deep

    slide_t, points_t = tables()
    b = pack(board)
    for depth in (1, 2):
        expect = np.empty(4)
        ntuple.move_values(random_weights, b, depth + 1, slide_t, points_t, expect)
        values, _ = deep.search(random_weights, int(b), depth, cut=0.0)
        assert values is not None
        assert np.allclose(values, expect, rtol=1e-9, atol=1e-9)


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
    command = [sys.executable, "-c", cli, "learn", "--dir", str(tmp_path), "--window", "50", "--fresh"]
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


# The shipped weights: int16 and a scale per table, xz, the run's header; the cache play maps.


@pytest.fixture(scope="module")
def shipped_run() -> checkpoint.Run:
    """A run of 200 training games whose tables also hold weights float16 could not (|w| > 65,504)."""
    run = new_run(seed=5, window=150)
    train(run, max_games=2 * ROUND_GAMES, log=None)
    run.weights[0, 77] = 70_000.0
    run.weights[1, 4242] = -123_456.5
    run.weights[2, 9] = 1e-3  # below half a step of its table: ships as 0
    return run


@pytest.fixture(scope="module")
def shipped_file(shipped_run: checkpoint.Run, tmp_path_factory: pytest.TempPathFactory):
    path = tmp_path_factory.mktemp("shipped") / shipped.FILE_NAME
    shipped.write(shipped_run, path)
    return path


@pytest.fixture(scope="module")
def shipped_cache(shipped_file, tmp_path_factory: pytest.TempPathFactory):
    """A cache folder where ``shipped_file`` has been decompressed (tests that damage it copy it first)."""
    folder = tmp_path_factory.mktemp("cache")
    shipped.open_mapped(shipped_file, cache_dir=folder)
    return folder


def within_half_a_step(back: np.ndarray, weights: np.ndarray, scales: list[float]) -> bool:
    """Each weight of ``back`` within half its table's step of ``weights`` (and float32's own rounding)."""
    for k, scale in enumerate(scales):
        where = np.flatnonzero((back[k] != 0) | (weights[k] != 0))  # elsewhere both are 0
        w = weights[k, where]
        if not np.all(np.abs(back[k, where].astype(np.float64) - w) <= scale / 2 + np.spacing(np.abs(w)) / 2):
            return False
    return True


def test_shipped_weights_come_back_within_half_a_step_of_their_tables_scale(
    shipped_run: checkpoint.Run, shipped_file, shipped_cache
) -> None:
    header = shipped.read_header(shipped_file)
    peaks = np.abs(shipped_run.weights).max(axis=1)
    assert header["steps"] == shipped.STEPS
    assert header["scales"] == pytest.approx((peaks / shipped.STEPS).tolist(), rel=1e-6)
    back = shipped.read(shipped_file)
    assert back.weights.dtype == np.float32 and back.weights.shape == shipped_run.weights.shape
    assert within_half_a_step(back.weights, shipped_run.weights, header["scales"])
    assert back.weights[2, 9] == 0
    mapped = shipped.open_mapped(shipped_file, cache_dir=shipped_cache)
    assert np.array_equal(mapped.weights, back.weights) and not mapped.weights.flags.writeable


def test_a_weight_past_float16s_largest_survives_shipping(shipped_run: checkpoint.Run, shipped_file) -> None:
    with np.errstate(over="ignore"):
        assert np.isinf(np.float16(70_000.0))
    back = shipped.read(shipped_file).weights
    assert back[0, 77] == pytest.approx(70_000.0, abs=70_000.0 / shipped.STEPS / 2)
    assert back[1, 4242] == pytest.approx(-123_456.5, rel=1e-6)  # the largest of its table: all the steps


def test_finer_steps_ship_closer_weights_in_a_larger_file(shipped_run: checkpoint.Run, shipped_file,
                                                          tmp_path) -> None:
    fine = tmp_path / "fine.weights"
    header = shipped.write(shipped_run, fine, steps=shipped.MAX_STEPS)
    assert header["steps"] == shipped.MAX_STEPS and fine.stat().st_size > shipped_file.stat().st_size
    back = shipped.read(fine).weights
    assert within_half_a_step(back, shipped_run.weights, header["scales"])
    coarse = shipped.read(shipped_file).weights
    assert np.abs(back - shipped_run.weights).max() < np.abs(coarse - shipped_run.weights).max()
    for steps in (0, shipped.MAX_STEPS + 1):
        with pytest.raises(ValueError, match="steps must be"):
            shipped.write(shipped_run, tmp_path / "bad.weights", steps=steps)


def test_a_network_of_zeros_ships_small(tmp_path) -> None:
    path = tmp_path / shipped.FILE_NAME
    header = shipped.write(new_run(), path)
    assert header["scales"] == [0.0] * ntuple.TUPLES and path.stat().st_size < 10_000
    assert not shipped.read(path).weights.any()


def test_the_shipped_header_keeps_the_runs_counters_settings_and_curve(
    shipped_run: checkpoint.Run, shipped_file
) -> None:
    assert shipped.read_header(shipped_file)["run"] == shipped_run.header()
    back = shipped.read(shipped_file)
    assert back.header() == shipped_run.header()
    assert back.games == 2 * ROUND_GAMES and len(back.curve) == 1 and len(back.pending_scores) == 50


def test_play_from_shipped_weights_is_the_same_every_time(shipped_file, shipped_cache) -> None:
    first = shipped.read(shipped_file)  # decompressed afresh
    again = shipped.open_mapped(shipped_file, cache_dir=shipped_cache)  # mapped from the cache
    assert np.array_equal(first.weights, again.weights)
    one = evaluate(first.weights, 4, seed=9).as_dict()
    two = evaluate(again.weights, 4, seed=9).as_dict()
    assert one | {"us_per_move": 0} == two | {"us_per_move": 0}


def test_the_cache_is_built_once_then_only_mapped(shipped_file, tmp_path, monkeypatch) -> None:
    builds = []
    read = shipped.read
    monkeypatch.setattr(shipped, "read", lambda path: builds.append(path) or read(path))
    stale = tmp_path / "0123.ckpt"  # the cache of another shipped file: removed on the next build
    stale.write_bytes(b"old")
    first = shipped.open_mapped(shipped_file, cache_dir=tmp_path)
    (cache,) = tmp_path.glob("*.ckpt")
    second = shipped.open_mapped(shipped_file, cache_dir=tmp_path)
    assert len(builds) == 1
    assert checkpoint.read_header(cache)[0]["extra"]["crc32"] == zlib.crc32(second.weights)
    assert np.array_equal(first.weights, second.weights)
    assert not cache.with_suffix(".part").exists() and not stale.exists()


def _cut(path) -> None:
    with open(path, "r+b") as f:
        f.truncate(path.stat().st_size - 4096)


def _flip(path, at: int) -> None:
    with open(path, "r+b") as f:
        f.seek(at)
        byte = f.read(1)
        f.seek(at)
        f.write(bytes([byte[0] ^ 0x40]))


@pytest.mark.parametrize(
    "damage",
    [_cut, lambda p: _flip(p, p.stat().st_size - 1000), lambda p: _flip(p, 20), lambda p: p.write_bytes(b"")],
    ids=["cut short", "a weight changed", "header changed", "empty"],
)
def test_a_cut_or_damaged_cache_file_is_built_again(
    shipped_file, shipped_cache, tmp_path, monkeypatch, damage
) -> None:
    (built,) = shipped_cache.glob("*.ckpt")
    cache = tmp_path / built.name
    shutil.copyfile(built, cache)
    damage(cache)
    builds = []
    read = shipped.read
    monkeypatch.setattr(shipped, "read", lambda path: builds.append(path) or read(path))
    again = shipped.open_mapped(shipped_file, cache_dir=tmp_path)
    assert len(builds) == 1
    assert np.array_equal(again.weights, shipped.read(shipped_file).weights)
    assert checkpoint.load(cache, writable=False).header() == again.header()


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (_cut, "cut short"),
        (lambda p: _flip(p, p.stat().st_size - 100), "damaged"),
        (lambda p: _flip(p, 40), "format"),
        (lambda p: p.write_bytes(b"G2048NT1" + bytes(100)), "not game2048 shipped weights"),
    ],
    ids=["cut short", "a byte of the weights changed", "header changed", "not shipped weights"],
)
def test_a_damaged_shipped_file_is_a_clear_error(shipped_file, tmp_path, damage, message) -> None:
    path = tmp_path / shipped.FILE_NAME
    path.write_bytes(shipped_file.read_bytes())
    damage(path)
    with pytest.raises(shipped.Corrupt, match=message):
        shipped.read(path)
    with pytest.raises(shipped.Corrupt):
        shipped.open_mapped(path, cache_dir=tmp_path / "cache")
    runner = CliRunner()
    trained = runner.invoke(app, ["learn", "--dir", str(tmp_path / "run"), "--from", str(path)])
    assert trained.exit_code == 1 and "error:" in trained.output and message in trained.output
    measured = runner.invoke(app, ["learn-eval", "--weights", str(path), "--games", "1"])
    assert measured.exit_code == 1 and message in measured.output


# Patches: a later stage of the run as the steps each weight moved since the shipped file.


@pytest.fixture(scope="module")
def later_runs(shipped_file) -> list[checkpoint.Run]:
    """Two later stages of the shipped run: trained on from the shipped weights, then on again."""
    later = shipped.read(shipped_file)
    train(later, max_games=later.games + ROUND_GAMES, log=None)
    again = checkpoint.Run(**{**vars(later), "weights": later.weights.copy()})
    train(again, max_games=again.games + ROUND_GAMES, log=None)
    return [later, again]


def on_the_grid(run: checkpoint.Run, scales: list[float]) -> np.ndarray:
    """``run``'s weights as a whole file with these scales would ship them."""
    return np.stack([np.multiply(np.rint(run.weights[k].astype(np.float64) / s), np.float32(s),
                                 dtype=np.float32) for k, s in enumerate(scales)])


def test_patches_carry_later_stages_as_a_whole_file_with_the_bases_scales_would(
    shipped_file, later_runs, tmp_path
) -> None:
    scales = shipped.read_header(shipped_file)["scales"]
    chain = [shipped_file]
    for n, later in enumerate(later_runs, 1):
        patch = tmp_path / f"{shipped.PATCH_PREFIX}{n}"
        header = shipped.write_patch(later, chain, patch)
        chain = [*chain, patch]
        assert header["format"] == shipped.PATCH_FORMAT and header["scales"] == scales
        assert 0 < sum(header["nonzero"]) < sum(shipped.read_header(shipped_file)["nonzero"])
        back = shipped.read_chain(chain)
        assert back.header() == later.header()
        assert np.array_equal(back.weights, on_the_grid(later, scales))
        assert within_half_a_step(back.weights, later.weights, scales)
    mapped = shipped.open_mapped(chain, cache_dir=tmp_path / "cache")
    assert np.array_equal(mapped.weights, shipped.read_chain(chain).weights)
    base = shipped.open_mapped(shipped_file, cache_dir=tmp_path / "cache")
    assert not np.array_equal(base.weights, mapped.weights)  # each chain has a cache of its own
    assert shipped.chain_digest(chain) != shipped.chain_digest(chain[:2]) != shipped.chain_digest(chain[:1])


def test_a_patch_goes_only_on_its_own_weights_in_its_order(shipped_file, later_runs, tmp_path) -> None:
    one, two = tmp_path / f"{shipped.PATCH_PREFIX}1", tmp_path / f"{shipped.PATCH_PREFIX}2"
    shipped.write_patch(later_runs[0], [shipped_file], one)
    shipped.write_patch(later_runs[1], [shipped_file, one], two)
    with pytest.raises(shipped.Corrupt, match="other weights"):
        shipped.read_chain([shipped_file, two])
    with pytest.raises(shipped.Corrupt, match="other weights"):
        shipped.read_chain([shipped_file, two, one])
    other = tmp_path / "other.weights"
    shipped.write(later_runs[0], other)
    with pytest.raises(shipped.Corrupt, match="other weights"):
        shipped.read_chain([other, one])
    with pytest.raises(shipped.Corrupt, match="not a patch"):
        shipped.read_chain([shipped_file, other])
    with pytest.raises(shipped.Corrupt, match="is a patch"):
        shipped.read(one)
    _flip(one, one.stat().st_size - 10)
    with pytest.raises(shipped.Corrupt, match="damaged"):
        shipped.read_chain([shipped_file, one])


def test_a_patch_refuses_what_only_a_whole_file_can_say(shipped_file, later_runs, tmp_path) -> None:
    zeros = tmp_path / "zeros.weights"
    shipped.write(new_run(), zeros)
    with pytest.raises(ValueError, match="all 0 in the base"):
        shipped.write_patch(later_runs[0], [zeros], tmp_path / "a")
    grown = checkpoint.Run(**{**vars(later_runs[0]), "weights": later_runs[0].weights.copy()})
    grown.weights[1, 7] = 40 * np.abs(grown.weights[1]).max()
    with pytest.raises(ValueError, match="outgrew"):
        shipped.write_patch(grown, [shipped_file], tmp_path / "b")
    grown.weights[1, 7] = np.nan
    with pytest.raises(ValueError, match="not finite"):
        shipped.write_patch(grown, [shipped_file], tmp_path / "c")
    assert not any(tmp_path.glob("[abc]"))


def test_learn_export_patch_learn_and_learn_eval_use_the_installed_patches(
    shipped_file, later_runs, tmp_path, monkeypatch
) -> None:
    package = tmp_path / "package"
    package.mkdir()
    base = package / shipped.FILE_NAME
    shutil.copyfile(shipped_file, base)
    (package / f"{shipped.PATCH_PREFIX}draft").write_bytes(b"not a patch: no number, not read")
    fake_weights_package(monkeypatch, base)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    runner = CliRunner()
    for n, later in enumerate(later_runs, 1):
        checkpoint.save(later, tmp_path / "run" / checkpoint.FILE_NAME)
        out = package / f"{shipped.PATCH_PREFIX}{n}"
        exported = runner.invoke(app, ["learn-export", str(out), "--dir", str(tmp_path / "run"), "--patch"])
        assert exported.exit_code == 0, exported.output
        assert "as a patch on" in exported.output and "weights that moved" in exported.output
    assert shipped.installed_chain() == [base, package / f"{shipped.PATCH_PREFIX}1",
                                         package / f"{shipped.PATCH_PREFIX}2"]
    measured = runner.invoke(app, ["learn-eval", "--shipped", "--games", "2", "--json"])
    assert measured.exit_code == 0, measured.output
    assert json.loads(measured.output)["trained_games"] == later_runs[1].games
    # a file named with --weights comes with the patches beside it, as the installed one does
    fake_weights_package(monkeypatch, tmp_path / "none" / shipped.FILE_NAME)
    named = runner.invoke(app, ["learn-eval", "--weights", str(base), "--games", "2", "--json"])
    assert named.exit_code == 0, named.output
    assert json.loads(named.output)["trained_games"] == later_runs[1].games
    fake_weights_package(monkeypatch, base)
    resumed = runner.invoke(app, ["learn", "--dir", str(tmp_path / "on"), "--games",
                                  str(later_runs[1].games + ROUND_GAMES)])
    assert resumed.exit_code == 0, resumed.output
    assert "and 2 patches" in resumed.output and f"{later_runs[1].games:,} games" in resumed.output
    fake_weights_package(monkeypatch, tmp_path / "none" / shipped.FILE_NAME)
    refused = runner.invoke(app, ["learn-export", str(tmp_path / "x"), "--dir", str(tmp_path / "run"),
                                  "--patch"])
    assert refused.exit_code == 1 and "holds no weights" in refused.output


def test_learn_export_writes_the_checkpoint_as_shipped_weights(shipped_run: checkpoint.Run, tmp_path) -> None:
    checkpoint.save(shipped_run, tmp_path / checkpoint.FILE_NAME)
    out = tmp_path / "weights" / shipped.FILE_NAME
    result = CliRunner().invoke(app, ["learn-export", str(out), "--dir", str(tmp_path), "--preset", "0"])
    assert result.exit_code == 0, result.output
    assert "exported" in result.output and " MB in " in result.output and "1,023 steps" in result.output
    assert shipped.read_header(out)["run"] == shipped_run.header()
    fine = CliRunner().invoke(app, ["learn-export", str(out), "--dir", str(tmp_path), "--preset", "0",
                                    "--steps", "32767"])
    assert fine.exit_code == 0 and shipped.read_header(out)["steps"] == 32767
    refused = CliRunner().invoke(app, ["learn-export", str(out), "--dir", str(tmp_path), "--steps", "0"])
    assert refused.exit_code == 2
    missing = CliRunner().invoke(app, ["learn-export", str(out), "--dir", str(tmp_path / "none")])
    assert missing.exit_code != 0


def test_learn_from_shipped_weights_continues_the_runs_counters_and_curve(
    shipped_run: checkpoint.Run, shipped_file, tmp_path
) -> None:
    games = 4 * ROUND_GAMES
    command = ["learn", "--dir", str(tmp_path), "--from", str(shipped_file), "--games", str(games)]
    result = CliRunner().invoke(app, command)
    assert result.exit_code == 0, result.output
    assert result.output.startswith("resuming shipped weights") and "200 games" in result.output
    run = checkpoint.load(tmp_path / checkpoint.FILE_NAME)
    assert run.games == games and run.moves > shipped_run.moves and run.cpu_seconds > shipped_run.cpu_seconds
    assert run.curve[0] == shipped_run.curve[0] and len(run.curve) == 2
    assert (run.alpha, run.seed, run.window) == (shipped_run.alpha, shipped_run.seed, shipped_run.window)
    assert run.rng != shipped_run.rng  # its spawns went on from the shipped state, not from the seed


def fake_weights_package(monkeypatch, path) -> None:
    """``game2048_weights`` as if installed, its file at ``path``."""
    monkeypatch.setitem(sys.modules, "game2048_weights", types.SimpleNamespace(path=lambda: path))


def test_learn_with_no_checkpoint_goes_on_from_the_installed_weights_unless_fresh(
    shipped_file, tmp_path, monkeypatch
) -> None:
    fake_weights_package(monkeypatch, shipped_file)
    runner = CliRunner()
    games = str(3 * ROUND_GAMES)
    resumed = runner.invoke(app, ["learn", "--dir", str(tmp_path / "a"), "--games", games])
    assert resumed.exit_code == 0, resumed.output
    assert resumed.output.startswith(f"resuming shipped weights {shipped_file}")
    fresh = runner.invoke(app, ["learn", "--dir", str(tmp_path / "b"), "--games", games, "--fresh"])
    assert fresh.output.startswith("new run")
    assert checkpoint.read_header(tmp_path / "b" / checkpoint.FILE_NAME)[0]["games"] == 3 * ROUND_GAMES
    both = runner.invoke(app, ["learn", "--dir", str(tmp_path / "c"), "--fresh", "--from", str(shipped_file)])
    assert both.exit_code != 0


def test_learn_eval_measures_the_shipped_weights(shipped_file, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    fake_weights_package(monkeypatch, shipped_file)
    runner = CliRunner()
    installed = runner.invoke(app, ["learn-eval", "--shipped", "--games", "2", "--json"])
    assert installed.exit_code == 0, installed.output
    given = runner.invoke(app, ["learn-eval", "--weights", str(shipped_file), "--games", "2", "--json"])
    one, two = json.loads(installed.output), json.loads(given.output)
    assert one["trained_games"] == 2 * ROUND_GAMES and one["weights"] == str(shipped_file)
    assert one | {"us_per_move": 0} == two | {"us_per_move": 0}
    assert list((tmp_path / "cache").rglob("*.ckpt"))  # built in the user cache directory


def test_no_installed_weights_is_a_typed_answer_callers_can_fall_back_on(tmp_path, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "game2048_weights", None)  # import fails: not installed
    with pytest.raises(shipped.NotInstalled, match="not installed"):
        shipped.installed()
    with pytest.raises(shipped.NotInstalled):
        shipped.open_mapped(cache_dir=tmp_path)
    result = CliRunner().invoke(app, ["learn-eval", "--shipped"])
    assert result.exit_code == 1 and "pip install ./weights" in result.output
    fresh = CliRunner().invoke(app, ["learn", "--dir", str(tmp_path), "--games", "1"])
    assert fresh.exit_code == 0 and fresh.output.startswith("new run")
    fake_weights_package(monkeypatch, tmp_path / "none" / shipped.FILE_NAME)  # installed without a file
    with pytest.raises(shipped.NotInstalled, match="holds no weights"):
        shipped.installed()


def test_the_weights_package_gives_the_path_of_its_file(monkeypatch) -> None:
    root = Path(__file__).resolve().parents[1]
    monkeypatch.syspath_prepend(str(root / "weights" / "src"))
    monkeypatch.delitem(sys.modules, "game2048_weights", raising=False)
    import game2048_weights

    assert game2048_weights.FILE_NAME == shipped.FILE_NAME
    assert game2048_weights.path() == root / "weights" / "src" / "game2048_weights" / shipped.FILE_NAME


def test_the_main_wheel_holds_no_weights() -> None:
    root = Path(__file__).resolve().parents[1]
    project = tomllib.loads((root / "pyproject.toml").read_text())
    assert project["tool"]["setuptools"]["packages"]["find"]["where"] == ["src"]
    assert project["project"]["optional-dependencies"]["learned"] == ["game2048-weights"]
    packages = setuptools.find_packages(where=str(root / "src"))
    assert "game2048" in packages and not any(p.startswith("game2048_weights") for p in packages)
    data = [f for f in (root / "src").rglob("*") if f.suffix in (".weights", ".ckpt", ".xz")]
    assert data == []
    weights = tomllib.loads((root / "weights" / "pyproject.toml").read_text())
    assert weights["project"]["name"] == "game2048-weights"
