"""The learned evaluator against ``strong``, side by side in one run: time a move, agreement, strength.

Takes the network of a checkpoint (``--dir``, default the training's), a shipped file
(``--weights FILE``) or the installed weights (``--shipped``). Positions are drawn from
the network's own seeded games (every ``--every``-th position of seeds 10,000 on, so
they are not the games measured below). On each position it times ``strong`` (one thread,
as a move of the engines' own games) and the network at each ``--plies``, and counts how
often the network picks ``strong``'s move where ``strong``'s choice is clear (its best
direction's value ahead of the second by each of ``--clear``, relative). Then it plays ``--games``
seeded games (seeds 0 on) at each ply and prints how often they reached 8192, 16384 and
32768, with 95 % (Wilson) intervals. Prints figures; never fails on timing.

``--depths`` times the network's expectimax (``analyse(preset="learned", depth=D)``, one
thread) on the same positions, with its agreement. ``--equal-time N`` then plays N seeded
games with ``strong`` and N with the network's expectimax given strong's measured time a
move as its limit (seeds 0 on, both on one thread, side by side in this run), and prints
each one's 16384s and 32768s and its time a move.

    nice -n 5 .venv/bin/python bench/learned_vs_strong.py --games 50 --plies 2 3
    nice -n 5 .venv/bin/python bench/learned_vs_strong.py --shipped --games 50
    nice -n 5 .venv/bin/python bench/learned_vs_strong.py --shipped --games 0 --depths 2 3 4 5
    nice -n 5 .venv/bin/python bench/learned_vs_strong.py --shipped --games 0 --plies --equal-time 10
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from game2048 import Game, replay
from game2048.solver import analyse, learned, warm_up
from game2048.solver.learn import checkpoint, shipped
from game2048.solver.learn.play import best_move, evaluate, play_game


def network(args: argparse.Namespace) -> tuple[np.ndarray, str]:
    if args.weights or args.shipped:
        run = shipped.open_mapped(Path(args.weights) if args.weights else None)
        where = args.weights or "the installed weights"
    else:
        folder = Path(args.dir) if args.dir else checkpoint.default_dir()
        run = checkpoint.load(folder / "network.ckpt", writable=False)
        where = f"checkpoint in {folder}"
    return run.weights, (f"{where}: {run.games:,} games, {run.moves:,} moves, "
                         f"{run.cpu_seconds / 3600:.2f} cpu h")


def positions(weights: np.ndarray, count: int, every: int) -> list[list[list[int]]]:
    """Boards from the network's own 2-ply games, seeds 10,000 on: every ``every``-th position."""
    found: list[list[list[int]]] = []
    seed = 10_000
    while len(found) < count:
        game = play_game(weights, seed, ply=2)
        for k in range(every, len(game.log), every):
            found.append(replay(4, seed, game.log[:k]).board)
            if len(found) == count:
                break
        seed += 1
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", help="checkpoint folder (default: the training's)")
    parser.add_argument("--weights", help="a shipped weights file")
    parser.add_argument("--shipped", action="store_true", help="the installed shipped weights")
    parser.add_argument("--plies", type=int, nargs="*", default=[2, 3])
    parser.add_argument("--depths", type=int, nargs="*", default=[],
                        help="depths (spawns) of the network's expectimax to time on the positions")
    parser.add_argument("--equal-time", type=int, default=0, metavar="N",
                        help="games of strong and of the network's expectimax at strong's time a move")
    parser.add_argument("--positions", type=int, default=200)
    parser.add_argument("--every", type=int, default=97)
    parser.add_argument("--clear", type=float, nargs="+", default=[0.005, 0.02, 0.05],
                        help="strong's margins for a clear choice (best value ahead of the second, relative)")
    parser.add_argument("--games", type=int, default=50)
    args = parser.parse_args()

    weights, source = network(args)
    print(source)
    warm_up()
    boards = positions(weights, args.positions, args.every)
    learned.use_network(weights)
    for board in boards[:3]:  # compiled and cached before the clock runs
        analyse(board, preset="strong", threads=1)
        analyse(board, preset="learned", depth=1, threads=1)
        for ply in args.plies:
            best_move(weights, board, ply=ply)

    strong_moves, margins = [], []
    start = time.process_time()
    for board in boards:
        move, scores = analyse(board, preset="strong", threads=1)
        strong_moves.append(move)
        ranked = sorted(scores.values(), reverse=True)
        margins.append((ranked[0] - ranked[1]) / abs(ranked[0]) if len(ranked) > 1 and ranked[0] else 0.0)
    strong_time = (time.process_time() - start) / len(boards)
    print(f"{len(boards)} positions from the network's games; strong (one thread): "
          f"{strong_time * 1e3:.2f} ms a move")
    for ply in args.plies:
        start = time.process_time()
        moves = [best_move(weights, board, ply=ply) for board in boards]
        took = (time.process_time() - start) / len(boards)
        agreed = []
        for margin in args.clear:
            clear = [m == s for m, s, g in zip(moves, strong_moves, margins, strict=True) if g > margin]
            agreed.append(f"ahead by {100 * margin:g} %: {sum(clear)} of {len(clear)}")
        print(f"  learned {ply}-ply: {took * 1e6:.1f} us a move = 1/{strong_time / took:.0f} of strong's; "
              f"picks strong's move where strong's best is " + ", ".join(agreed))

    for depth in args.depths:
        start = time.process_time()
        moves = [analyse(board, preset="learned", depth=depth, threads=1)[0] for board in boards]
        took = (time.process_time() - start) / len(boards)
        agreed = []
        for margin in args.clear:
            clear = [m == s for m, s, g in zip(moves, strong_moves, margins, strict=True) if g > margin]
            agreed.append(f"ahead by {100 * margin:g} %: {sum(clear)} of {len(clear)}")
        print(f"  learned expectimax, depth {depth}: {took * 1e3:.2f} ms a move = "
              f"{took / strong_time:.2f} of strong's; picks strong's move where strong's best is "
              + ", ".join(agreed))
    if args.equal_time:
        equal_time(args.equal_time, strong_time)

    for ply in args.plies if args.games else ():
        result = evaluate(weights, args.games, seed=0, ply=ply)
        shares = []
        for tile in (8192, 16384, 32768):
            low, high = result.interval(tile)
            shares.append(f"{tile} {100 * result.reached[tile]:.0f} % ({100 * low:.0f}-{100 * high:.0f})")
        print(f"  {args.games} games at {ply}-ply, seeds 0 to {args.games - 1}: " + ", ".join(shares)
              + f"; mean score {result.mean_score:,.0f}, {result.us_per_move:.1f} us a move")


def equal_time(games: int, limit: float) -> None:
    """``games`` seeded games each of strong and of the network's expectimax within ``limit`` a move."""
    players = {
        "strong": lambda board: analyse(board, preset="strong", threads=1)[0],
        f"learned, {limit * 1e3:.1f} ms": lambda board: analyse(board, preset="learned", time_limit=limit,
                                                                  threads=1)[0],
    }
    for name, choose in players.items():
        tops, moves, start = [], 0, time.process_time()
        for seed in range(games):
            game = Game(4, seed)
            while not game.over:
                game.move(choose(game.board))
            tops.append(max(max(row) for row in game.board))
            moves += len(game.log)
        took = (time.process_time() - start) / max(1, moves)
        reached = "; ".join(f"{tile}: {sum(t >= tile for t in tops)} of {games}" for tile in (16384, 32768))
        print(f"  {name}: {reached}; {took * 1e3:.2f} ms a move over {moves:,} moves")


if __name__ == "__main__":
    main()
