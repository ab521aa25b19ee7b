"""Running a bitboard search's tasks on one thread or several, with the same result either way.

A search at a given depth is one task per legal first move: the value of the
chance node that move leads to, as nneonneo/2048-ai computes it (a
transposition table of its own per first move). Each task runs in a fresh
generation of its thread's table, so its value depends only on its board,
never on what ran before it or beside it: the same position and setting give
the same values whatever the number of threads and however they are
scheduled.

Threads, not processes: the compiled search releases the GIL, so the
calling thread and helpers from one process-wide pool (``helpers``: a ``ThreadPoolExecutor``
of one thread fewer than the cores, made on first use) take the tasks in
turn. numba's
own threading layer (``parallel=True``, ``prange``) is not used: its default
layer may not be entered by two Python threads at once, and a server calls
the solver from its request threads. Searches take a process-wide lock
(``search.py``), so a process never runs more solver threads than cores,
however many requests come in.

>>> from game2048.solver.heuristic import NNEONNEO
>>> values, nodes = chance_values([0x1_0002], 2, 4, NNEONNEO, 1e-4, 10**6)
>>> len(values), nodes > 0
(1, True)
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from typing import TypeVar

import numpy as np

from . import bitboard as bb
from .expectimax import line_tables
from .heuristic import Heuristic

#: log2 of the entries in each thread's table: 2^18 entries of 16 bytes, 4 MiB,
#: so that most look-ups stay in the processor's caches (docs/solver.md).
TABLE_BITS = 18


def cores() -> int:
    """The cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


class Space:
    """One thread's transposition table and work space."""

    def __init__(self) -> None:
        self.tags, self.vals = bb.table(TABLE_BITS)
        self.work = {3: bb.scratch(3), 4: bb.scratch(4)}
        self.generation = 0

    def next_generation(self) -> int:
        """A generation no entry of the table belongs to yet."""
        if self.generation >= (1 << (TABLE_BITS - 5)) - 1:
            self.tags.fill(0)
            self.generation = 0
        self.generation += 1
        return self.generation


S = TypeVar("S")

_local = threading.local()
_caller_lock = threading.Lock()


def space(kind: Callable[[], S] = Space) -> S:  # type: ignore[assignment]
    """This helper thread's table and work space of ``kind`` (made on first use)."""
    spaces: dict[Callable[[], S], S] = _local.__dict__.setdefault("spaces", {})
    if kind not in spaces:
        spaces[kind] = kind()
    return spaces[kind]


@cache
def _caller_space(kind: Callable[[], S]) -> S:
    """The table of whichever thread calls ``run`` (one at a time: ``_caller_lock``).

    One for all callers, not one per calling thread: a server calls from many
    request threads, and each would otherwise keep a table of its own.
    """
    return kind()


@cache
def helpers() -> ThreadPoolExecutor:
    """The helper threads: one fewer than the cores (the calling thread works too). The network's
    search (``learn.deep``) shares them."""
    return ThreadPoolExecutor(max_workers=max(1, cores() - 1), thread_name_prefix="solver")


def run(count: int, threads: int, kind: Callable[[], S], task: Callable[[int, S], bool]) -> None:
    """``task(j, space)`` for each j below ``count``, on the calling thread and up to ``threads`` - 1
    helpers, each thread with its table and work space of ``kind``; a thread stops taking tasks
    once one of its tasks returns True (it aborted)."""
    order = iter(range(count))

    def drain(mine: S) -> None:
        # takes the next task until none is left (next() on a range iterator holds the GIL)
        for j in order:
            if task(j, mine):
                break

    extra = min(threads, cores(), count) - 1
    with _caller_lock:
        running = [helpers().submit(lambda: drain(space(kind))) for _ in range(extra)]
        drain(_caller_space(kind))  # the calling thread works too
        for future in running:
            future.result()


def chance_values(
    boards: Sequence[int],
    depth: int,
    n: int,
    heuristic: Heuristic,
    cut: float,
    budget: int,
    threads: int = 1,
) -> tuple[list[float] | None, int]:
    """The values of the chance nodes ``boards`` (bitboards), ``depth`` spawns deep.

    Returns the values, or None if their chance nodes together would pass
    ``budget``, and the chance nodes expanded. ``threads`` > 1 spreads the
    boards over that many threads (at most one per core); the result does
    not change.
    """
    slide, heur = line_tables(n, heuristic)
    count = len(boards)
    states = np.zeros((count, bb.STATE_SIZE), dtype=np.int64)
    states[:, bb.BUDGET] = budget
    states[:, bb.TABLE_BITS] = TABLE_BITS
    states[:, bb.SLOT] = np.arange(count)
    progress = np.zeros(max(1, count), dtype=np.int64)
    values = [0.0] * count

    def task(j: int, mine: Space) -> bool:
        state = states[j]
        state[bb.GENERATION] = mine.next_generation()
        board = np.uint64(boards[j])
        tags, vals, work = mine.tags, mine.vals, mine.work[n]
        value = bb.chance_value(board, 1.0, depth, n, slide, heur, tags, vals, state, progress, cut, work)
        values[j] = float(value)
        return bool(state[bb.ABORTED])

    run(count, threads, Space, task)
    nodes = int(states[:, bb.NODES].sum())
    if states[:, bb.ABORTED].any() or nodes > budget:
        return None, nodes
    return values, nodes


def evaluate(board: int, n: int, heuristic: Heuristic) -> float:
    """The heuristic of one bitboard."""
    return float(bb.evaluate(np.uint64(board), n, line_tables(n, heuristic)[1]))


def move(board: int, d: int, n: int, heuristic: Heuristic) -> int:
    """A bitboard after direction d (0 up, 1 down, 2 left, 3 right), without a spawn."""
    return int(bb.move(np.uint64(board), d, n, line_tables(n, heuristic)[0]))
