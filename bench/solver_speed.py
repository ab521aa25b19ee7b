"""Time per move of each solver preset on each board size, nneonneo/2048-ai's search, and what numba buys.

    python bench/solver_speed.py                # presets x sizes
    python bench/solver_speed.py --nneonneo-search   # also nneonneo/2048-ai's exact search, 1 thread and all
    python bench/solver_speed.py --python            # also the same search as plain Python
    python bench/solver_speed.py --compile           # also numba's compile time (fresh cache)

Positions come from seeded games (``fast`` for the presets, ``normal`` for
nneonneo's search, as in ``solver_agreement.py``), so every run measures
the same boards. "nneonneo's exact search" is this solver run with
nneonneo/2048-ai's depth rule (max(3, distinct tiles - 2)), its cut-off
(1e-4) and no node cap: the strong preset on 4x4 without its cap, run by this
solver. nneonneo/2048-ai's own program, side by side on the same positions,
is ``solver_agreement.py --nneonneo LIB``. Prints figures; never fails on
timing.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

from game2048 import Game
from game2048.solver import PRESETS, analyse, warm_up
from game2048.solver.search import Setting, _exponents, search_values, setting_for
from game2048.solver.workers import cores

#: Moves into a game at which positions are sampled, per size.
SAMPLE_AT = {3: (20, 60, 120), 4: (50, 300, 800, 1500), 5: (100, 600, 1500), 6: (100, 800, 2000)}


def positions(size: int, games: int = 2) -> list[list[list[int]]]:
    """Boards met by the fast preset in seeded games (seeds 0 .. games-1)."""
    out = []
    for seed in range(games):
        game = Game(size, seed)
        for stop in SAMPLE_AT[size]:
            while game.moves < stop and not game.over:
                move, _ = analyse(game.board, preset="fast")
                game.move(move)  # type: ignore[arg-type]
            if not game.over:
                out.append(game.board)
    return out


def time_presets(sizes: tuple[int, ...]) -> None:
    print(f"{'size':>4} {'preset':>7} {'positions':>9} {'mean ms':>8} {'max ms':>8} {'nodes/s':>10}")
    for size in sizes:
        boards = positions(size)
        for preset in PRESETS:
            setting = setting_for(size, preset)
            times, nodes = [], 0
            for board in boards:
                stats: dict[str, int] = {}
                start = time.perf_counter()
                search_values(_exponents(board), setting, stats=stats)
                times.append(time.perf_counter() - start)
                nodes += stats["nodes"]
            rate = nodes / sum(times) if sum(times) else 0.0
            print(
                f"{size:>4} {preset:>7} {len(boards):>9} {1000 * statistics.fmean(times):8.2f} "
                f"{1000 * max(times):8.2f} {rate:10.0f}"
            )


#: nneonneo/2048-ai's search: depth max(3, distinct tiles - 2), cut-off 1e-4, no cap.
NNEONNEO = Setting(3, 30, depth_offset=2, cut=1e-4)


def time_nneonneo(games: int, every: int) -> None:
    """nneonneo/2048-ai's exact search on positions from ``normal`` games, on one thread and on all."""
    from solver_agreement import positions as game_positions

    boards = [_exponents(b) for b in game_positions(games, every)]
    print(
        f"\nnneonneo/2048-ai's search (depth max(3, distinct - 2), cut-off 1e-4, no cap), "
        f"{len(boards)} positions from {games} normal games:"
    )
    print(
        f"{'threads':>7} {'nodes':>11} {'median ms':>9} {'mean ms':>8} {'max ms':>8} "
        f"{'nodes/s':>10} {'nodes/cpu-s':>11}"
    )
    for threads in sorted({1, cores()}):
        times, nodes, cpu = [], 0, 0.0
        for exps in boards:
            stats: dict[str, int] = {}
            start, start_cpu = time.perf_counter(), time.process_time()
            search_values(exps, NNEONNEO, threads=threads, stats=stats)
            times.append(time.perf_counter() - start)
            cpu += time.process_time() - start_cpu
            nodes += stats["nodes"]
        median, mean = 1000 * statistics.median(times), 1000 * statistics.fmean(times)
        print(
            f"{threads:>7} {nodes:>11} {median:9.1f} {mean:8.1f} {1000 * max(times):8.0f} "
            f"{nodes / sum(times):10.0f} {nodes / cpu:11.0f}"
        )
    print("(nodes/s: by the wall clock; nodes/cpu-s: per second of CPU time used, all threads together)")


def nodes_per_second(boards: list[list[list[int]]], depth: int) -> tuple[float, int]:
    """Chance nodes a second at a fixed depth over ``boards``, on one thread (after a warm-up)."""
    warm_up()
    setting = setting_for(len(boards[0]), "strong")
    total_nodes, total_time = 0, 0.0
    for board in boards:
        stats: dict[str, int] = {}
        start = time.perf_counter()
        search_values(_exponents(board), setting, depth=depth, nodes=10**12, threads=1, stats=stats)
        total_time += time.perf_counter() - start
        total_nodes += stats["nodes"]
    return total_nodes / total_time, total_nodes


def plain_python_nodes_per_second(boards: list[list[list[int]]], depth: int) -> float:
    """The same expectimax written for plain Python (ints, dicts), for comparison.

    Boards are the engine's packed ints moved by its memoised row tables;
    the heuristic of a row is memoised too. Chance nodes a second.
    """
    from game2048.engine import tables
    from game2048.solver.expectimax import line_heuristic

    n = len(boards[0])
    t = tables(n)
    row_value: dict[int, float] = {}

    def evaluate(board: int) -> float:
        total = 0.0
        for b in (board, t.transpose(board)):
            for s in t.shifts:
                row = (b >> s) & t.row_mask
                if row not in row_value:
                    row_value[row] = line_heuristic(np.array(t.unpack_row(row)))
                total += row_value[row]
        return total

    nodes = 0

    def chance(board: int, cprob: float, depth: int, cache: dict[int, tuple[int, float]]) -> float:
        nonlocal nodes
        if depth == 0 or cprob < 1e-4:
            return evaluate(board)
        hit = cache.get(board)
        if hit is not None and hit[0] >= depth:
            return hit[1]
        nodes += 1
        free = [i * t.bits for i in range(n * n) if not (board >> (i * t.bits)) & t.cell_mask]
        empty = len(free)
        total = 0.0
        for shift in free:
            for exp, p in ((1, 0.9), (2, 0.1)):
                child = board | exp << shift
                best = 0.0
                for d in range(4):
                    moved = t.move(child, d)[0]
                    if moved != child:
                        best = max(best, chance(moved, cprob * p / empty, depth - 1, cache))
                total += p * best
        value = total / empty
        cache[board] = (depth, value)
        return value

    start = time.perf_counter()
    for board in boards:
        packed = t.pack([[v.bit_length() - 1 if v else 0 for v in row] for row in board])
        cache: dict[int, tuple[int, float]] = {}
        for d in range(4):
            moved = t.move(packed, d)[0]
            if moved != packed:
                chance(moved, 1.0, depth, cache)
    return nodes / (time.perf_counter() - start)


def in_subprocess(code: str, env: dict[str, str], stdin: str = "") -> str:
    done = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, **env},
        input=stdin,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="3,4,5,6")
    parser.add_argument("--python", action="store_true", help="compare with the search run as plain Python")
    parser.add_argument("--compile", action="store_true", help="measure numba's compile time")
    parser.add_argument(
        "--nneonneo-search", action="store_true", help="time nneonneo/2048-ai's exact search, run here"
    )
    parser.add_argument("--games", type=int, default=2, help="normal games for --nneonneo-search")
    parser.add_argument("--every", type=int, default=150, help="moves between --nneonneo-search positions")
    args = parser.parse_args()
    sizes = tuple(int(s) for s in args.sizes.split(","))
    time_presets(sizes)
    if args.nneonneo_search:
        time_nneonneo(args.games, args.every)
    probe = (
        "import json, sys; sys.path.insert(0, 'bench'); from solver_speed import nodes_per_second;"
        "rate, nodes = nodes_per_second(json.load(sys.stdin), 3); print(f'{rate:.0f} {nodes}')"
    )
    if args.python:
        print("\nsame search, same positions, chance nodes per second (depth 3):")
        for size in (4,):
            boards = positions(size, games=1)
            compiled = nodes_per_second(boards, 3)[0]
            out = in_subprocess(probe, {"NUMBA_DISABLE_JIT": "1"}, json.dumps(boards))
            plain = float(out.split()[0])
            written = plain_python_nodes_per_second(boards, 3)
            print(f"  {size}x{size}: numba {compiled:9.0f}")
            print(f"       plain Python written for it {written:7.0f}  (numba x{compiled / written:.0f})")
            print(f"       the numba source, uncompiled {plain:6.0f}  (numba x{compiled / plain:.0f})")
    if args.compile:
        with tempfile.TemporaryDirectory() as cache:
            code = (
                "import time; t = time.perf_counter(); from game2048.solver import analyse;"
                "analyse([[2, 2, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]);"
                "a = time.perf_counter(); analyse([[2, 2, 0, 0, 0]] + [[0] * 5] * 4);"
                "print(f'{a - t:.2f} {time.perf_counter() - a:.2f}')"
            )
            for label in ("empty cache (compiles)", "warm cache (loads)"):
                bits, cells = in_subprocess(code, {"NUMBA_CACHE_DIR": cache}).split()
                print(f"first hint in a new process, {label}: bitboard path {bits} s, cell path {cells} s")


if __name__ == "__main__":
    main()
