"""Engine speed: moves per second for replay and for random play, on every size.

    python bench/engine.py [--games N] [--rounds R]

Prints one line per size. Replay is the server's verification path: once for
games with integer seeds (SplitMix64 spawns, ``replay/s``), once for games with
secret seeds (keyed BLAKE2b spawns, ``secret/s``, how ranked games are dealt);
random play (through the public ``Game`` API, asking ``game.over`` after every move)
is the simulations' path. The records are random games played to the end
(about 120 moves on 4x4).

For scale, the same logs also run through a plain list-based loop in the
same run: the board as lists of tile values moved by ``rules.slide``, a new
tile from ``random.Random`` (an empty cell from ``randrange``, a 4 when
``random() < 0.1``), a letter whose move changes nothing skipped. The ratio
compares well across machines and loads, absolute figures less so. Each
figure is the best of ``--rounds`` rounds (CPU time), which keeps other
processes on a shared machine from deciding it.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from game2048 import Game, replay, slide
from game2048.rules import DIRECTION_OF_LETTER, SIZES
from game2048.spawn import Seed


def plain_replay(size: int, seed: int, log: str) -> tuple[list[list[int]], int]:
    """The yardstick: lists of values, ``rules.slide``, spawns from ``random.Random``."""
    rnd = random.Random(seed)
    board = [[0] * size for _ in range(size)]

    def spawn() -> None:
        empties = [(r, c) for r in range(size) for c in range(size) if board[r][c] == 0]
        r, c = empties[rnd.randrange(len(empties))]
        board[r][c] = 4 if rnd.random() < 0.1 else 2

    spawn()
    spawn()
    score = 0
    for letter in log:
        moved, points = slide(board, DIRECTION_OF_LETTER[letter])
        if moved != board:
            board[:] = moved
            score += points
            spawn()
    return board, score


def records(size: int, games: int, secret: bool = False) -> list[tuple[Seed, str]]:
    """Random games played to the end: (seed, log); ``secret``: with secret seeds."""
    out = []
    rnd = random.Random(size)
    for seed in range(games):
        game = Game(size, f"{seed:032x}" if secret else seed)
        while not game.over:
            game.move(rnd.choice(game.legal_moves()))
        out.append((game.seed, game.log))
    return out


def best_rate(moves: int, run: Callable[[], object], rounds: int) -> float:
    """Moves per CPU second, the best of ``rounds`` runs."""
    best = float("inf")
    for _ in range(rounds):
        t0 = time.process_time()
        run()
        best = min(best, time.process_time() - t0)
    return moves / max(best, 1e-9)


def run_all(replayer: Callable[[int, Any, str], object], size: int, recs: list[tuple[Seed, str]]) -> None:
    for seed, log in recs:
        replayer(size, seed, log)


def random_play(size: int, games: int) -> int:
    rnd = random.Random(1)
    played = 0
    for seed in range(games):
        game = Game(size, 10_000 + seed)
        while not game.over:
            game.move(rnd.choice("UDLR"))
        played += game.moves
    return played


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=40, help="games per size (default 40)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds per figure, best kept (default 3)")
    args = parser.parse_args()
    heads = ("moves", 7), ("replay/s", 10), ("secret/s", 10), ("random/s", 10), ("plain/s", 9), ("ratio", 6)
    print(f"{'size':>4} " + " ".join(f"{head:>{width}}" for head, width in heads))
    for size in SIZES:
        recs = records(size, args.games)
        moves = sum(len(log) for _, log in recs)
        random_moves = random_play(size, args.games)
        random_rate = best_rate(random_moves, partial(random_play, size, args.games), args.rounds)
        replay_rate = best_rate(moves, partial(run_all, replay, size, recs), args.rounds)
        secret = records(size, args.games, secret=True)
        secret_moves = sum(len(log) for _, log in secret)
        secret_rate = best_rate(secret_moves, partial(run_all, replay, size, secret), args.rounds)
        sample = recs[: max(1, len(recs) // 4)]
        sample_moves = sum(len(log) for _, log in sample)
        plain_rate = best_rate(sample_moves, partial(run_all, plain_replay, size, sample), args.rounds)
        print(
            f"{size}x{size} {moves:>7} {replay_rate:>10,.0f} {secret_rate:>10,.0f} {random_rate:>10,.0f} "
            f"{plain_rate:>9,.0f} {replay_rate / plain_rate:>5.1f}x"
        )


if __name__ == "__main__":
    main()
