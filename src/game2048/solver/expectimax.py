"""The compiled search: the heuristic and expectimax for both board layouts.

Everything numba compiles lives in this one module, because numba's on-disk
cache (``cache=True``) only watches the file a function is defined in: code
changed in another module would leave stale machine code behind. Weights are
passed in as arrays, never read from globals, for the same reason.

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

**The search** is nneonneo/2048-ai's expectimax: a move node takes the best
legal move, a chance node averages over every empty cell and both tiles (2 at
0.9, 4 at 0.1); a chance node reached with probability below ``cut`` or with
no depth left is scored by the heuristic; chance nodes are cached in a
direct-mapped transposition table (always replace) whose entries carry a
generation number, so a new search never reads an old one's values. ``state``
is ``[nodes, node budget, generation, aborted, log2 table size]``: chance
nodes are counted and the search gives up past the budget, at the same point
on every run.

**Bitboard layout** (``bits_*``, 3x3 and 4x4): cell (r, c) holds its
exponent at bit ``4 * (r * n + c)`` of one uint64; a row is ``4 * n`` bits,
so every move and every evaluation is ``n`` look-ups in tables with one entry
per possible row (65,536 on 4x4, 4,096 on 3x3), built once per process.

Four bits hold exponents up to 15 (32768). A 3x3 board never goes past 1024.
A 4x4 board can (up to 131072); the tables then pretend that two 32768 tiles
do not merge, so the caller sends positions holding a tile above 32768, or two
32768 tiles, to the cell layout instead.

**Cell layout** (``cells_*``, any size; 5x5, 6x6 and 4x4 past 32768): a
board is a flat uint8 array of exponents, cell (r, c) at ``r * n + c``. The
search is the same (same heuristic, cut-off and depth meaning), with moves
and evaluation computed cell by cell. Nodes work in place on a stack of
boards (one row per ply), so the search allocates nothing. Chance nodes are
cached by a 64-bit hash of the board; two boards with the same hash would
share an entry (never seen, and only a search estimate would suffer, never
the legality of a move).
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


# -- bitboard layout ---------------------------------------------------------

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_FNV_OFFSET = np.uint64(0xCBF29CE484222325)
_FNV_PRIME = np.uint64(0x100000001B3)


@njit(cache=True, nogil=True)
def _slide_line(line: np.ndarray) -> np.ndarray:
    """Slide exponents toward index 0, merging equal pairs once (saturating at 15)."""
    n = line.shape[0]
    out = np.zeros(n, dtype=np.int64)
    k = 0
    last = 0
    for i in range(n):
        e = line[i]
        if e == 0:
            continue
        if last != 0 and e == last and e < 15:
            out[k - 1] = e + 1
            last = 0
        else:
            out[k] = e
            k += 1
            last = e
    return out


@njit(cache=True, nogil=True)
def build_tables(n: int, w: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Row tables for size n: ``moves[d, row]``, ``heur[row]``, ``empties[row]``.

    ``moves[2]`` and ``moves[3]`` give a row moved left and right; ``moves[0]``
    and ``moves[1]`` give a column (read as a row) moved up and down, already
    spread back into column layout (cell i at bit ``4 * n * i``).
    """
    size = 1 << (4 * n)
    row_bits = 4 * n
    moves = np.zeros((4, size), dtype=np.uint64)
    heur = np.zeros(size, dtype=np.float64)
    empties = np.zeros(size, dtype=np.int64)
    line = np.zeros(n, dtype=np.int64)
    rev = np.zeros(n, dtype=np.int64)
    for row in range(size):
        for c in range(n):
            line[c] = (row >> (4 * c)) & 0xF
            rev[n - 1 - c] = line[c]
        heur[row] = line_value(line, 0, 1, n, w)
        cnt = 0
        for c in range(n):
            if line[c] == 0:
                cnt += 1
        empties[row] = cnt
        moved = _slide_line(line)
        moved_rev = _slide_line(rev)
        for c in range(n):
            moves[0, row] |= np.uint64(moved[c]) << np.uint64(row_bits * c)
            moves[1, row] |= np.uint64(moved_rev[n - 1 - c]) << np.uint64(row_bits * c)
            moves[2, row] |= np.uint64(moved[c]) << np.uint64(4 * c)
            moves[3, row] |= np.uint64(moved_rev[n - 1 - c]) << np.uint64(4 * c)
    return moves, heur, empties


@cache
def bits_tables(n: int, h: Heuristic = NNEONNEO) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The row tables for size ``n`` (3 or 4), built on first use in this process."""
    return build_tables(n, weights(h))


@njit(cache=True, nogil=True)
def bits_transpose(board: np.uint64, n: int) -> np.uint64:
    """Swap rows and columns."""
    if n == 4:
        x = board
        a1 = x & np.uint64(0xF0F00F0FF0F00F0F)
        a2 = x & np.uint64(0x0000F0F00000F0F0)
        a3 = x & np.uint64(0x0F0F00000F0F0000)
        a = a1 | (a2 << np.uint64(12)) | (a3 >> np.uint64(12))
        b1 = a & np.uint64(0xFF00FF0000FF00FF)
        b2 = a & np.uint64(0x00FF00FF00000000)
        b3 = a & np.uint64(0x00000000FF00FF00)
        return b1 | (b2 >> np.uint64(24)) | (b3 << np.uint64(24))
    out = np.uint64(0)
    for r in range(n):
        for c in range(n):
            e = (board >> np.uint64(4 * (r * n + c))) & np.uint64(0xF)
            out |= e << np.uint64(4 * (c * n + r))
    return out


@njit(cache=True, nogil=True)
def bits_move(board: np.uint64, d: int, n: int, moves: np.ndarray) -> np.uint64:
    """The board after direction d (0 up, 1 down, 2 left, 3 right), without a spawn."""
    # 4x4 is written out here, in bits_evaluate and in _bits_open: the same
    # look-ups as the loops below, with constant shifts, and the strong preset
    # runs 1.3-2x faster for it (docs/solver.md).
    if n == 4:
        m = np.uint64(0xFFFF)
        if d >= 2:
            return (
                moves[d, board & m]
                | (moves[d, (board >> np.uint64(16)) & m] << np.uint64(16))
                | (moves[d, (board >> np.uint64(32)) & m] << np.uint64(32))
                | (moves[d, board >> np.uint64(48)] << np.uint64(48))
            )
        t = bits_transpose(board, 4)
        return (
            moves[d, t & m]
            | (moves[d, (t >> np.uint64(16)) & m] << np.uint64(4))
            | (moves[d, (t >> np.uint64(32)) & m] << np.uint64(8))
            | (moves[d, t >> np.uint64(48)] << np.uint64(12))
        )
    row_bits = 4 * n
    mask = np.uint64((1 << row_bits) - 1)
    out = np.uint64(0)
    if d >= 2:
        for r in range(n):
            s = np.uint64(row_bits * r)
            out |= moves[d, (board >> s) & mask] << s
    else:
        t = bits_transpose(board, n)
        for c in range(n):
            out |= moves[d, (t >> np.uint64(row_bits * c)) & mask] << np.uint64(4 * c)
    return out


@njit(cache=True, nogil=True)
def bits_evaluate(board: np.uint64, n: int, heur: np.ndarray) -> float:
    """The heuristic of a board: the sum over its rows and its columns."""
    if n == 4:
        m = np.uint64(0xFFFF)
        t = bits_transpose(board, 4)
        total = 0.0
        total += heur[board & m] + heur[t & m]
        total += heur[(board >> np.uint64(16)) & m] + heur[(t >> np.uint64(16)) & m]
        total += heur[(board >> np.uint64(32)) & m] + heur[(t >> np.uint64(32)) & m]
        total += heur[board >> np.uint64(48)] + heur[t >> np.uint64(48)]
        return total
    row_bits = 4 * n
    mask = np.uint64((1 << row_bits) - 1)
    t = bits_transpose(board, n)
    total = 0.0
    for r in range(n):
        s = np.uint64(row_bits * r)
        total += heur[(board >> s) & mask] + heur[(t >> s) & mask]
    return total


@njit(cache=True, nogil=True)
def _bits_open(board: np.uint64, n: int, empties: np.ndarray) -> tuple[int, int]:
    """The number of empty cells of ``board`` and the first of them."""
    if n == 4:
        m = np.uint64(0xFFFF)
        num_open = (
            empties[board & m]
            + empties[(board >> np.uint64(16)) & m]
            + empties[(board >> np.uint64(32)) & m]
            + empties[board >> np.uint64(48)]
        )
        first = 0
        while (board >> np.uint64(4 * first)) & np.uint64(0xF) != 0:
            first += 1
        return num_open, first
    row_bits = 4 * n
    mask = np.uint64((1 << row_bits) - 1)
    num_open = 0
    for r in range(n):
        num_open += empties[(board >> np.uint64(row_bits * r)) & mask]
    first = 0
    while (board >> np.uint64(4 * first)) & np.uint64(0xF) != 0:
        first += 1
    return num_open, first


@njit(cache=True, nogil=True)
def _bits_chance(
    board: np.uint64,
    cprob: float,
    depth: int,
    n: int,
    moves: np.ndarray,
    heur: np.ndarray,
    empties: np.ndarray,
    tt_keys: np.ndarray,
    tt_vals: np.ndarray,
    tt_meta: np.ndarray,
    state: np.ndarray,
    cut: float,
    fi: np.ndarray,
    ff: np.ndarray,
) -> float:
    """The value of the chance node ``board`` (a move just made, a tile to come).

    Depth-first with an explicit stack instead of recursion, because numba
    cannot reload a recursive function from its cache. The node being worked
    on lives in local variables; a parent's are saved in ``fi`` (board,
    depth, table slot, cell, tile, direction, empty cells) and ``ff``
    (probability per cell, running sum, best move value) while a child runs.
    """
    if depth <= 0 or cprob < cut:
        return bits_evaluate(board, n, heur)
    gen = state[2]
    shift = np.uint64(64 - state[4])
    slot = np.int64((board * _GOLDEN) >> shift)
    if tt_keys[slot] == board and (tt_meta[slot] >> 8) == gen and (tt_meta[slot] & 0xFF) >= depth:
        return tt_vals[slot]
    state[0] += 1
    if state[0] > state[1]:
        state[3] = 1
        return 0.0
    cells = n * n
    level = 0
    b = board
    num_open, i = _bits_open(b, n, empties)
    cp = cprob / num_open
    tile = 1
    d = 0
    res = 0.0
    best = 0.0
    while True:
        while i < cells:
            if d == 4:
                if tile == 1:
                    res += 0.9 * best
                    tile = 2
                else:
                    res += 0.1 * best
                    tile = 1
                    i += 1
                    while i < cells and (b >> np.uint64(4 * i)) & np.uint64(0xF) != 0:
                        i += 1
                best = 0.0
                d = 0
                continue
            child = b | (np.uint64(tile) << np.uint64(4 * i))
            nb = bits_move(child, d, n, moves)
            d += 1
            if nb == child:
                continue
            p = 0.9 if tile == 1 else 0.1
            ccp = cp * p
            if depth == 1 or ccp < cut:
                v = bits_evaluate(nb, n, heur)
            else:
                cslot = np.int64((nb * _GOLDEN) >> shift)
                if (
                    tt_keys[cslot] == nb
                    and (tt_meta[cslot] >> 8) == gen
                    and (tt_meta[cslot] & 0xFF) >= depth - 1
                ):
                    v = tt_vals[cslot]
                else:
                    state[0] += 1
                    if state[0] > state[1]:
                        state[3] = 1
                        return 0.0
                    # descend: save this node, make the child current
                    fi[level, 0] = np.int64(b)
                    fi[level, 1] = depth
                    fi[level, 2] = slot
                    fi[level, 3] = i
                    fi[level, 4] = tile
                    fi[level, 5] = d
                    fi[level, 6] = num_open
                    ff[level, 0] = cp
                    ff[level, 1] = res
                    ff[level, 2] = best
                    level += 1
                    b = nb
                    depth -= 1
                    slot = cslot
                    num_open, i = _bits_open(b, n, empties)
                    cp = ccp / num_open
                    tile = 1
                    d = 0
                    res = 0.0
                    best = 0.0
                    continue
            if v > best:
                best = v
        value = res / num_open
        tt_keys[slot] = b
        tt_vals[slot] = value
        tt_meta[slot] = (gen << 8) | depth
        if level == 0:
            return value
        level -= 1
        b = np.uint64(fi[level, 0])
        depth = fi[level, 1]
        slot = fi[level, 2]
        i = fi[level, 3]
        tile = fi[level, 4]
        d = fi[level, 5]
        num_open = fi[level, 6]
        cp = ff[level, 0]
        res = ff[level, 1]
        best = ff[level, 2]
        if value > best:
            best = value


@njit(cache=True, nogil=True)
def bits_search(
    board: np.uint64,
    depth: int,
    n: int,
    moves: np.ndarray,
    heur: np.ndarray,
    empties: np.ndarray,
    tt_keys: np.ndarray,
    tt_vals: np.ndarray,
    tt_meta: np.ndarray,
    state: np.ndarray,
    cut: float,
) -> np.ndarray:
    """Expected heuristic value of each direction (-inf where illegal), ``depth`` spawns deep.

    ``board`` is a bitboard; ``state`` as described in the module docstring.
    """
    out = np.full(4, -np.inf)
    fi = np.zeros((depth + 1, 7), dtype=np.int64)
    ff = np.zeros((depth + 1, 3))
    for d in range(4):
        nb = bits_move(board, d, n, moves)
        if nb != board:
            out[d] = (
                _bits_chance(
                    nb, 1.0, depth, n, moves, heur, empties, tt_keys, tt_vals, tt_meta, state, cut, fi, ff
                )
                + 1e-6
            )
    return out


# -- cell layout -------------------------------------------------------------


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

    Frame columns of ``f`` as in ``_bits_enter``; ``fk`` holds the hash keys.
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

    ``cells`` is the flat board of exponents; ``state`` as in the module docstring.
    """
    stack = np.zeros((depth + 2, n * n), dtype=np.uint8)
    f = np.zeros((depth + 1, 9))
    fk = np.zeros(depth + 1, dtype=np.uint64)
    out = np.full(4, -np.inf)
    for d in range(4):
        if cells_move_into(cells, stack[0], d, n):
            out[d] = (
                _cells_chance(stack, 1.0, depth, n, w, tt_keys, tt_vals, tt_meta, state, cut, f, fk) + 1e-6
            )
    return out
