"""Training and playing speed of the learned evaluator: moves per CPU-second, µs a move.

Trains a fresh network in memory (nothing is saved) for ``--seconds`` on
``--threads`` threads, printing the training moves per CPU-second (all the
process's threads) and per wall-clock second, then plays ``--games`` seeded
games with it at 1-ply and at 2-ply and prints the time of a move. The first
games of a run are short and the network small in cache, so a minute or
more is closer to a long run's rate. Never fails on timing.

    nice -n 19 .venv/bin/python bench/learn_speed.py --seconds 60
    nice -n 19 .venv/bin/python bench/learn_speed.py --seconds 60 --threads 2
"""

from __future__ import annotations

import argparse
import os
import time

from game2048.solver.learn.play import evaluate
from game2048.solver.learn.train import new_run, train


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="training time (wall clock)")
    parser.add_argument("--threads", type=int, default=1, help="training threads")
    parser.add_argument("--games", type=int, default=50, help="seeded games played at each ply")
    args = parser.parse_args()

    train(new_run(), max_games=100, log=None)  # load or compile the kernels outside the timing
    run = new_run(seed=1)
    wall = time.perf_counter()
    train(run, threads=args.threads, seconds=args.seconds, log=None)
    wall = time.perf_counter() - wall
    load = os.getloadavg()[0]
    print(f"training, {args.threads} thread(s), {run.games:,} games, {run.moves:,} moves (load {load:.1f}):")
    print(f"  {run.moves / run.cpu_seconds / 1e6:.2f} M moves per CPU-second")
    print(f"  {run.moves / wall / 1e6:.2f} M moves per wall-clock second")
    for ply in (1, 2):
        result = evaluate(run.weights, args.games, seed=0, ply=ply)
        print(
            f"{ply}-ply, {args.games} seeded games, {result.moves:,} moves:"
            f" {result.us_per_move:.2f} µs a move, mean score {result.mean_score:,.0f}"
        )


if __name__ == "__main__":
    main()
