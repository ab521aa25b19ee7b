"""MaskablePPO (sb3-contrib) learning 3x3 2048 on the compiled vector env, then played on fresh seeds.

    pip install "game2048[gym]" sb3-contrib      # stable-baselines3 and torch come with it
    python bench/maskable_ppo.py --steps 200000

Trains on ``Game2048SB3VecEnv`` (one-hot planes, masks from ``action_masks``),
then plays ``--games`` games on seeds no training game used, with the trained
policy (deterministic, masked) and with a uniformly random legal move, and
prints mean score and the share of games reaching each tile for both, and the
CPU and wall time of the training. Figures, never a pass or a fail.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np


def play(policy, games: int, first_seed: int, size: int) -> list[tuple[int, int]]:  # type: ignore[no-untyped-def]
    """(score, max tile) of ``games`` games on seeds first_seed, first_seed + 1, ..."""
    import gymnasium

    import game2048.env  # noqa: F401

    env = gymnasium.make("game2048/Game2048-v0", size=size, observation="onehot")
    out = []
    for seed in range(first_seed, first_seed + games):
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            action = policy(obs, env.unwrapped.action_masks())
            obs, _, done, _, info = env.step(action)
        out.append((info["score"], info["max_tile"]))
    return out


def report(name: str, results: list[tuple[int, int]]) -> None:
    scores = [s for s, _ in results]
    tiles = sorted({t for _, t in results})
    shares = "  ".join(f"{t}: {100 * sum(m >= t for _, m in results) / len(results):.0f} %"
                       for t in tiles[-4:])
    print(f"{name:>10}: mean score {statistics.mean(scores):7.1f}  median {statistics.median(scores):6.0f}  "
          f"reached {shares}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=3)
    parser.add_argument("--steps", type=int, default=200_000, help="training steps (all boards together)")
    parser.add_argument("--envs", type=int, default=64, help="boards stepped at once")
    parser.add_argument("--games", type=int, default=200, help="evaluation games")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--reward", default="log_score")
    args = parser.parse_args()

    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import VecMonitor

    from game2048.env.sb3 import Game2048SB3VecEnv

    torch.set_num_threads(1)
    env = VecMonitor(Game2048SB3VecEnv(args.envs, args.size, observation="onehot", reward=args.reward,
                                       seed=args.seed))
    model = MaskablePPO("MlpPolicy", env, n_steps=128, batch_size=1024, n_epochs=4, learning_rate=3e-4,
                        gamma=0.99, ent_coef=0.01, seed=args.seed, verbose=0)
    cpu, wall = time.process_time(), time.perf_counter()
    model.learn(args.steps)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    print(f"trained {args.steps} steps on {args.size}x{args.size} ({args.envs} boards, reward {args.reward}) "
          f"in {wall:.0f} s ({cpu:.0f} s CPU, one torch thread)")

    rng = np.random.default_rng(args.seed)
    first = 1_000_000  # training games draw their seeds from the env's generators, not from this range
    learned = play(lambda obs, mask: int(model.predict(obs, action_masks=mask, deterministic=True)[0]),
                   args.games, first, args.size)
    random = play(lambda obs, mask: int(rng.choice(np.flatnonzero(mask))), args.games, first, args.size)
    print(f"{args.games} games on seeds {first} to {first + args.games - 1}:")
    report("MaskablePPO", learned)
    report("random", random)


if __name__ == "__main__":
    main()
