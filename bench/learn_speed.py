"""Training and playing speed of the learned evaluator: moves per CPU-second, µs a move.

Trains a fresh network in memory (nothing is saved) for ``--seconds`` on
``--threads`` threads, printing the training moves per CPU-second (all the
process's threads) and per wall-clock second, then plays ``--games`` seeded
games with it at 1-ply and at 2-ply and prints the time of a move. The first
games of a run are short and the network small in cache, so a minute or
more is closer to a long run's rate. Never fails on timing.

    nice -n 19 .venv/bin/python bench/learn_speed.py --seconds 60
    nice -n 19 .venv/bin/python bench/learn_speed.py --seconds 60 --threads 2
    nice -n 19 .venv/bin/python bench/learn_speed.py --seconds 60 --shipped --compare-coherence

``--shipped`` trains on from the installed weights (long games, a network
too large for any cache: a long run's rate from its first second);
``--compare-coherence`` trains the same network twice in turn, plain TD(0)
then with temporal coherence, and prints the ratio of their rates.
"""

from __future__ import annotations

import argparse
import os
import time

from game2048.solver.learn.checkpoint import Run
from game2048.solver.learn.play import evaluate
from game2048.solver.learn.shipped import installed_chain, read_chain
from game2048.solver.learn.train import new_run, train


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="training time (wall clock)")
    parser.add_argument("--threads", type=int, default=1, help="training threads")
    parser.add_argument("--games", type=int, default=50, help="seeded games played at each ply")
    parser.add_argument("--coherence", action="store_true", help="train with temporal coherence")
    parser.add_argument("--shipped", action="store_true", help="train on from the installed weights")
    parser.add_argument("--compare-coherence", action="store_true",
                        help="train plain, then with temporal coherence, in turn; print both and the ratio")
    args = parser.parse_args()
    if args.compare_coherence:
        rates = [_rate(args, coherence) for coherence in (False, True, False, True)]
        plain, coherent = min(rates[0::2]), min(rates[1::2])
        print(f"temporal coherence trains at {coherent / plain:.2f}x plain TD(0)'s moves per CPU-second"
              " (the slower of two turns each)")
        return

    run = _trained(args, args.coherence)
    for ply in (1, 2):
        result = evaluate(run.weights, args.games, seed=0, ply=ply)
        print(
            f"{ply}-ply, {args.games} seeded games, {result.moves:,} moves:"
            f" {result.us_per_move:.2f} µs a move, mean score {result.mean_score:,.0f}"
        )


def _start(shipped: bool, coherence: bool) -> Run:
    if shipped:
        run = read_chain(installed_chain())
        run.games = run.moves = 0
        run.cpu_seconds = run.wall_seconds = 0.0
    else:
        run = new_run(seed=1)
    run.coherence = coherence
    return run


def _trained(args: argparse.Namespace, coherence: bool) -> Run:
    train(new_run(coherence=coherence), max_games=100, log=None)  # compile the kernels outside the timing
    run = _start(args.shipped, coherence)
    wall = time.perf_counter()
    train(run, threads=args.threads, seconds=args.seconds, log=None)
    wall = time.perf_counter() - wall
    load = os.getloadavg()[0]
    how = "temporal coherence" if coherence else "plain TD(0)"
    print(f"training, {how}, {args.threads} thread(s), {run.games:,} games, {run.moves:,} moves"
          f" (load {load:.1f}):")
    print(f"  {run.moves / run.cpu_seconds / 1e6:.2f} M moves per CPU-second")
    print(f"  {run.moves / wall / 1e6:.2f} M moves per wall-clock second")
    return run


def _rate(args: argparse.Namespace, coherence: bool) -> float:
    run = _trained(args, coherence)
    return run.moves / run.cpu_seconds


if __name__ == "__main__":
    main()
