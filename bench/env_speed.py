"""Gymnasium environments: board-steps per second, vector (one compiled call) and single.

    python bench/env_speed.py [--boards 1024] [--steps 2000] [--rounds 3] [--size 4]

Steps ``--boards`` boards of the vector environment with random actions and
the single environment (through ``gymnasium.make``, one board, resetting at
game over) in the same run, and prints both rates (CPU time, best of
``--rounds``) and their ratio. Everything runs on one core: the kernel is
not parallel.
"""

from __future__ import annotations

import argparse
import time

import gymnasium
import numpy as np

import game2048.env  # noqa: F401  (registers the id)
from game2048.env import ENV_ID


def vector_rate(boards: int, steps: int, size: int) -> float:
    envs = gymnasium.make_vec(ENV_ID, num_envs=boards, vectorization_mode="vector_entry_point", size=size)
    envs.reset(seed=0)
    actions = np.random.default_rng(0).integers(4, size=(steps, boards))
    envs.step(actions[0])  # compiled and warm
    t0 = time.process_time()
    for a in actions:
        envs.step(a)
    return boards * steps / (time.process_time() - t0)


def single_rate(steps: int, size: int) -> float:
    env = gymnasium.make(ENV_ID, size=size)
    env.reset(seed=0)
    actions = [int(a) for a in np.random.default_rng(1).integers(4, size=steps)]
    env.step(0)
    t0 = time.process_time()
    for a in actions:
        if env.step(a)[2]:
            env.reset()
    return steps / (time.process_time() - t0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--boards", type=int, default=1024)
    parser.add_argument("--steps", type=int, default=2000, help="vector steps per round (default 2000)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--single-steps", type=int, default=20_000, help="single env steps per round")
    parser.add_argument("--size", type=int, default=4)
    args = parser.parse_args()
    vec = max(vector_rate(args.boards, args.steps, args.size) for _ in range(args.rounds))
    one = max(single_rate(args.single_steps, args.size) for _ in range(args.rounds))
    print(f"size {args.size}x{args.size}, {args.boards} boards, best of {args.rounds} rounds (CPU time)")
    print(f"vector env:  {vec:>12,.0f} board-steps/s")
    print(f"single env:  {one:>12,.0f} steps/s (gymnasium.make, default wrappers)")
    print(f"ratio:       {vec / one:>12.1f}x")


if __name__ == "__main__":
    main()
