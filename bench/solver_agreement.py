"""The strong preset side by side with nneonneo/2048-ai, and against a deeper search of its own.

    python bench/solver_agreement.py                          # 8 normal games, a position every 150 moves
    python bench/solver_agreement.py --nneonneo LIB           # also nneonneo/2048-ai itself, same run
    python bench/solver_agreement.py --games 2 --deeper 0     # quicker: no deeper referee
    python bench/solver_agreement.py --positions suite.json   # reuse (or save) the positions

Positions: every ``--every`` moves of ``normal``-preset games on 4x4 (seeds
0 .. games-1), kept while the largest tile is 256 to 8192. For each one it
times ``analyse(board, preset="strong")`` on every core and the same search on
one core, and notes the depth it reached against the depth nneonneo/2048-ai's
rule asks for (max(3, distinct tiles - 2)).

``--nneonneo LIB`` takes nneonneo/2048-ai's shared library, built from its
own source (it is not part of this project: in a checkout of it, ``g++ -O3
-std=c++11 -fPIC -shared -o 2048.so 2048.cpp`` after ``./configure``, or its
own build; ``find_best_move`` is called through ctypes as its ``ailib.py``
does). Each position is then also given to it, in the same run, one position
after the other with ours: its move, its time, and its chance nodes (the sum
over the four first moves of the table size it prints, one entry per chance
node it expanded). Without it, that part is skipped and says so.

A move of ours agrees with another program's when it is the same move, or a
near tie by our own values: within ``--tie`` (relative) of our best. The
referee is the same search ``--deeper`` levels deeper, no node cap (0: no
referee). Prints figures; never fails on timing.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

from game2048 import Game
from game2048.rules import DIRECTIONS, Direction
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


class Nneonneo:
    """nneonneo/2048-ai's shared library, called as its ``ailib.py`` calls it.

    Its board is one 64-bit integer, 4 bits a cell holding the exponent,
    cell (r, c) at bit ``4 * (4 * r + c)``; its moves are 0 up, 1 down, 2 left,
    3 right, as ``DIRECTIONS``.
    """

    def __init__(self, path: Path) -> None:
        self.lib = ctypes.CDLL(str(path.resolve()))
        self.lib.init_tables()
        self.lib.find_best_move.argtypes = [ctypes.c_uint64]
        self.lib.find_best_move.restype = ctypes.c_int
        self.libc = ctypes.CDLL(None)
        # an instrumented build may export a counter of the chance nodes it expands
        self.counter = getattr(self.lib, "chance_nodes", None)
        if self.counter is not None:
            self.counter.restype = ctypes.c_ulonglong

    @staticmethod
    def pack(board: list[list[int]]) -> int:
        cells = [v.bit_length() - 1 if v else 0 for row in board for v in row]
        if len(cells) != 16 or max(cells) > 15:
            raise ValueError("nneonneo/2048-ai plays 4x4 boards with tiles up to 32768")
        return sum(e << (4 * i) for i, e in enumerate(cells))

    def best_move(self, board: list[list[int]]) -> tuple[Direction | None, float, int]:
        """Its move, its time in seconds, and its chance nodes.

        The nodes are its counter's if the build has one, else the sum of the
        table sizes it prints: distinct chance nodes, fewer than it expands
        (it expands a node again when it meets it nearer the root).
        """
        packed = self.pack(board)
        counted = self.counter() if self.counter is not None else 0
        sys.stdout.flush()
        with tempfile.TemporaryFile() as printed:
            saved = os.dup(1)
            os.dup2(printed.fileno(), 1)  # it prints every search; keep that out of the report
            try:
                start = time.perf_counter()
                move = self.lib.find_best_move(packed)
                seconds = time.perf_counter() - start
                self.libc.fflush(None)
            finally:
                os.dup2(saved, 1)
                os.close(saved)
            printed.seek(0)
            text = printed.read().decode(errors="replace")
        if self.counter is not None:
            nodes = self.counter() - counted
        else:
            nodes = sum(int(n) for n in re.findall(r"(\d+) cache size", text))
        return (DIRECTIONS[move] if 0 <= move < 4 else None), seconds, nodes


def agrees(values: dict[str, float], move: Direction | None, tie: float) -> tuple[bool, bool]:
    """(same move as our best, near tie by our values) for another program's ``move``."""
    if not values or move is None:
        return (not values and move is None), False
    best = max(values.values())
    mine = values.get(move, float("-inf"))
    same = mine == best
    return same, not same and best - mine <= tie * abs(best)


def ms(times: list[float]) -> str:
    return (
        f"median {1000 * statistics.median(times):.1f}, mean {1000 * statistics.fmean(times):.1f}, "
        f"max {1000 * max(times):.0f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--every", type=int, default=150)
    parser.add_argument("--deeper", type=int, default=2, help="referee's extra levels (0: no referee)")
    parser.add_argument("--tie", type=float, default=1e-4, help="relative gap that counts as a near tie")
    parser.add_argument("--positions", type=Path, help="JSON file of boards: read if present, else written")
    parser.add_argument("--nneonneo", type=Path, metavar="LIB", help="nneonneo/2048-ai's shared library")
    parser.add_argument("--details", type=Path, help="write one JSON row per position to this file")
    args = parser.parse_args()
    other = Nneonneo(args.nneonneo) if args.nneonneo else None
    args.nneonneo_counts = other is not None and other.counter is not None
    warm_up()
    args.loaded = bool(args.positions and args.positions.exists())
    if args.loaded:
        boards = json.loads(args.positions.read_text())
    else:
        boards = positions(args.games, args.every)
        if args.positions:
            args.positions.write_text(json.dumps(boards))
    strong = setting_for(4, "strong")
    rows: list[dict[str, object]] = []
    for board in boards:
        row: dict[str, object] = {"board": board, "wanted": nneonneo_depth(board)}
        if other is not None:
            row["nneonneo"], row["nneonneo_s"], row["nneonneo_nodes"] = other.best_move(board)
        start = time.perf_counter()
        move, values = analyse(board, preset="strong")
        row["every_core_s"] = time.perf_counter() - start
        row["move"], row["values"] = move, values
        exps = _exponents(board)
        stats: dict[str, int] = {}
        start = time.perf_counter()
        _, reached = search_values(exps, strong, threads=1, stats=stats)  # what analyse(..., threads=1) does
        row["one_core_s"] = time.perf_counter() - start
        row["reached"], row["nodes"] = reached, stats["nodes"]
        if args.deeper:
            referee, _ = search_values(exps, strong, depth=row["wanted"] + args.deeper, nodes=1 << 62)
            row["referee"] = referee
        rows.append(row)
    if args.details:
        args.details.write_text(json.dumps(rows))
    report(rows, args)


def report(rows: list[dict], args: argparse.Namespace) -> None:
    count = len(rows)
    full = sum(r["reached"] >= r["wanted"] for r in rows)
    short_by = [r["wanted"] - r["reached"] for r in rows if r["reached"] < r["wanted"]]
    if args.loaded:
        print(f"positions: {count} (from {args.positions.name})")
    else:
        print(f"positions: {count} (every {args.every} moves of {args.games} normal games, largest 256-8192)")
    print(f"strong reached nneonneo's depth: {full} ({100 * full / count:.1f} %); short by {short_by or 0}")
    print(f"strong, ms per move, every core: {ms([r['every_core_s'] for r in rows])}")
    print(f"strong, ms per move, one core:   {ms([r['one_core_s'] for r in rows])}")
    nodes = sum(r["nodes"] for r in rows)
    rate = nodes / sum(r["one_core_s"] for r in rows)
    print(f"strong, chance nodes/s on one core: {rate:,.0f} ({nodes:,} nodes)")
    if args.nneonneo:
        print(f"nneonneo/2048-ai, ms per move (one core): {ms([r['nneonneo_s'] for r in rows])}")
        theirs = sum(r["nneonneo_nodes"] for r in rows)
        rate = theirs / sum(r["nneonneo_s"] for r in rows)
        kind = "counted" if args.nneonneo_counts else "distinct: its table sizes"
        print(f"nneonneo/2048-ai, chance nodes/s: {rate:,.0f} ({theirs:,} nodes, {kind})")
        same = near = 0
        for r in rows:
            s, n = agrees(r["values"], r["nneonneo"], args.tie)
            same, near = same + s, near + n
        print(
            f"strong picks nneonneo's move: {same} ({100 * same / count:.1f} %), near ties {near}, "
            f"together {100 * (same + near) / count:.1f} %"
        )
    else:
        print("nneonneo/2048-ai: skipped (pass --nneonneo LIB, its shared library, to compare)")
    if args.deeper:
        same = near = 0
        for r in rows:
            values = {d: v for d, v in zip(DIRECTIONS, r["referee"], strict=True) if v > float("-inf")}
            s, n = agrees(values, r["move"], args.tie)  # by the referee's values
            same, near = same + s, near + n
        print(
            f"referee ({args.deeper} levels deeper) agrees: {same} ({100 * same / count:.1f} %), "
            f"near ties {near}, together {100 * (same + near) / count:.1f} %"
        )


if __name__ == "__main__":
    main()
