"""How strong the solver is: seeded games per size and preset, as a markdown table.

    python bench/solver_strength.py 4:fast:100 3:strong:100 4:strong:5 --jobs 2

Each argument is SIZE:PRESET:GAMES (games use seeds 0 .. GAMES-1, as
``game2048 solve --seed 0`` does). Prints one table row per argument with the
share of games reaching the size's target tile and the next three, the mean
and median score and the time per move (``--until TILE`` ends each game at
TILE, as ``solve --until`` does). Long runs belong here, not in tests.
"""

from __future__ import annotations

import argparse
import time
from concurrent.futures import ProcessPoolExecutor
from functools import partial

from game2048.rules import TARGETS
from game2048.solver.command import _worker_init
from game2048.solver.play import GameResult, play_result, summarise


def run(
    size: int, preset: str, games: int, jobs: int, until: int | None = None
) -> tuple[dict[str, object], float, float]:
    """Play the games; return the summary, wall seconds and ms per move in one process."""
    play = partial(play_result, preset=preset, until=until)
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=jobs, initializer=_worker_init) as pool:
        results: list[GameResult] = list(pool.map(play, [size] * games, range(games)))
    seconds = time.perf_counter() - start
    moves = sum(r.moves for r in results)
    busy = sum(r.seconds for r in results)
    return summarise(results, seconds), seconds, 1000 * busy / max(1, moves)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", help="SIZE:PRESET:GAMES")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--until", type=int, help="end each game once it makes this tile")
    args = parser.parse_args()
    print("| size | preset | games | target | ×2 | ×4 | ×8 | mean score | median score | ms/move | wall s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for spec in args.runs:
        size_s, preset, games_s = spec.split(":")
        size, games = int(size_s), int(games_s)
        summary, seconds, ms = run(size, preset, games, args.jobs, args.until)
        reached: dict[str, float] = summary["reached"]  # type: ignore[assignment]
        target = TARGETS[size]
        shares = [f"{100 * reached.get(str(target << k), 0.0):.0f} %" for k in range(4)]
        print(
            f"| {size}×{size} | {preset} | {games} | "
            + " | ".join(shares)
            + f" | {summary['mean_score']:.0f} | {summary['median_score']:.0f} | {ms:.2f} | {seconds:.0f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
