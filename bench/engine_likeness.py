"""Calibrate the engine-like rule (``game2048.solver.likeness``) on our own games.

Plays games with engines (the solver's presets, a shallower search, a greedy
engine with a heuristic of its own) and with strong non-engine play (solver
moves mixed with 10-30 % other legal moves, the corner strategy with and
without lookahead, noisy variants), then prints, per kind, the statistics the
rule reads and how many games it flags. A figure to read, never a pass mark.

    python bench/engine_likeness.py --games 8 --moves 400 --jobs 2
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from concurrent.futures import ProcessPoolExecutor

from game2048 import Game, slide
from game2048.solver import analyse, warm_up
from game2048.solver.likeness import likeness

ORDER = ("down", "left", "right", "up")  # the corner method: down-left corner, up only when forced


def legal(board):
    return [d for d in ("up", "down", "left", "right") if slide(board, d)[0] != board]


def corner(board, rng):
    moves = legal(board)
    return next(d for d in ORDER if d in moves)


def corner_lookahead(board, rng):
    """The corner method with one move of lookahead: the most empty cells after the move,
    ties to the corner order; up only when nothing else moves."""
    moves = [d for d in legal(board) if d != "up"] or ["up"]

    def empties(d):
        after, points = slide(board, d)
        return (sum(v == 0 for row in after for v in row), points, -ORDER.index(d))

    return max(moves, key=empties)


def greedy(board, rng):
    """An engine of its own: one ply, a heuristic unlike the solver's (empties, merges, the
    largest tile in a corner), ties broken at random."""
    def value(d):
        after, points = slide(board, d)
        n = len(after)
        top = max(max(r) for r in after)
        cornered = top in (after[0][0], after[0][n - 1], after[n - 1][0], after[n - 1][n - 1])
        return (sum(v == 0 for row in after for v in row) * 4 + points / 8 + 20 * cornered, rng.random())

    return max(legal(board), key=value)


def solver(preset=None, depth=None):
    def choose(board, rng):
        return analyse(board, preset=preset or "fast", depth=depth)[0]

    return choose


def noisy(base, share):
    def choose(board, rng):
        move = base(board, rng)
        if rng.random() < share:
            others = [d for d in legal(board) if d != move]
            if others:
                return rng.choice(others)
        return move

    return choose


KINDS = {
    # engines: must be caught
    "solver fast": solver("fast"),
    "solver normal": solver("normal"),
    "solver strong": solver("strong"),
    "solver depth 1": solver(depth=1),
    "solver learned": solver("learned"),  # the trained network, where its weights are installed
    "greedy engine": greedy,
    # strong non-engine play: must not be
    "solver + 10% other": noisy(solver("fast"), 0.10),
    "solver + 20% other": noisy(solver("fast"), 0.20),
    "solver + 30% other": noisy(solver("fast"), 0.30),
    "learned + 10% other": noisy(solver("learned"), 0.10),
    "corner": corner,
    "corner + lookahead": corner_lookahead,
    "corner + 10% other": noisy(corner, 0.10),
    "corner + lookahead + 10% other": noisy(corner_lookahead, 0.10),
}
ENGINES = ("solver fast", "solver normal", "solver strong", "solver depth 1", "solver learned",
           "greedy engine")


def one(args):
    kind, size, seed, cap = args
    warm_up()
    rng = random.Random(seed * 7919 + size)
    game = Game(size, seed)
    choose = KINDS[kind]
    while not game.over and game.moves < cap:
        game.move(choose(game.board, rng))
    started = time.perf_counter()
    result = likeness(size, seed, game.log)
    result.update(kind=kind, size=size, seed=seed, score=game.score, seconds=time.perf_counter() - started)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--moves", type=int, default=400, help="cap on each game's moves")
    parser.add_argument("--sizes", default="3,4")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--kinds", help="comma-separated kinds (default: all)")
    parser.add_argument("--json", help="write every game's figures here")
    args = parser.parse_args()
    kinds = args.kinds.split(",") if args.kinds else list(KINDS)
    work = [(kind, size, 1000 + i, args.moves) for size in map(int, args.sizes.split(","))
            for kind in kinds for i in range(args.games)]
    with ProcessPoolExecutor(args.jobs) as pool:
        results = list(pool.map(one, work))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f)
    print(f"{'kind':32} size games  agreement (min-median-max)  slips (median-max)  mattering  flagged  "
          "check ms/move")
    for size in map(int, args.sizes.split(",")):
        for kind in kinds:
            rows = [r for r in results if r["kind"] == kind and r["size"] == size]
            agree = sorted(r["agreement"] for r in rows)
            flagged = sum(r["engine_like"] for r in rows)
            ms = 1000 * sum(r["seconds"] for r in rows) / max(1, sum(r["moves"] for r in rows))
            mark = "engine" if kind in ENGINES else "person"
            slips = sorted(r["slips"] for r in rows)
            print(f"{kind:32} {size:>4} {len(rows):>5}  {agree[0]:.3f} {statistics.median(agree):.3f} "
                  f"{agree[-1]:.3f}   {statistics.median(slips):.3f} {slips[-1]:.3f}   "
                  f"{statistics.median(r['mattering'] for r in rows):>8.0f}  "
                  f"{flagged:>3}/{len(rows)} ({mark})  {ms:.2f}")


if __name__ == "__main__":
    main()
