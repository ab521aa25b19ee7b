"""Choosing a move: settings, presets, time limits, and the public ``analyse``.

A search ``Setting`` fixes how deep the expectimax looks (in spawns: depth 2
means move, spawn, move, spawn, move, then the heuristic), how the depth grows with
the position, the probability cut-off and a node budget. The search deepens
one level at a time up to its depth and keeps the deepest level it finished
within the budget. Nodes are counted, not timed, so the same position and
setting always give the same move; see ``analyse`` for time limits.

>>> best_move([[2, 4, 2], [4, 8, 4], [128, 128, 0]]) in ("left", "right")
True
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

from ..rules import DIRECTIONS, Direction, board_exponents, check_size
from .compiling import ensure_compiled
from .heuristic import HEURISTICS, Heuristic
from .learned import LEARNED

if TYPE_CHECKING:
    import numpy as np


@dataclass(frozen=True)
class Setting:
    """How hard to search.

    Depth counts spawns: depth 2 reads move, spawn, move, spawn, move, then
    scores the position. The depth for a position is ``distinct tiles - depth_offset``
    clamped to ``[min_depth, max_depth]`` (nneonneo/2048-ai's rule is offset
    2, minimum 3): the more kinds of tile on the board, the more it needs
    reading. With ``crowded`` empty cells or fewer it searches one level
    deeper (still at most ``max_depth``): a crowded board is where games are
    lost, and with few empty cells a level costs little. A chance node
    reached with probability below ``cut`` is scored without looking
    further. ``nodes`` caps the chance nodes one move may expand (None: no
    cap). ``threads`` is how many threads a 3x3 or 4x4 search is spread over
    by default (None: one per core); the result does not depend on it.
    """

    min_depth: int
    max_depth: int
    depth_offset: int = 2
    cut: float = 1e-4
    nodes: int | None = None
    crowded: int = -1
    threads: int | None = 1

    def depth_for(self, distinct: int, empty: int = 16) -> int:
        """The depth searched on a board with ``distinct`` kinds of tile and ``empty`` empty cells."""
        depth = max(self.min_depth, min(self.max_depth, distinct - self.depth_offset))
        return min(self.max_depth, depth + 1) if empty <= self.crowded else depth


#: Preset name -> board size -> setting, chosen from this project's bench runs
#: (docs/solver.md): ``fast`` about a millisecond a move or less; ``strong``
#: on 4x4 is nneonneo/2048-ai's search exactly (its depth rule and cut-off,
#: a table per first move), on every core, with a node cap that only the
#: rarest positions reach.
PRESET_SETTINGS: dict[str, dict[int, Setting]] = {
    "fast": {
        3: Setting(3, 3),
        4: Setting(2, 3, depth_offset=99, crowded=4),
        5: Setting(1, 2, depth_offset=99, crowded=3),
        6: Setting(1, 2, depth_offset=99, crowded=3),
    },
    "normal": {
        3: Setting(5, 5, cut=1e-6),
        4: Setting(3, 4, depth_offset=99, crowded=4),
        5: Setting(2, 2, cut=1e-3),
        6: Setting(2, 2, cut=1e-3),
    },
    "strong": {
        3: Setting(8, 8, cut=1e-7, threads=None),
        4: Setting(3, 20, depth_offset=2, nodes=4_000_000, threads=None),
        5: Setting(2, 3, depth_offset=8, cut=1e-3, nodes=60_000, crowded=3),
        6: Setting(2, 3, depth_offset=10, cut=1e-3, nodes=60_000, crowded=3),
    },
}
PRESETS: tuple[str, ...] = tuple(PRESET_SETTINGS)
#: What a search plays when no preset is named.
DEFAULT_PRESET = "fast"
#: What ``analyse`` and ``best_move`` play: the heuristic's presets and ``learned`` (the trained
#: network on 4x4 where its weights are installed, ``strong`` elsewhere: ``solver.learned``).
PLAYERS: tuple[str, ...] = (*PRESETS, LEARNED)

#: Chance nodes a second that one core expands, by layout: a time limit
#: becomes this many nodes a second. On the project's 2-core machine the
#: bitboard layout did 570,000-930,000 when idle and 160,000 under heavy load;
#: the cell layout 27,000-65,000 (6x6 slowest). Set low so that a loaded
#: machine still keeps within the limit (docs/solver.md).
NODES_PER_SECOND: dict[str, float] = {"bitboard": 250_000.0, "general": 30_000.0, "network": 250_000.0}

_TABLE_BITS = 20

#: The deepest search there is room for (the bitboard table keeps depths in 5 bits).
MAX_DEPTH = 30


class _Workspace:
    """The cell layout's transposition table and search state (one search at a time: ``_lock``)."""

    def __init__(self) -> None:
        import numpy as np

        size = 1 << _TABLE_BITS
        self.keys = np.zeros(size, dtype=np.uint64)
        self.vals = np.zeros(size, dtype=np.float64)
        self.meta = np.zeros(size, dtype=np.int64)
        self.state = np.zeros(5, dtype=np.int64)
        self.generation = 0


@cache
def _workspace() -> _Workspace:
    return _Workspace()


def setting_for(size: int, preset: str = DEFAULT_PRESET) -> Setting:
    """The search setting a preset uses on a board of ``size``."""
    check_size(size)
    try:
        return PRESET_SETTINGS[preset][size]
    except KeyError:
        raise ValueError(f"preset must be one of {', '.join(PRESETS)}, got {preset!r}") from None


def _exponents(board: Sequence[Sequence[int]]) -> list[list[int]]:
    return board_exponents(board)


def _fits_bitboard(exps: list[list[int]]) -> bool:
    """True if 4-bit cells hold the position and every merge it can make soon."""
    n = len(exps)
    if n > 4:
        return False
    flat = [e for row in exps for e in row]
    return max(flat) < 15 or (max(flat) == 15 and flat.count(15) == 1)


def search_values(
    exps: list[list[int]],
    setting: Setting,
    *,
    depth: int | None = None,
    nodes: int | None = None,
    deadline: float | None = None,
    threads: int | None = None,
    stats: dict[str, int] | None = None,
) -> tuple[list[float], int]:
    """Values of the four directions (-inf if illegal) and the depth they come from.

    ``depth`` defaults to the setting's depth for the position, the node
    budget ``nodes`` (chance nodes) to the setting's. Without a ``deadline``
    the search runs once, at that depth; only if that would pass the budget
    does it deepen from depth 1 again, within a second budget, and keep the
    deepest level that fitted. With a ``deadline`` (a time limit) it deepens
    from 1 within the budget and also starts no new level once the wall
    clock passes the deadline. ``threads`` (default: the setting's; None there means
    every core) spreads a 3x3 or 4x4 search over threads without changing it.
    ``stats``, if given, gets ``nodes``: the chance nodes expanded in all.
    """
    ensure_compiled()
    n = len(exps)
    flat = [e for row in exps for e in row]
    if depth is None:
        depth = setting.depth_for(len({e for e in flat if e}), flat.count(0))
    budget = nodes if nodes is not None else setting.nodes
    budget = _UNLIMITED if budget is None else max(1, budget)
    wanted = threads if threads is not None else setting.threads
    if _fits_bitboard(exps):
        from .workers import cores

        search = _bitboard_search(flat, n, setting.cut, cores() if wanted is None else max(1, wanted))
    else:
        search = _cells_search(flat, n, setting.cut)
    with _lock:
        best, reached, spent = _deepen(search, depth, budget, deadline)
    if stats is not None:
        stats["nodes"] = spent
    return best, reached


def _deepen(search: _Search, depth: int, budget: int, deadline: float | None) -> tuple[list[float], int, int]:
    """``search_values``'s rule for ``search``: the values, the depth they come from, the nodes spent."""
    spent = 0

    def run(d: int, allowed: int) -> list[float] | None:
        nonlocal spent
        values, used = search(d, allowed)
        spent += used
        return values

    top = depth
    best: list[float] | None = None
    reached = 0
    if deadline is None:
        # one search at the depth asked for, if it fits the budget
        best = run(depth, budget)
        reached = depth
        top = depth - 1  # if it did not: deepen from 1 with a second budget, as with a time limit
    if best is None:
        left = budget
        for d in range(1, top + 1):
            before = spent
            values = run(d, left)
            left -= spent - before
            if values is None:
                break
            best, reached = values, d
            if left <= 0 or (deadline is not None and time.perf_counter() >= deadline):
                break
    if best is None:  # not even depth 1 fitted: the one-move evaluation
        best, reached = run(0, _UNLIMITED), 0
    assert best is not None
    return best, reached, spent


_UNLIMITED = 1 << 62
_lock = threading.Lock()

#: A search at one depth: (depth, node budget) -> (direction values or None if over budget, nodes).
_Search = Callable[[int, int], tuple[list[float] | None, int]]


def _bitboard_search(flat: list[int], n: int, cut: float, threads: int) -> _Search:
    from . import workers

    heuristic = heuristic_for(n)
    board = sum(e << (4 * i) for i, e in enumerate(flat))
    after = [workers.move(board, d, n, heuristic) for d in range(4)]
    legal = [d for d in range(4) if after[d] != board]

    def search(depth: int, budget: int) -> tuple[list[float] | None, int]:
        out = [-math.inf] * 4
        if depth == 0:
            for d in legal:
                out[d] = workers.evaluate(after[d], n, heuristic) + 1e-6
            return out, 0
        values, spent = workers.chance_values(
            [after[d] for d in legal], depth, n, heuristic, cut, budget, threads
        )
        if values is None:
            return None, spent
        for d, v in zip(legal, values, strict=True):
            out[d] = v + 1e-6
        return out, spent

    return search


def _cells_search(flat: list[int], n: int, cut: float) -> _Search:
    import numpy as np

    from . import expectimax as ex

    ws = _workspace()
    w = _weights(n)
    cells = np.array(flat, dtype=np.uint8)

    def search(depth: int, budget: int) -> tuple[list[float] | None, int]:
        st = ws.state
        st[0], st[1], st[2], st[3], st[4] = 0, budget, ws.generation, 0, _TABLE_BITS
        out = ex.cells_search(cells, depth, n, w, ws.keys, ws.vals, ws.meta, st, cut)
        ws.generation = int(st[2])
        if st[3]:
            return None, int(st[0])
        return [float(v) for v in out], int(st[0])

    return search


@cache
def _weights(size: int) -> np.ndarray:
    from .expectimax import weights

    return weights(heuristic_for(size))


def heuristic_for(size: int) -> Heuristic:
    """The heuristic weights the solver uses on a board of ``size``."""
    return HEURISTICS[size]


def _whole(value: object, low: int, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def analyse(
    board: Sequence[Sequence[int]],
    *,
    preset: str = DEFAULT_PRESET,
    time_limit: float | None = None,
    depth: int | None = None,
    threads: int | None = None,
) -> tuple[Direction | None, dict[str, float]]:
    """The best direction for ``board`` and a value for every legal direction.

    ``board`` is a list of rows of tile values (0 empty) of a 3x3 to 6x6
    board. The value of a direction is the expectimax estimate of the
    heuristic (not of points): higher is better, comparable only within one
    call. Returns ``(None, {})`` when no direction changes the board; ties go
    to the first of up, down, left, right.

    ``time_limit`` (seconds) bounds the search: it becomes a node budget at
    the calibrated rate ``NODES_PER_SECOND`` (so the answer is deterministic),
    and the search also stops deepening once the wall clock passes the limit
    (which only matters on a machine slower than the calibration). ``depth``
    forces a fixed depth in spawns (0 = one-move greedy; at most ``MAX_DEPTH``). ``preset="learned"``
    plays the trained network where its weights are installed, on 4x4 (``solver.learned``: values
    in points; with a ``depth`` of at most 15, or a ``time_limit``, the expectimax with the network at
    its leaves, ``learn.deep``), and ``strong`` elsewhere. ``threads`` spreads
    a 3x3 or 4x4 search over that many threads (default: the preset's; the
    ``strong`` preset uses every core): the answer is the same for any
    number of threads. ValueError for a malformed board, an unknown preset
    or fewer than one thread.

    >>> analyse([[0, 0, 0], [0, 0, 0], [2, 4, 8]])[0] is not None
    True
    """
    exps = _exponents(board)
    if depth is not None and not _whole(depth, 0, MAX_DEPTH):
        raise ValueError(f"depth must be a whole number from 0 to {MAX_DEPTH}, got {depth!r}")
    if threads is not None and not _whole(threads, 1, 1 << 16):
        raise ValueError(f"threads must be a whole number of at least 1, got {threads!r}")
    if time_limit is not None and not (time_limit > 0 and math.isfinite(time_limit)):
        raise ValueError(f"time_limit must be a positive number of seconds, got {time_limit!r}")
    if preset == LEARNED:
        from . import learned

        if depth is None and time_limit is None:
            answer = learned.analyse(board)
        else:
            answer = _network_search(board, depth, time_limit, threads)
        if answer is not None:
            return answer
        preset = learned.FALLBACK
    setting = setting_for(len(exps), preset)
    ensure_compiled()  # before the clock starts: a first compile must not eat the time limit
    nodes = None
    deadline = None
    if time_limit is not None:
        rate = NODES_PER_SECOND["bitboard" if _fits_bitboard(exps) else "general"]
        nodes = int(time_limit * rate)
        if setting.nodes is not None:
            nodes = min(nodes, setting.nodes)
        deadline = time.perf_counter() + time_limit
    values, _ = search_values(exps, setting, depth=depth, nodes=nodes, deadline=deadline, threads=threads)
    scores = {DIRECTIONS[d]: v for d, v in enumerate(values) if v > -math.inf}
    if not scores:
        return None, {}
    best = max(scores, key=lambda name: scores[name])
    return best, scores  # type: ignore[return-value]


def _network_search(board: Sequence[Sequence[int]], depth: int | None, time_limit: float | None,
                    threads: int | None) -> tuple[Direction | None, dict[str, float]] | None:
    """The learned preset's expectimax (``learn.deep``) at ``depth``, or deepening within
    ``time_limit``; None where the network cannot play (``learned.analyse``)."""
    from . import learned
    from .learn import deep
    from .learn.play import pack

    weights = learned.network() if len(board) == 4 else None
    if weights is None:
        return None
    try:
        b = int(pack(board))
    except ValueError:
        return None
    if depth is not None and depth > deep.MAX_DEPTH:
        raise ValueError(f"the learned preset searches at most {deep.MAX_DEPTH} spawns deep, got {depth}")
    from .workers import cores

    wanted = cores() if threads is None else threads

    def search(d: int, allowed: int) -> tuple[list[float] | None, int]:
        return deep.search(weights, b, d, deep.CUT, allowed, wanted)

    budget, deadline = _UNLIMITED, None
    if time_limit is not None:
        budget = max(1, int(time_limit * NODES_PER_SECOND["network"]))
        deadline = time.perf_counter() + time_limit
    with _lock:
        values, _, _ = _deepen(search, deep.MAX_DEPTH if depth is None else depth, budget, deadline)
    scores = {DIRECTIONS[d]: v for d, v in enumerate(values) if v > -math.inf}
    if not scores:
        return None, {}
    best = max(scores, key=lambda name: scores[name])
    return best, scores  # type: ignore[return-value]


def warm_up() -> None:
    """Load the compiled search and build the row tables now rather than on the first call.

    The first call in a process otherwise pays for it: about a second with
    numba's cache in place, tens of seconds if it has to compile.
    """
    analyse([[2, 2, 0], [0, 0, 0], [0, 0, 0]], depth=1)
    analyse([[2, 2, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]], depth=1)
    analyse([[2, 2, 0, 0, 0], [0] * 5, [0] * 5, [0] * 5, [0] * 5], depth=1)


def best_move(
    board: Sequence[Sequence[int]], *, preset: str = DEFAULT_PRESET, threads: int | None = None
) -> Direction | None:
    """The direction ``analyse`` picks with ``preset``, or None when no move is legal."""
    return analyse(board, preset=preset, threads=threads)[0]


def hint(board: Sequence[Sequence[int]], time_limit: float) -> tuple[Direction | None, dict[str, float]]:
    """What the web game's Hint and Autoplay give (``analyse``'s answer): the ``learned`` preset
    where the network plays (4x4, its weights installed), and the heuristic within ``time_limit``
    elsewhere. On 4x4 the network's 3-ply reached 16384 in 86 % of 50 games where the heuristic
    under a hint's limit (``fast``: its depth cap comes first) reaches it in 7.6 %, for about the
    same time a move (docs/solver.md)."""
    from . import learned

    answer = learned.analyse(board)
    if answer is not None:
        return answer
    return analyse(board, time_limit=time_limit)
