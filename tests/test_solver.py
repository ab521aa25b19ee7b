"""The solver: legal moves only, the obvious merge, determinism, time limits, every size."""

from __future__ import annotations

import json
import math
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from game2048 import Game, replay
from game2048.cli import app
from game2048.rules import DIRECTIONS, SIZES, slide
from game2048.solver import PRESETS, analyse, best_move, play_game, workers
from game2048.solver import expectimax as ex
from game2048.solver.search import PRESET_SETTINGS, Setting, search_values


def legal(board: list[list[int]]) -> set[str]:
    return {d for d in DIRECTIONS if slide(board, d)[0] != board}


@st.composite
def boards(draw: st.DrawFn, sizes: tuple[int, ...] = SIZES) -> list[list[int]]:
    n = draw(st.sampled_from(sizes))
    tiles = st.sampled_from([0, 0, 0, 2, 4, 8, 16, 32, 64, 128, 1024])
    return [[draw(tiles) for _ in range(n)] for _ in range(n)]


@settings(max_examples=60, deadline=None)
@given(boards())
def test_solver_only_ever_picks_a_legal_move(board: list[list[int]]) -> None:
    move, scores = analyse(board, preset="fast")
    assert set(scores) == legal(board)
    assert (move is None) == (not scores)
    if move is not None:
        assert move in scores and scores[move] == max(scores.values())


def test_no_legal_move_gives_none() -> None:
    stuck = [[2, 4, 2], [4, 2, 4], [2, 4, 2]]
    assert analyse(stuck) == (None, {})
    assert best_move(stuck, preset="strong") is None


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize(
    "board",
    [
        # 3x3: merging the two 128s makes the winning 256; down would not
        [[2, 4, 8], [4, 8, 4], [128, 128, 0]],
        # 4x4: two 1024s side by side in the top row
        [[1024, 1024, 8, 4], [2, 4, 2, 0], [0, 0, 0, 0], [0, 0, 0, 0]],
    ],
)
def test_solver_takes_the_winning_merge(board: list[list[int]], preset: str) -> None:
    assert best_move(board, preset=preset) in ("left", "right")


def test_the_one_move_that_survives_is_chosen() -> None:
    # only left or right merge the 4s and leave room; up and down are illegal
    board = [[2, 8, 2], [8, 2, 8], [4, 4, 16]]
    assert legal(board) == {"left", "right"}
    assert best_move(board) in ("left", "right")


@pytest.mark.parametrize("preset", PRESETS)
def test_same_position_and_setting_give_the_same_answer(preset: str) -> None:
    board = [[2, 4, 8, 16], [0, 2, 0, 0], [0, 0, 4, 0], [2, 0, 0, 0]]
    first = analyse(board, preset=preset)
    analyse([[4, 0, 0, 2], [0, 0, 0, 0], [0, 8, 0, 0], [0, 0, 0, 2]], preset=preset)  # other work between
    assert analyse(board, preset=preset) == first


def test_a_time_limit_is_a_node_budget_so_it_is_deterministic() -> None:
    board = [[2, 4, 8, 16], [0, 2, 0, 64], [0, 0, 4, 128], [2, 0, 0, 256]]
    runs = {json.dumps(analyse(board, preset="strong", time_limit=0.05)) for _ in range(3)}
    assert len(runs) == 1


def test_time_limit_bounds_the_search() -> None:
    board = [[0, 2, 4, 8], [16, 32, 64, 128], [2, 0, 4, 8], [0, 0, 2, 0]]
    analyse(board, time_limit=0.01)  # compile and build tables first
    start = time.perf_counter()
    move, _ = analyse(board, preset="strong", time_limit=0.02)
    # generous: the machine may be shared; an unbounded strong search takes far longer
    assert move is not None and time.perf_counter() - start < 1.0


def test_bad_input_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        analyse([[2, 2], [0, 0]])
    with pytest.raises(ValueError):
        analyse([[3, 0, 0], [0, 0, 0], [0, 0, 0]])
    with pytest.raises(ValueError):
        analyse([[2, 0, 0], [0, 0, 0], [0, 0, 0]], preset="perfect")
    for limit in (0, -1.0, math.inf, math.nan):
        with pytest.raises(ValueError):
            analyse([[2, 0, 0], [0, 0, 0], [0, 0, 0]], time_limit=limit)
    for depth in (-1, 31, 2.5, True):
        with pytest.raises(ValueError, match="depth"):
            analyse([[2, 0, 0], [0, 0, 0], [0, 0, 0]], depth=depth)  # type: ignore[arg-type]


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_bitboard_and_cell_layouts_agree(depth: int) -> None:
    rng = np.random.default_rng(7)
    setting = Setting(1, 8)
    for n in (3, 4):
        for _ in range(10):
            exps = rng.choice([0, 0, 0, 1, 2, 3, 5, 7, 9], size=(n, n)).tolist()
            fast, _ = search_values(exps, setting, depth=depth)
            w = ex.weights(ex.NNEONNEO)
            ws_keys = np.zeros(1 << 16, dtype=np.uint64)
            ws_vals = np.zeros(1 << 16)
            ws_meta = np.zeros(1 << 16, dtype=np.int64)
            state = np.array([0, 1 << 62, 1, 0, 16], dtype=np.int64)
            cells = np.array([e for row in exps for e in row], dtype=np.uint8)
            slow = ex.cells_search(cells, depth, n, w, ws_keys, ws_vals, ws_meta, state, 1e-4)
            for a, b in zip(fast, slow, strict=True):
                assert (a == b == -math.inf) or a == pytest.approx(b, rel=1e-12)


@settings(max_examples=40, deadline=None)
@given(boards(), st.sampled_from(range(4)))
def test_compiled_moves_follow_the_rules(board: list[list[int]], d: int) -> None:
    n = len(board)
    flat = [v.bit_length() - 1 if v else 0 for row in board for v in row]
    expected = slide(board, DIRECTIONS[d])[0]
    dst = np.zeros(n * n, dtype=np.uint8)
    ex.cells_move_into(np.array(flat, dtype=np.uint8), dst, d, n)
    assert [[1 << int(e) if e else 0 for e in dst[r * n : (r + 1) * n]] for r in range(n)] == expected
    if n <= 4:
        packed = sum(e << (4 * i) for i, e in enumerate(flat))
        out = workers.move(packed, d, n, ex.NNEONNEO)
        got = [[(out >> (4 * (r * n + c))) & 15 for c in range(n)] for r in range(n)]
        assert [[1 << e if e else 0 for e in row] for row in got] == expected


def test_positions_past_32768_on_4x4_take_the_cell_layout() -> None:
    board = [[32768, 32768, 2, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]
    assert analyse(board, depth=0)[0] == "left"  # 65536 in the corner, seen by 5-bit cells
    assert best_move(board) in legal(board)
    assert best_move([[131072, 65536, 0, 0], [2, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]) is not None


@pytest.mark.parametrize(("size", "moves"), [(3, None), (4, 150), (5, 60), (6, 40)])
def test_smoke_game_on_each_size(size: int, moves: int | None) -> None:
    game = play_game(size, seed=11, preset="fast", max_moves=moves)
    assert game.helped and not game.ranked
    if moves is None:
        assert game.over
    else:
        assert game.moves == moves
    again = replay(size, 11, game.log)
    assert again.board == game.board and again.score == game.score


def test_play_game_is_reproducible() -> None:
    a = play_game(3, seed=5, preset="normal")
    b = play_game(3, seed=5, preset="normal")
    assert a.log == b.log and a.score == b.score
    assert isinstance(a, Game)


def test_solve_command_prints_one_json_object() -> None:
    result = CliRunner().invoke(app, ["solve", "--size", "3", "--games", "3", "--seed", "4", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert set(data) == {"games", "moves", "moves_per_second", "mean_score", "median_score", "reached"}
    assert data["games"] == 3 and data["reached"]["2"] == 1.0
    assert all(0.0 <= share <= 1.0 for share in data["reached"].values())


def test_solve_command_report_and_bad_size() -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["solve", "--size", "3", "--games", "2", "--max-moves", "20"])
    assert result.exit_code == 0 and "median score" in result.stdout
    assert runner.invoke(app, ["solve", "--size", "7", "--games", "1"]).exit_code != 0


def test_until_stops_a_game_at_the_tile_it_names() -> None:
    whole = play_game(4, seed=3, preset="fast")
    cut = play_game(4, seed=3, preset="fast", until=256)
    assert cut.max_tile == 256 and whole.max_tile > 256
    assert cut.log == whole.log[: len(cut.log)]  # the same game, stopped at its first 256
    runner = CliRunner()
    result = runner.invoke(app, ["solve", "--size", "4", "--games", "2", "--until", "128", "--json"])
    assert result.exit_code == 0, result.output
    assert max(map(int, json.loads(result.stdout)["reached"])) == 128
    assert runner.invoke(app, ["solve", "--games", "1", "--until", "100"]).exit_code != 0


@pytest.mark.parametrize(("size", "preset"), [(4, "fast"), (4, "normal"), (5, "fast"), (6, "fast")])
def test_a_crowded_board_is_searched_one_level_deeper(size: int, preset: str) -> None:
    setting = PRESET_SETTINGS[preset][size]
    roomy = setting.depth_for(distinct=6, empty=setting.crowded + 1)
    assert setting.depth_for(distinct=6, empty=setting.crowded) == roomy + 1


def _heuristic(board: list[list[int]]) -> float:
    exps = [[v.bit_length() - 1 if v else 0 for v in row] for row in board]
    lines = exps + [list(col) for col in zip(*exps, strict=True)]
    return sum(ex.line_heuristic(np.array(line)) for line in lines)


def test_depth_one_scores_the_position_after_move_spawn_move() -> None:
    board = [[2, 4, 8], [0, 2, 0], [4, 0, 16]]
    _, scores = analyse(board, depth=1)
    for direction, value in scores.items():
        after = slide(board, direction)[0]
        free = [(r, c) for r in range(3) for c in range(3) if not after[r][c]]
        expected = 0.0
        for r, c in free:
            for tile, p in ((2, 0.9), (4, 0.1)):
                spawned = [row[:] for row in after]
                spawned[r][c] = tile
                replies = [slide(spawned, d)[0] for d in DIRECTIONS]
                expected += p * max((_heuristic(b) for b in replies if b != spawned), default=0.0)
        assert value == pytest.approx(expected / len(free) + 1e-6, rel=1e-12)


@pytest.mark.parametrize(
    "board",
    [
        [[2, 4, 8, 16], [0, 2, 0, 64], [0, 0, 4, 128], [2, 0, 0, 256]],
        [[1024, 512, 256, 128], [8, 16, 32, 64], [4, 0, 2, 0], [0, 2, 0, 0]],
        [[2, 4, 8], [0, 2, 0], [4, 0, 16]],
    ],
)
def test_the_answer_does_not_depend_on_the_number_of_threads(board: list[list[int]]) -> None:
    one = analyse(board, preset="strong", threads=1)
    assert analyse(board, preset="strong", threads=2) == one
    assert analyse(board, preset="strong", threads=3) == one
    assert analyse(board, preset="strong") == one  # strong uses every core by default


@pytest.mark.parametrize("nodes", [30, 300, 3000])
def test_a_search_past_its_budget_keeps_the_deepest_level_that_fits(nodes: int) -> None:
    exps = [[1, 2, 3, 4], [0, 1, 0, 6], [0, 0, 2, 7], [1, 0, 0, 8]]
    full, depth = search_values(exps, Setting(3, 8))
    capped, reached = search_values(exps, Setting(3, 8, nodes=nodes), threads=1)
    assert 0 < reached < depth and capped != full
    assert search_values(exps, Setting(3, 8, nodes=nodes), threads=2) == (capped, reached)
    assert search_values(exps, Setting(3, 8), depth=reached) == (capped, reached)


def test_threads_must_be_a_positive_whole_number() -> None:
    board = [[2, 0, 0], [0, 0, 0], [0, 0, 2]]
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValueError):
            analyse(board, threads=bad)  # type: ignore[arg-type]


def test_searches_share_a_pool_of_at_most_one_thread_per_core() -> None:
    import threading
    from concurrent.futures import ThreadPoolExecutor

    board = [[2, 4, 8, 16], [0, 2, 0, 64], [0, 0, 4, 128], [2, 0, 0, 256]]
    with ThreadPoolExecutor(max_workers=8) as callers:  # like a server's request threads
        answers = list(callers.map(lambda _: analyse(board, preset="strong", threads=64), range(16)))
    assert len(set(map(str, answers))) == 1
    helpers = [t for t in threading.enumerate() if t.name.startswith("solver")]
    assert len(helpers) <= workers.cores() - 1
