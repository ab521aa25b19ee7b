"""The heuristic, the bitboard layout's line tables, and the search on the cell layout.

numba's on-disk cache (``cache=True``) only watches the file a function is
defined in: a compiled function that calls one from another module would
keep stale machine code when that module changes. So each module that numba
compiles is self-contained: this one (the heuristic and the cell layout) and
``bitboard`` (the 3x3 and 4x4 search, which gets the line tables built here
as arrays). Weights are passed in as arrays, never read from globals, for
the same reason.

**The heuristic** (``Heuristic``; the terms nneonneo/2048-ai settled on for
4x4) scores every row and every column (a line) of any size and adds them:

- ``empty`` per empty cell (room to play);
- ``merges`` per tile that sits next to an equal one (a merge waiting);
- ``monotonicity`` times the smaller of the two monotonicity penalties, with
  exponents raised to ``monotonicity_power`` (lines sorted one way);
- ``sum`` times the sum of exponents raised to ``sum_power``, a cost of
  holding many big tiles, which pushes them to merge;
- ``lost`` added to every line, so that a dead position (scored 0 by the
  search) is far below any live one.

Keeping big tiles on an edge comes from monotonicity: a line is only
monotonic when its largest tile sits at one of its ends.

**Line tables** (``line_tables``): on 3x3 and 4x4 a line fits in 12 or 16
bits, so its slide and its heuristic are tabulated once per process. Four
bits hold exponents up to 15 (32768); the tables pretend that two 32768
tiles do not merge, so the caller sends 4x4 positions holding a tile above
32768, or two 32768 tiles, to the cell layout instead.

**The search** is nneonneo/2048-ai's expectimax: a move node takes the best
legal move, a chance node averages over every empty cell and both tiles (2 at
0.9, 4 at 0.1); a chance node reached with probability below ``cut`` or with
no depth left is scored by the heuristic; chance nodes are cached in a
direct-mapped transposition table (always replace) whose entries carry a
generation number, so a new search never reads an old one's values. ``state``
is ``[nodes, node budget, generation, aborted, log2 table size]``: chance
nodes are counted and the search gives up past the budget, at the same point
on every run.

**Cell layout** (``cells_*``, any size; 5x5, 6x6 and 4x4 past 32768): a
board is a flat uint8 array of exponents, cell (r, c) at ``r * n + c``. The
search is the same as ``bitboard``'s (same heuristic, cut-off and depth
meaning), with moves and evaluation computed cell by cell. Nodes work in
place on a stack of boards (one row per ply), so the search allocates
nothing. Chance nodes are cached by a 64-bit hash of the board; two boards
with the same hash would share an entry (never seen, and only a search
estimate would suffer, never the legality of a move).
"""

from __future__ import annotations

from functools import cache

import numpy as np
from numba import njit

from .heuristic import NNEONNEO, Heuristic

#: Exponents the weight tables cover (6x6 tiles reach 2^37).
MAX_EXPONENT = 40
_SUM = 3
_MONO = _SUM + MAX_EXPONENT + 1


def weights(h: Heuristic) -> np.ndarray:
    """``h`` as the flat array ``line_value`` reads.

    ``[lost, empty, merges]``, then per exponent ``sum * e ** sum_power``, then
    per exponent ``monotonicity * e ** monotonicity_power``.
    """
    e = np.arange(MAX_EXPONENT + 1, dtype=np.float64)
    return np.concatenate(
        (
            np.array([h.lost, h.empty, h.merges]),
            h.sum * e**h.sum_power,
            h.monotonicity * e**h.monotonicity_power,
        )
    )


@njit(cache=True, nogil=True)
def line_value(cells: np.ndarray, start: int, step: int, n: int, w: np.ndarray) -> float:
    """The heuristic value of the line ``cells[start], cells[start + step], ...`` (n cells)."""
    total = 0.0
    empty = 0
    merges = 0
    prev = 0
    counter = 0
    mono_left = 0.0
    mono_right = 0.0
    last = 0
    for i in range(n):
        rank = int(cells[start + i * step])
        total += w[_SUM + rank]
        if rank == 0:
            empty += 1
        else:
            if prev == rank:
                counter += 1
            elif counter > 0:
                merges += 1 + counter
                counter = 0
            prev = rank
        if i > 0:
            if last > rank:
                mono_left += w[_MONO + last] - w[_MONO + rank]
            else:
                mono_right += w[_MONO + rank] - w[_MONO + last]
        last = rank
    if counter > 0:
        merges += 1 + counter
    return w[0] + w[1] * empty + w[2] * merges - min(mono_left, mono_right) - total


def line_heuristic(line: np.ndarray, h: Heuristic = NNEONNEO) -> float:
    """The heuristic value of one row or column of exponents (0 = empty).

    >>> line_heuristic(np.array([1, 1, 0, 0]))
    201918.0
    """
    return float(line_value(np.asarray(line, dtype=np.int64), 0, 1, len(line), weights(h)))


# -- line tables (for the bitboard layout) -----------------------------------


@njit(cache=True, nogil=True)
def _slide_line(line: np.ndarray) -> tuple[np.ndarray, int]:
    """Slide exponents toward index 0, merging equal pairs once (saturating at 15); and the points
    its merges make."""
    n = line.shape[0]
    out = np.zeros(n, dtype=np.int64)
    k = 0
    last = 0
    gained = 0
    for i in range(n):
        e = line[i]
        if e == 0:
            continue
        if last != 0 and e == last and e < 15:
            out[k - 1] = e + 1
            gained += 1 << (e + 1)
            last = 0
        else:
            out[k] = e
            k += 1
            last = e
    return out, gained


@njit(cache=True, nogil=True)
def build_line_tables(n: int, w: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``line_tables``' ``slide`` and ``heur`` for lines of ``n`` cells and heuristic weights ``w``, and
    ``points[side, line]``: the points of the slide (the learned evaluator's row tables)."""
    size = 1 << (4 * n)
    slide = np.zeros((2, size), dtype=np.uint16)
    heur = np.zeros(size, dtype=np.float64)
    points = np.zeros((2, size), dtype=np.int32)
    line = np.zeros(n, dtype=np.int64)
    rev = np.zeros(n, dtype=np.int64)
    for row in range(size):
        for c in range(n):
            line[c] = (row >> (4 * c)) & 0xF
            rev[n - 1 - c] = line[c]
        heur[row] = line_value(line, 0, 1, n, w)
        moved, points[0, row] = _slide_line(line)
        moved_rev, points[1, row] = _slide_line(rev)
        for c in range(n):
            slide[0, row] |= moved[c] << (4 * c)
            slide[1, row] |= moved_rev[n - 1 - c] << (4 * c)
    return slide, heur, points


@cache
def line_tables(n: int, h: Heuristic = NNEONNEO) -> tuple[np.ndarray, np.ndarray]:
    """The bitboard layout's tables for size ``n`` (3 or 4), built on first use in this process.

    ``slide[0, line]`` is the line (4 bits a cell, cell 0 lowest) slid toward
    cell 0, ``slide[1, line]`` toward its last cell; ``heur[line]`` is its
    heuristic value (``line_value``). See ``bitboard``.
    """
    slide, heur, _ = build_line_tables(n, weights(h))
    return slide, heur


# -- cell layout -------------------------------------------------------------

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_FNV_OFFSET = np.uint64(0xCBF29CE484222325)
_FNV_PRIME = np.uint64(0x100000001B3)


@njit(cache=True, nogil=True)
def cells_move_into(src: np.ndarray, dst: np.ndarray, d: int, n: int) -> bool:
    """Write ``src`` moved in direction d (0 up, 1 down, 2 left, 3 right) into ``dst``.

    Returns True if the move changed the board.
    """
    changed = False
    for k in range(n):
        if d == 0:
            start, step = k, n
        elif d == 1:
            start, step = (n - 1) * n + k, -n
        elif d == 2:
            start, step = k * n, 1
        else:
            start, step = k * n + n - 1, -1
        w = 0
        last = 0
        for j in range(n):
            e = src[start + j * step]
            if e == 0:
                continue
            if e == last:
                dst[start + (w - 1) * step] = e + 1
                last = 0
            else:
                dst[start + w * step] = e
                w += 1
                last = e
        for j in range(w, n):
            dst[start + j * step] = 0
        if not changed:
            for j in range(n):
                if dst[start + j * step] != src[start + j * step]:
                    changed = True
                    break
    return changed


@njit(cache=True, nogil=True)
def cells_evaluate(cells: np.ndarray, n: int, w: np.ndarray) -> float:
    """The heuristic of a board: the sum over its rows and its columns."""
    total = 0.0
    for k in range(n):
        total += line_value(cells, k * n, 1, n, w)
        total += line_value(cells, k, n, n, w)
    return total


@njit(cache=True, nogil=True)
def _cells_hash(cells: np.ndarray) -> np.uint64:
    h = _FNV_OFFSET
    for i in range(cells.shape[0]):
        h = (h ^ np.uint64(cells[i])) * _FNV_PRIME
    return h ^ (h >> np.uint64(29))


@njit(cache=True, nogil=True)
def _cells_enter(
    f: np.ndarray,
    fk: np.ndarray,
    stack: np.ndarray,
    level: int,
    cprob: float,
    depth: int,
    tt_keys: np.ndarray,
    tt_vals: np.ndarray,
    tt_meta: np.ndarray,
    state: np.ndarray,
) -> float:
    """Open the chance node ``stack[level]``; its value if known at once, else NaN.

    Frame columns of ``f``: depth, probability per cell, table slot, running
    sum, best move value, cell, tile, direction, empty cells; ``fk`` holds the
    hash keys.
    """
    board = stack[level]
    gen = state[2]
    key = _cells_hash(board)
    idx = (key * _GOLDEN) >> np.uint64(64 - state[4])
    if tt_keys[idx] == key and (tt_meta[idx] >> 8) == gen and (tt_meta[idx] & 0xFF) >= depth:
        return tt_vals[idx]
    state[0] += 1
    if state[0] > state[1]:
        state[3] = 1
        return 0.0
    num_open = 0
    first = -1
    for i in range(board.shape[0]):
        if board[i] == 0:
            num_open += 1
            if first < 0:
                first = i
    fk[level] = key
    f[level, 0] = depth
    f[level, 1] = cprob / num_open
    f[level, 2] = float(idx)
    f[level, 3] = 0.0
    f[level, 4] = 0.0
    f[level, 5] = first
    f[level, 6] = 1
    f[level, 7] = 0
    f[level, 8] = num_open
    return np.nan


@njit(cache=True, nogil=True)
def _cells_chance(
    stack: np.ndarray,
    cprob: float,
    depth: int,
    n: int,
    w: np.ndarray,
    tt_keys: np.ndarray,
    tt_vals: np.ndarray,
    tt_meta: np.ndarray,
    state: np.ndarray,
    cut: float,
    f: np.ndarray,
    fk: np.ndarray,
) -> float:
    """The value of the chance node ``stack[0]``; deeper rows of ``stack`` are scratch."""
    if depth <= 0 or cprob < cut:
        return cells_evaluate(stack[0], n, w)
    v = _cells_enter(f, fk, stack, 0, cprob, depth, tt_keys, tt_vals, tt_meta, state)
    if v == v or state[3]:
        return v
    cells = n * n
    level = 0
    while True:
        b = stack[level]
        child = stack[level + 1]
        pushed = False
        while f[level, 5] < cells:
            i = int(f[level, 5])
            tile = int(f[level, 6])
            p = 0.9 if tile == 1 else 0.1
            d = int(f[level, 7])
            if d == 4:
                f[level, 3] += p * f[level, 4]
                f[level, 4] = 0.0
                f[level, 7] = 0
                if tile == 1:
                    f[level, 6] = 2
                else:
                    f[level, 6] = 1
                    i += 1
                    while i < cells and b[i] != 0:
                        i += 1
                    f[level, 5] = i
                continue
            f[level, 7] = d + 1
            b[i] = tile
            changed = cells_move_into(b, child, d, n)
            b[i] = 0
            if not changed:
                continue
            cp = f[level, 1] * p
            depth_left = int(f[level, 0]) - 1
            if depth_left == 0 or cp < cut:
                v = cells_evaluate(child, n, w)
            else:
                v = _cells_enter(f, fk, stack, level + 1, cp, depth_left, tt_keys, tt_vals, tt_meta, state)
                if state[3]:
                    return 0.0
                if v != v:
                    level += 1
                    pushed = True
                    break
            if v > f[level, 4]:
                f[level, 4] = v
        if pushed:
            continue
        value = f[level, 3] / f[level, 8]
        idx = int(f[level, 2])
        tt_keys[idx] = fk[level]
        tt_vals[idx] = value
        tt_meta[idx] = (state[2] << 8) | int(f[level, 0])
        if level == 0:
            return value
        level -= 1
        if value > f[level, 4]:
            f[level, 4] = value


@njit(cache=True, nogil=True)
def cells_search(
    cells: np.ndarray,
    depth: int,
    n: int,
    w: np.ndarray,
    tt_keys: np.ndarray,
    tt_vals: np.ndarray,
    tt_meta: np.ndarray,
    state: np.ndarray,
    cut: float,
) -> np.ndarray:
    """Expected heuristic value of each direction (-inf where illegal), ``depth`` spawns deep.

    ``cells`` is the flat board of exponents; ``state`` as in the module
    docstring. Each direction is searched in a generation of its own (the
    next ones after ``state[2]``, which is left at the last one used), as
    nneonneo/2048-ai and the bitboard layout do.
    """
    stack = np.zeros((depth + 2, n * n), dtype=np.uint8)
    f = np.zeros((depth + 1, 9))
    fk = np.zeros(depth + 1, dtype=np.uint64)
    out = np.full(4, -np.inf)
    for d in range(4):
        if cells_move_into(cells, stack[0], d, n):
            state[2] += 1
            out[d] = (
                _cells_chance(stack, 1.0, depth, n, w, tt_keys, tt_vals, tt_meta, state, cut, f, fk) + 1e-6
            )
    return out
