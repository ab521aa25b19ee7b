"""The strong preset against a deeper search of its own, on positions from seeded games.

    python bench/solver_agreement.py                         # 8 normal games, a position every 150 moves
    python bench/solver_agreement.py --games 2 --deeper 1    # quicker
    python bench/solver_agreement.py --positions suite.json  # reuse (or save) the positions

Positions: every ``--every`` moves of ``normal``-preset games on 4x4 (seeds
0 .. games-1), kept while the largest tile is 256 to 8192. For each one it
times ``analyse(board, preset="strong")`` on every core and on one, notes the
depth the search reached against the depth nneonneo/2048-ai's rule asks for
(max(3, distinct tiles - 2)), and compares the move with the referee: the
same search ``--deeper`` levels deeper (no node cap). A move counts as a near
tie when the referee values it within ``--tie`` (relative) of its best.
Prints figures; never fails on timing.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from game2048 import Game
from game2048.rules import DIRECTIONS
from game2048.solver import analyse, warm_up
from game2048.solver.search import _exponents, search_values, setting_for


def positions(games: int, every: int, low: int = 256, high: int = 8192) -> list[list[list[int]]]:
    """Boards met every ``every`` moves in ``normal`` games (seeds 0 .. games-1), largest tile low..high."""
    out = []
    for seed in range(games):
        game = Game(4, seed)
        while not game.over:
            if game.moves % every == 0 and low <= game.max_tile <= high:
                out.append(game.board)
            move, _ = analyse(game.board, preset="normal")
            if move is None:
                break
            game.move(move)
    return out


def nneonneo_depth(board: list[list[int]]) -> int:
    """nneonneo/2048-ai's depth for a board: max(3, distinct tiles - 2)."""
    return max(3, len({v for row in board for v in row if v}) - 2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--every", type=int, default=150)
    parser.add_argument("--deeper", type=int, default=2, help="levels the referee searches beyond strong")
    parser.add_argument("--tie", type=float, default=1e-4, help="relative gap that counts as a near tie")
    parser.add_argument("--positions", type=Path, help="JSON file of boards: read if present, else written")
    args = parser.parse_args()
    warm_up()
    if args.positions and args.positions.exists():
        boards = json.loads(args.positions.read_text())
    else:
        boards = positions(args.games, args.every)
        if args.positions:
            args.positions.write_text(json.dumps(boards))
    strong = setting_for(4, "strong")
    every_core, one_core, full, same, near = [], [], 0, 0, 0
    short_by: list[int] = []
    for board in boards:
        start = time.perf_counter()
        move, _ = analyse(board, preset="strong")
        every_core.append(time.perf_counter() - start)
        exps = _exponents(board)
        start = time.perf_counter()
        _, reached = search_values(exps, strong, threads=1)  # what analyse(..., threads=1) does
        one_core.append(time.perf_counter() - start)
        wanted = nneonneo_depth(board)
        full += reached >= wanted
        if reached < wanted:
            short_by.append(wanted - reached)
        referee, _ = search_values(exps, strong, depth=wanted + args.deeper, nodes=1 << 62)
        best = max(referee)
        mine = referee[DIRECTIONS.index(move)] if move else best
        same += mine == best
        near += mine != best and best - mine <= args.tie * abs(best)
    count = len(boards)
    print(f"positions: {count} (every {args.every} moves of {args.games} normal games, largest 256-8192)")
    print(f"reached nneonneo's depth: {full} ({100 * full / count:.1f} %); short by {short_by or 'none'}")
    print(
        f"ms per move, every core: median {1000 * statistics.median(every_core):.1f}, "
        f"mean {1000 * statistics.fmean(every_core):.1f}, max {1000 * max(every_core):.0f}"
    )
    print(
        f"ms per move, one core:   median {1000 * statistics.median(one_core):.1f}, "
        f"mean {1000 * statistics.fmean(one_core):.1f}, max {1000 * max(one_core):.0f}"
    )
    print(
        f"referee ({args.deeper} levels deeper) agrees: {same} ({100 * same / count:.1f} %), "
        f"near ties {near}, together {100 * (same + near) / count:.1f} %"
    )


if __name__ == "__main__":
    main()
