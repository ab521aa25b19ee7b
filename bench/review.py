"""How long a review takes: 1,000 moves on each board size, with the review's default preset.

    python bench/review.py                                  # every size, solver and corner games
    python bench/review.py --sizes 4 --moves 1000 --preset normal

The moves come from seeded games (seeds 0, 1, ... until there are enough
moves; 3x3 games are short) played by the ``fast`` solver and by the corner
method, so every run reviews the same positions. Prints one table row per size
and kind of game: CPU seconds in this one process (the solver is loaded
first, so start-up is not counted), wall seconds, and milliseconds a move.
Never fails on timing; the target (issue 13) is 1,000 4x4 moves in at most
10 s on one core.
"""

from __future__ import annotations

import argparse
import os
import random
import time

from game2048 import Game
from game2048.solver import warm_up
from game2048.solver.review import DEFAULT_PRESET, grade_moves
from game2048.solver.simulate import STRATEGIES


def logs(strategy: str, size: int, moves: int) -> list[tuple[int, str]]:
    """``(seed, log)`` of seeded games by ``strategy``, the last one cut so that they hold ``moves`` moves."""
    out: list[tuple[int, str]] = []
    left, seed = moves, 0
    while left > 0:
        game = Game(size, seed)
        rng = random.Random(seed)
        while game.moves < left and (move := STRATEGIES[strategy](game, rng)) is not None:
            game.move(move)
        out.append((seed, game.log))
        left -= game.moves
        seed += 1
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="3,4,5,6")
    parser.add_argument("--moves", type=int, default=1000)
    parser.add_argument("--preset", default=DEFAULT_PRESET)
    parser.add_argument("--strategies", default="solver-fast,corner")
    args = parser.parse_args()
    warm_up()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"review of {args.moves} moves, preset {args.preset!r}, load average {load:.1f} at the start")
    print("| size | games by | moves | CPU s | wall s | ms/move (CPU) |")
    print("|---|---|---|---|---|---|")
    for size in (int(s) for s in args.sizes.split(",")):
        for strategy in args.strategies.split(","):
            games = logs(strategy, size, args.moves)
            cpu, wall = time.process_time(), time.perf_counter()
            graded = sum(1 for seed, log in games for _ in grade_moves(size, seed, log, args.preset))
            cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
            print(f"| {size}×{size} | {strategy} ({len(games)} game{'s' if len(games) > 1 else ''}) "
                  f"| {graded} | {cpu:.2f} | {wall:.2f} | {1000 * cpu / graded:.2f} |")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"load average {load:.1f} at the end")


if __name__ == "__main__":
    main()
