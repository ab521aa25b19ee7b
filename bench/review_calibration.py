"""Choose the review's thresholds and accuracy scale from the losses of solver and human-like games.

Plays seeded games with the simulations' strategies (``pages/simulate.py``:
the ``fast`` solver, the corner method, greedy, random), reviews every move
with the review's default preset, prints the loss distribution of each
strategy on each board size, derives the thresholds and the accuracy scale
by the rules below, and checks the targets of issue 13 with them:

- ``inaccuracy`` begins at the loss the ``fast`` solver's moves exceed 2 % of
  the time (the median over sizes of that quantile): the solver itself
  almost never makes one;
- ``mistake`` begins at the median loss of a random move: half the moves of
  a random game are mistakes or worse;
- ``blunder`` begins at the loss only the worst 10 % of random moves reach;
- the accuracy scale is the one (of a grid) that leaves the widest margin to
  both targets on every size: every ``fast`` game at least 85, every random
  game at most 60.

Each is rounded to one significant figure. Run it again after the solver or
its presets change, and copy the figures into ``solver/review.py`` and
``docs/review.md``::

    nice -n 15 python bench/review_calibration.py --sizes 3,4,5,6 --games 4 --max-moves 1500 --jobs 2
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time
from collections import defaultdict

from game2048 import Game
from game2048.rules import DIRECTION_OF_LETTER
from game2048.solver import analyse
from game2048.solver.learned import LEARNED
from game2048.solver.review import ACCURACY_SCALE, DEFAULT_PRESET, THRESHOLDS, board_weight, grade_moves
from game2048.solver.search import heuristic_for
from game2048.solver.simulate import STRATEGIES

MEASURED = ("solver-fast", "corner", "greedy", "random")
SCALES = (0.003, 0.005, 0.007, 0.01, 0.015, 0.02, 0.03, 0.05, 0.07, 0.1)
QUANTILES = (0.5, 0.75, 0.9, 0.95, 0.98, 0.99)


def play_log(strategy: str, size: int, seed: int, max_moves: int) -> str:
    """The log of game ``seed`` played by ``strategy`` (as ``simulate`` plays it), cut at ``max_moves``."""
    game = Game(size, seed)
    rng = random.Random(seed)
    choose = STRATEGIES[strategy]
    while game.moves < max_moves and (move := choose(game, rng)) is not None:
        game.move(move)
    return game.log


def losses_of(task: tuple[str, int, int, int, str]) -> tuple[str, int, int, list[float], float]:
    """Play one game and review it: ``(strategy, size, seed, losses, seconds of review)``."""
    strategy, size, seed, max_moves, preset = task
    log = play_log(strategy, size, seed, max_moves)
    start = time.process_time()
    losses = [m["loss"] for m in grade_moves(size, seed, log, preset)]
    return strategy, size, seed, losses, time.process_time() - start


def compare_units(sizes: list[int], games: int, max_moves: int, preset: str) -> None:
    """A random move's median loss and a ``fast`` solver move's q98 loss in each candidate unit of loss.

    A good unit gives a random move about the same loss on every size, and
    keeps the solver's own rare slips well below a random move's typical one.
    With ``--preset learned`` (4x4, the network's 3-ply values, in points) the
    units are the network's own: points, the best move's value, the spread.
    """
    units = {
        "the value of a live board": lambda n, board, best, values: 2 * n * heuristic_for(n).lost,
        "best value - mean value": lambda n, board, best, values: best - statistics.fmean(values),
        "the board's weight": lambda n, board, best, values: board_weight(board),
    }
    if preset == LEARNED:  # the network's values are points to come: the heuristic's units mean nothing
        units = {
            "points": lambda n, board, best, values: 1.0,
            "the best move's value": lambda n, board, best, values: best,
            "best value - mean value": units["best value - mean value"],
        }
    found: dict[tuple[str, str], list[float]] = defaultdict(list)
    for n in sizes:
        for strategy, q in (("random", 0.5), ("solver-fast", 0.98)):
            losses: dict[str, list[float]] = defaultdict(list)
            for seed in range(games):
                game = Game(n, seed)
                for letter in play_log(strategy, n, seed, max_moves):
                    board = game.board
                    _, values = analyse(board, preset=preset)
                    best, played = max(values.values()), values[DIRECTION_OF_LETTER[letter]]
                    for name, unit in units.items():
                        scale = unit(n, board, best, list(values.values()))
                        losses[name].append((best - played) / scale if scale > 0 else 0.0)
                    game.move(letter)
            for name in units:
                found[name, strategy].append(quantile(losses[name], q))
    print("Loss in each candidate unit: a random move's median / a fast solver move's q98")
    print(f"{'unit':<28}" + "".join(f"{f'{n}x{n}':>18}" for n in sizes))
    for name in units:
        cells = [f"{r:.2g} / {f:.2g}" for r, f in zip(found[name, "random"], found[name, "solver-fast"],
                                                       strict=True)]
        print(f"{name:<28}" + "".join(f"{c:>18}" for c in cells))


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def one_figure(x: float) -> float:
    """``x`` rounded to one significant figure."""
    return float(f"{x:.0e}") if x > 0 else 0.0


def accuracy(losses: list[float], scale: float) -> float:
    return sum(100 * math.exp(-x / scale) for x in losses) / len(losses) if losses else 100.0


Losses = dict[tuple[str, int], list[list[float]]]


def choose(games: Losses, sizes: list[int]) -> tuple[dict[str, float], float]:
    """The thresholds and the accuracy scale by the rules in the module's docstring."""

    def pooled(strategy: str, size: int) -> list[float]:
        return [x for g in games[strategy, size] for x in g]

    thresholds = {
        "inaccuracy": one_figure(statistics.median(quantile(pooled("solver-fast", n), 0.98) for n in sizes)),
        "mistake": one_figure(statistics.median(quantile(pooled("random", n), 0.5) for n in sizes)),
        "blunder": one_figure(statistics.median(quantile(pooled("random", n), 0.9) for n in sizes)),
    }

    def margin(scale: float) -> float:
        fast = min(accuracy(g, scale) for n in sizes for g in games["solver-fast", n])
        rand = max(accuracy(g, scale) for n in sizes for g in games["random", n])
        return min(fast - 85, 60 - rand)

    return thresholds, max(SCALES, key=margin)


def classes(losses: list[float], thresholds: dict[str, float]) -> dict[str, int]:
    counts = {"good or best": 0, **dict.fromkeys(thresholds, 0)}
    for x in losses:
        name = "good or best"
        for cls, start in thresholds.items():
            if x >= start:
                name = cls
        counts[name] += 1
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="3,4,5,6")
    parser.add_argument("--games", type=int, default=4, help="games per strategy and size (seeds 0..N-1)")
    parser.add_argument("--max-moves", type=int, default=1500, help="cut each game after this many moves")
    parser.add_argument("--preset", default=DEFAULT_PRESET)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--compare-units", action="store_true",
                        help="only compare candidate units of loss (random and fast solver games)")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    if args.compare_units:
        compare_units(sizes, args.games, args.max_moves, args.preset)
        return
    tasks = [(s, n, seed, args.max_moves, args.preset) for n in sizes for s in MEASURED
             for seed in range(args.games)]
    games: Losses = defaultdict(list)
    seconds: dict[int, list[float]] = defaultdict(list)
    moves: dict[int, list[int]] = defaultdict(list)
    started = time.perf_counter()
    if args.jobs > 1:
        import multiprocessing

        with multiprocessing.get_context("spawn").Pool(args.jobs) as pool:
            results = list(pool.imap_unordered(losses_of, tasks))
    else:
        results = [losses_of(t) for t in tasks]
    for strategy, size, _seed, losses, spent in sorted(results):
        games[strategy, size].append(losses)
        seconds[size].append(spent)
        moves[size].append(len(losses))
    print(f"{len(tasks)} games reviewed with the {args.preset!r} preset in "
          f"{time.perf_counter() - started:.0f} s (games cut at {args.max_moves} moves)\n")

    print("Loss quantiles (loss = value gap / board weight):")
    head = "  ".join(f"q{int(q * 100):<6}" for q in QUANTILES)
    print(f"{'size':>4}  {'strategy':<12} {'games':>5} {'moves':>6}  {head}")
    for n in sizes:
        for s in MEASURED:
            pooled = [x for g in games[s, n] for x in g]
            qs = "  ".join(f"{quantile(pooled, q):<7.2g}" for q in QUANTILES)
            print(f"{n:>4}  {s:<12} {len(games[s, n]):>5} {len(pooled):>6}  {qs}")
    thresholds, scale = choose(games, sizes)
    print(f"\nChosen: thresholds {thresholds}, accuracy scale {scale}")
    if list(thresholds.values()) != sorted(thresholds.values()):
        print("  (the thresholds do not rise: too few games to choose from; play more)")
    print(f"In solver/review.py: THRESHOLDS {THRESHOLDS}, ACCURACY_SCALE {ACCURACY_SCALE}"
          f" ({'the same' if (thresholds, scale) == (THRESHOLDS, ACCURACY_SCALE) else 'DIFFERENT'})")

    print("\nAccuracy per game (min-max over games) and classes, with the chosen figures:")
    for n in sizes:
        row = []
        for s in MEASURED:
            accs = [accuracy(g, scale) for g in games[s, n]]
            row.append(f"{s} {min(accs):.0f}-{max(accs):.0f}")
        fast = min(accuracy(g, scale) for g in games["solver-fast", n])
        rand = [accuracy(g, scale) for g in games["random", n]]
        corner = statistics.fmean(accuracy(g, scale) for g in games["corner", n])
        bad = all(sum(classes(g, thresholds)[c] for c in ("mistake", "blunder")) for g in games["random", n])
        ok = fast >= 85 and max(rand) <= 60 and bad and statistics.fmean(rand) < corner < fast
        print(f"  {n}x{n}: {', '.join(row)}  targets {'met' if ok else 'NOT met'}")
        for s in MEASURED:
            counts = classes([x for g in games[s, n] for x in g], thresholds)
            print(f"        {s:<12} {counts}")
    print("\nReview time (CPU, one process):")
    for n in sizes:
        per = 1000 * sum(seconds[n]) / max(1, sum(moves[n]))
        print(f"  {n}x{n}: {per:.2f} ms a move over {sum(moves[n])} moves")


if __name__ == "__main__":
    main()
