"""The network's expectimax: the heuristic search's machinery with the trained network at the leaves.

``search(weights, board, depth, cut, budget, threads)`` values each legal
first move as its points plus ``ntuple.search_chance`` of its afterstate,
``depth`` spawns deep, with the heuristic search's rules (``solver.workers``):
one task per first move, each with a transposition table generation of its
own, so the values depend only on the position and the setting, never on the
number of threads or their timing; chance nodes counted against a budget,
and the search at a depth refused as a whole when its tasks together pass
it. The tasks run on the calling thread and the solver's helper threads
(``workers.run``); callers hold the solver's lock (``search.py``), so a
process never runs more search threads than cores.

Depth counts spawns as the heuristic's does: depth 1 is ``ntuple.choose``'s
ply 2, depth 2 its ply 3. Each node costs 32 look-ups spread over the
network's 268 MB a stage, so a node is dearer than a heuristic's (about 1.5
to 3 µs against 1 to 2; docs/solver.md), and the same time reaches a level
less deep, with a much better evaluation at its leaves.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ..workers import run
from . import ntuple
from .train import tables

#: log2 of each thread's table: 2^18 entries of 24 bytes, 6 MiB.
TABLE_BITS = 18
#: The probability below which a chance node is valued by the network without looking further.
CUT = 1e-4
#: The deepest search there is stack for.
MAX_DEPTH = ntuple.SEARCH_LEVELS - 1


class Space:
    """One thread's transposition table and stack."""

    def __init__(self) -> None:
        size = 1 << TABLE_BITS
        self.keys = np.zeros(size, dtype=np.uint64)
        self.meta = np.zeros(size, dtype=np.int64)
        self.vals = np.zeros(size, dtype=np.float64)
        self.boards = np.zeros(ntuple.SEARCH_LEVELS, dtype=np.uint64)
        self.ints = np.zeros((ntuple.SEARCH_LEVELS, 4), dtype=np.int64)
        self.floats = np.zeros((ntuple.SEARCH_LEVELS, 4), dtype=np.float64)
        self.generation = 0

    def next_generation(self) -> int:
        """A generation no entry of the table belongs to yet."""
        if self.generation >= (1 << 50):
            self.meta.fill(0)
            self.generation = 0
        self.generation += 1
        return self.generation


def chance_values(weights: np.ndarray, boards: Sequence[int], depth: int, cut: float = CUT,
                  budget: int = 1 << 62, threads: int = 1) -> tuple[list[float] | None, int]:
    """The values of the chance nodes ``boards`` (afterstates, as bitboards), ``depth`` spawns deep,
    and the chance nodes expanded; None instead of the values if together they pass ``budget``."""
    slide, points = tables()
    count = len(boards)
    states = np.zeros((count, ntuple.STATE_SIZE), dtype=np.int64)
    states[:, ntuple.BUDGET] = budget
    states[:, ntuple.TABLE_BITS] = TABLE_BITS
    values = [0.0] * count

    def task(j: int, mine: Space) -> bool:
        state = states[j]
        state[ntuple.GENERATION] = mine.next_generation()
        values[j] = float(ntuple.search_chance(
            weights, np.uint64(boards[j]), depth, cut, slide, points, mine.keys, mine.meta, mine.vals,
            state, mine.boards, mine.ints, mine.floats))
        return bool(state[ntuple.ABORTED])

    run(count, threads, Space, task)
    nodes = int(states[:, ntuple.NODES].sum())
    if states[:, ntuple.ABORTED].any() or nodes > budget:
        return None, nodes
    return values, nodes


def search(weights: np.ndarray, board: int, depth: int, cut: float = CUT, budget: int = 1 << 62,
           threads: int = 1) -> tuple[list[float] | None, int]:
    """Each direction's value on ``board`` (up, down, left, right; -inf where illegal): its points
    plus its afterstate's ``chance_values`` at ``depth`` (at 0: the network's value of it). None
    if the search would pass ``budget`` chance nodes; and the nodes expanded."""
    slide, points = tables()
    b = np.uint64(board)
    moved = [ntuple.move(b, d, slide, points) for d in range(4)]
    legal = [d for d in range(4) if np.uint64(moved[d][0]) != b]
    out = [-math.inf] * 4
    if depth <= 0:
        for d in legal:
            out[d] = moved[d][1] + float(ntuple.value(weights, np.uint64(moved[d][0])))
        return out, 0
    values, nodes = chance_values(weights, [int(moved[d][0]) for d in legal], depth, cut, budget, threads)
    if values is None:
        return None, nodes
    for d, v in zip(legal, values, strict=True):
        out[d] = moved[d][1] + v
    return out, nodes
