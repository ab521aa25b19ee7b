"""Engine speed: moves per second for replay and for random play, on every size.

    python bench/engine.py [--games N]

Prints one line per size. Replay is the server's verification path; random
play is the simulations' path. For scale, each size is also replayed by a
plain list-based engine (the reference rules in ``game2048.rules`` plus the
same spawns) in the same run, and the ratio is printed: ratios compare well
across machines and loads, absolute figures less so.
"""

from __future__ import annotations

import argparse
import random
import time

from game2048 import Game, replay, slide
from game2048.rules import DIRECTION_OF_LETTER, SIZES
from game2048.spawn import spawn_choice


def plain_replay(size: int, seed: int, log: str) -> tuple[list[list[int]], int]:
    """The same game on lists of values, moved by ``rules.slide``: the yardstick."""
    board = [[0] * size for _ in range(size)]

    def spawn(index: int) -> None:
        empties = [(r, c) for r in range(size) for c in range(size) if board[r][c] == 0]
        ordinal, exp = spawn_choice(seed, index, len(empties))
        r, c = empties[ordinal]
        board[r][c] = 1 << exp

    spawn(0)
    spawn(1)
    score = 0
    for moves, letter in enumerate(log, start=1):
        moved, points = slide(board, DIRECTION_OF_LETTER[letter])
        board[:] = moved
        score += points
        spawn(moves + 1)
    return board, score


def records(size: int, games: int) -> list[tuple[int, str]]:
    out = []
    rnd = random.Random(size)
    for seed in range(games):
        game = Game(size, seed)
        while not game.over:
            game.move(rnd.choice(game.legal_moves()))
        out.append((seed, game.log))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=40, help="games per size (default 40)")
    args = parser.parse_args()
    print(f"{'size':>4} {'moves':>8} {'replay/s':>10} {'random/s':>10} {'plain/s':>9} {'ratio':>6}")
    for size in SIZES:
        rnd = random.Random(1)
        t0 = time.process_time()
        played = 0
        for seed in range(args.games):
            game = Game(size, 10_000 + seed)
            while not game.over:
                game.move(rnd.choice("UDLR"))
            played += game.moves
        random_rate = played / (time.process_time() - t0)

        recs = records(size, args.games)
        moves = sum(len(log) for _, log in recs)
        t0 = time.process_time()
        for seed, log in recs:
            replay(size, seed, log)
        replay_rate = moves / (time.process_time() - t0)

        sample = recs[: max(1, len(recs) // 8)]
        sample_moves = sum(len(log) for _, log in sample)
        t0 = time.process_time()
        for seed, log in sample:
            plain_replay(size, seed, log)
        plain_rate = sample_moves / (time.process_time() - t0)
        print(
            f"{size}x{size} {moves:>8} {replay_rate:>10,.0f} {random_rate:>10,.0f} "
            f"{plain_rate:>9,.0f} {replay_rate / plain_rate:>5.1f}x"
        )


if __name__ == "__main__":
    main()
