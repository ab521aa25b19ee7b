"""The compiled search on the bitboard layout (3x3 and 4x4).

Cell (r, c) holds its exponent at bit ``4 * (r * n + c)`` of one uint64; a
*line* (a row, or a column read as a row) is ``4 * n`` bits. Moves and
evaluation use two tables with one entry per possible line (65,536 on 4x4,
4,096 on 3x3, built by ``expectimax.line_tables``): ``slide[0, line]`` is the
line slid toward its first cell (left, or up for a column), ``slide[1,
line]`` toward its last (right, down), and ``heur[line]`` its heuristic
value. A board is scored by the sum over its rows and over the rows of its
transpose (its columns).

**Incremental children.** A chance node keeps its board and its transpose
and works out once, for each direction, the moved board in both layouts and
the heuristic of its lines (``_prepare``). A child puts one tile into one
cell; a move then changes only that cell's line (its row for left and right,
its column for up and down), so the child's moved board, its transpose and
its heuristic cost one slide look-up and six line look-ups, with no
transpose. A node whose children are all scored by the heuristic (most
nodes: those one spawn from the depth limit, and unlikely ones) is worked
out in one go (``_leaf_node``), without going on the stack.

**Transposition table.** Chance nodes are cached by board in a direct-mapped
table (always replace) of ``2**bits`` entries of two words: the board
(multiplied by an odd constant, which is one-to-one, so the slot plus the
remaining bits identify it) with the generation and the depth, and the value.
An entry is used only by the same generation and only if it was searched at
least as deep. The table's slot for a child is prefetched while its siblings
are worked out. A task (``chance_value``) runs in a generation of its own, so
its value does not depend on what ran before it, or on which thread ran it:
that keeps a search spread over threads deterministic.

Everything numba compiles for this layout lives in this module (its on-disk
cache only watches the file a function is defined in); tables and work space
come in as arrays. The functions are compiled without numba's reference
counting (``_nrt=False``): they allocate nothing, and the counting otherwise
costs a third of the search's time in the inner loops.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from llvmlite import ir
from numba import config, njit, types
from numba.core import cgutils
from numba.extending import intrinsic

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)

#: Entries of a task's ``state``: chance nodes expanded, node budget of the
#: whole search, table generation, aborted flag, log2 of the table size, this
#: task's slot in ``progress``.
NODES, BUDGET, GENERATION, ABORTED, TABLE_BITS, SLOT = range(6)
STATE_SIZE = 6

#: A task writes its node count into ``progress`` and checks the whole
#: search's total every 1,024 chance nodes.
_REPORT_MASK = 1023

#: Depths are kept in 5 bits of a table entry; the work space holds this many levels
#: (``search.MAX_DEPTH``, checked where a depth comes in).
MAX_DEPTH = 30


class Scratch(NamedTuple):
    """The work space of one search thread, one row per level of the stack.

    ``own``, ``other``, ``rest`` and ``changed`` are filled by ``_prepare``;
    ``boards`` (board, transpose), ``ints`` and ``floats`` hold the state of a
    node while one of its children is searched.
    """

    own: np.ndarray
    other: np.ndarray
    rest: np.ndarray
    changed: np.ndarray
    boards: np.ndarray
    ints: np.ndarray
    floats: np.ndarray


def scratch(n: int) -> Scratch:
    """Work space for searches on an n x n bitboard."""
    levels = MAX_DEPTH + 2
    return Scratch(
        np.zeros((levels, 4), dtype=np.uint64),
        np.zeros((levels, 4), dtype=np.uint64),
        np.zeros((levels, 4, n)),
        np.zeros((levels, 4), dtype=np.int64),
        np.zeros((levels, 2), dtype=np.uint64),
        np.zeros((levels, 4), dtype=np.int64),
        np.zeros((levels, 3)),
    )


def table(bits: int) -> tuple[np.ndarray, np.ndarray]:
    """A transposition table of ``2**bits`` entries: the tag words and a float view of the same memory."""
    tags = np.zeros((1 << bits, 2), dtype=np.uint64)
    return tags, tags.view(np.float64)


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def transpose(board: np.uint64, n: int) -> np.uint64:
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


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _spread(line: np.uint64, n: int) -> np.uint64:
    """A line's cells spread into column 0: cell j moves from bit ``4 * j`` to bit ``4 * n * j``."""
    x = line
    if n == 4:
        return (x | (x << np.uint64(12)) | (x << np.uint64(24)) | (x << np.uint64(36))) & np.uint64(
            0x000F000F000F000F
        )
    return (x | (x << np.uint64(8)) | (x << np.uint64(16))) & np.uint64(0x00F00F00F)


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _lines_value(board: np.uint64, n: int, heur: np.ndarray) -> float:
    """The heuristic of the rows of ``board``."""
    if n == 4:
        m = np.uint64(0xFFFF)
        return (
            heur[board & m]
            + heur[(board >> np.uint64(16)) & m]
            + heur[(board >> np.uint64(32)) & m]
            + heur[board >> np.uint64(48)]
        )
    mask = np.uint64((1 << (4 * n)) - 1)
    total = 0.0
    for k in range(n):
        total += heur[(board >> np.uint64(4 * n * k)) & mask]
    return total


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def evaluate(board: np.uint64, n: int, heur: np.ndarray) -> float:
    """The heuristic of a board: the sum over its rows and its columns."""
    return _lines_value(board, n, heur) + _lines_value(transpose(board, n), n, heur)


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _slide_lines(board: np.uint64, side: int, n: int, slide: np.ndarray) -> np.uint64:
    """Every row of ``board`` slid toward its first (side 0) or last (side 1) cell."""
    if n == 4:
        m = np.uint64(0xFFFF)
        return (
            np.uint64(slide[side, board & m])
            | (np.uint64(slide[side, (board >> np.uint64(16)) & m]) << np.uint64(16))
            | (np.uint64(slide[side, (board >> np.uint64(32)) & m]) << np.uint64(32))
            | (np.uint64(slide[side, board >> np.uint64(48)]) << np.uint64(48))
        )
    mask = np.uint64((1 << (4 * n)) - 1)
    out = np.uint64(0)
    for k in range(n):
        s = np.uint64(4 * n * k)
        out |= np.uint64(slide[side, (board >> s) & mask]) << s
    return out


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def move(board: np.uint64, d: int, n: int, slide: np.ndarray) -> np.uint64:
    """The board after direction d (0 up, 1 down, 2 left, 3 right), without a spawn."""
    if d >= 2:
        return _slide_lines(board, d - 2, n, slide)
    return transpose(_slide_lines(transpose(board, n), d, n, slide), n)


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def count_empty(board: np.uint64, n: int) -> int:
    """The number of empty cells."""
    x = board
    x |= (x >> np.uint64(2)) & np.uint64(0x3333333333333333)
    x |= x >> np.uint64(1)
    x = ~x & np.uint64(0x1111111111111111)
    if n == 3:
        x &= np.uint64(0x111111111)
    if x == np.uint64(0x1111111111111111):
        return 16
    # each nibble is now 1 where the cell was empty; the product sums them into the top nibble
    return int((x * np.uint64(0x1111111111111111)) >> np.uint64(60))


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _prepare(
    b: np.uint64, t: np.uint64, n: int, slide: np.ndarray, heur: np.ndarray, work: Scratch, level: int
) -> None:
    """Each direction's move of the node at ``level``, in both layouts, and its line values.

    Direction d slides the lines of the transpose (d 0, 1: the columns) or
    of the board (d 2, 3: the rows). ``own[level, d]`` is the result in that
    layout, ``other[level, d]`` in the other; ``rest[level, d, k]`` is the
    heuristic of all its own lines but line k, ``changed[level, d]`` a bit mask
    of the lines the move changes.
    """
    if n == 4:
        m = np.uint64(0xFFFF)
        for d in range(4):
            src = t if d < 2 else b
            side = d & 1
            a0 = src & m
            a1 = (src >> np.uint64(16)) & m
            a2 = (src >> np.uint64(32)) & m
            a3 = src >> np.uint64(48)
            m0 = np.uint64(slide[side, a0])
            m1 = np.uint64(slide[side, a1])
            m2 = np.uint64(slide[side, a2])
            m3 = np.uint64(slide[side, a3])
            moved = m0 | (m1 << np.uint64(16)) | (m2 << np.uint64(32)) | (m3 << np.uint64(48))
            work.own[level, d] = moved
            work.other[level, d] = transpose(moved, 4)
            h0 = heur[m0]
            h1 = heur[m1]
            h2 = heur[m2]
            h3 = heur[m3]
            total = h0 + h1 + h2 + h3
            work.rest[level, d, 0] = total - h0
            work.rest[level, d, 1] = total - h1
            work.rest[level, d, 2] = total - h2
            work.rest[level, d, 3] = total - h3
            mask = 1 if m0 != a0 else 0
            mask |= 2 if m1 != a1 else 0
            mask |= 4 if m2 != a2 else 0
            mask |= 8 if m3 != a3 else 0
            work.changed[level, d] = mask
        return
    line_mask = np.uint64((1 << (4 * n)) - 1)
    for d in range(4):
        src = t if d < 2 else b
        moved = _slide_lines(src, d & 1, n, slide)
        work.own[level, d] = moved
        work.other[level, d] = transpose(moved, n)
        total = 0.0
        mask = 0
        for k in range(n):
            s = np.uint64(4 * n * k)
            line = (moved >> s) & line_mask
            total += heur[line]
            if line != (src >> s) & line_mask:
                mask |= 1 << k
        for k in range(n):
            work.rest[level, d, k] = total - heur[(moved >> np.uint64(4 * n * k)) & line_mask]
        work.changed[level, d] = mask


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _child(
    row: np.uint64,
    col: np.uint64,
    r: int,
    c: int,
    d: int,
    n: int,
    slide: np.ndarray,
    work: Scratch,
    level: int,
) -> tuple[bool, np.uint64, np.uint64, np.uint64]:
    """Direction d after a spawn at (r, c) of the node at ``level``.

    ``row`` and ``col`` are the cell's row and column with the new tile, read
    as lines. Returns (whether the move changes the board, the new line, the
    moved board in the direction's own layout, and in the other).
    """
    line_bits = 4 * n
    line_mask = np.uint64((1 << line_bits) - 1)
    if d < 2:
        line = c
        src = col
    else:
        line = r
        src = row
    new = np.uint64(slide[d & 1, src])
    if new == src and (work.changed[level, d] & ~(1 << line)) == 0:
        return False, new, src, src
    ls = np.uint64(line_bits * line)
    mine = (work.own[level, d] & ~(line_mask << ls)) | (new << ls)
    cs = np.uint64(4 * line)
    theirs = (work.other[level, d] & ~(_spread(line_mask, n) << cs)) | (_spread(new, n) << cs)
    return True, new, mine, theirs


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _best_leaf(
    row: np.uint64,
    col: np.uint64,
    r: int,
    c: int,
    n: int,
    slide: np.ndarray,
    heur: np.ndarray,
    work: Scratch,
    level: int,
) -> float:
    """The best heuristic value over the moves after a spawn at (r, c) (0.0 if none is legal)."""
    best = 0.0
    for d in range(4):
        ok, new, _, theirs = _child(row, col, r, c, d, n, slide, work, level)
        if ok:
            line = c if d < 2 else r
            v = work.rest[level, d, line] + heur[new] + _lines_value(theirs, n, heur)
            if v > best:
                best = v
    return best


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _leaf_node(
    b: np.uint64, t: np.uint64, n: int, slide: np.ndarray, heur: np.ndarray, work: Scratch, level: int
) -> float:
    """The value of a chance node whose children are all scored by the heuristic."""
    _prepare(b, t, n, slide, heur, work, level)
    line_bits = 4 * n
    line_mask = np.uint64((1 << line_bits) - 1)
    res = 0.0
    num_open = 0
    for r in range(n):
        row = (b >> np.uint64(line_bits * r)) & line_mask
        for c in range(n):
            if (row >> np.uint64(4 * c)) & np.uint64(0xF) != 0:
                continue
            num_open += 1
            col = (t >> np.uint64(line_bits * c)) & line_mask
            two = _best_leaf(
                row | (np.uint64(1) << np.uint64(4 * c)),
                col | (np.uint64(1) << np.uint64(4 * r)),
                r, c, n, slide, heur, work, level,
            )  # fmt: skip
            four = _best_leaf(
                row | (np.uint64(2) << np.uint64(4 * c)),
                col | (np.uint64(2) << np.uint64(4 * r)),
                r, c, n, slide, heur, work, level,
            )  # fmt: skip
            res += 0.9 * two + 0.1 * four
    return res / num_open


if config.DISABLE_JIT:  # run as plain Python (bench/solver_speed.py --python): nothing to prefetch

    def _prefetch(arr: np.ndarray, index: int) -> None:
        """Start loading ``arr[index, 0]`` into the CPU's caches (no effect on results)."""

else:

    @intrinsic
    def _prefetch(typingctx, arr, index):  # type: ignore[no-untyped-def]
        """Start loading ``arr[index, 0]`` into the CPU's caches (LLVM's prefetch; no effect on results)."""
        sig = types.void(arr, index)

        def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
            arr_t = signature.args[0]
            ary = context.make_array(arr_t)(context, builder, args[0])
            zero = context.get_constant(types.intp, 0)
            ptr = cgutils.get_item_pointer(context, builder, arr_t, ary, [args[1], zero])
            i32 = ir.IntType(32)
            fnty = ir.FunctionType(ir.VoidType(), [ptr.type, i32, i32, i32])
            fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
            # a read, to keep in every cache level, of data
            builder.call(fn, [ptr, ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)])
            return context.get_dummy_value()

        return sig, codegen


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _slot(board: np.uint64, state: np.ndarray) -> np.int64:
    return np.int64((board * _GOLDEN) >> (np.uint64(64) - np.uint64(state[TABLE_BITS])))


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _lookup(tags: np.ndarray, vals: np.ndarray, board: np.uint64, depth: int, state: np.ndarray) -> float:
    """The cached value of chance node ``board`` if it was searched at least ``depth`` deep, else NaN."""
    bits = np.uint64(state[TABLE_BITS])
    h = board * _GOLDEN
    slot = np.int64(h >> (np.uint64(64) - bits))
    entry = tags[slot, 0]
    gen_mask = (np.uint64(1) << (bits - np.uint64(5))) - np.uint64(1)
    if (
        (entry >> bits) == ((h << bits) >> bits)
        and ((entry >> np.uint64(5)) & gen_mask) == np.uint64(state[GENERATION])
        and np.int64(entry & np.uint64(31)) >= depth
    ):
        return vals[slot, 1]
    return np.nan


@njit(cache=True, nogil=True, _nrt=False, inline="always")
def _store(
    tags: np.ndarray, vals: np.ndarray, board: np.uint64, depth: int, value: float, state: np.ndarray
) -> None:
    """Cache ``value`` for chance node ``board``, searched ``depth`` deep."""
    bits = np.uint64(state[TABLE_BITS])
    h = board * _GOLDEN
    slot = np.int64(h >> (np.uint64(64) - bits))
    tags[slot, 0] = (h << bits) | (np.uint64(state[GENERATION]) << np.uint64(5)) | np.uint64(depth)
    vals[slot, 1] = value


@njit(cache=True, nogil=True, _nrt=False)
def chance_value(
    board: np.uint64,
    cprob: float,
    depth: int,
    n: int,
    slide: np.ndarray,
    heur: np.ndarray,
    tags: np.ndarray,
    vals: np.ndarray,
    state: np.ndarray,
    progress: np.ndarray,
    cut: float,
    work: Scratch,
) -> float:
    """The value of the chance node ``board`` (a move just made), ``depth`` spawns deep.

    A chance node averages over every empty cell and both tiles (2 at 0.9, 4
    at 0.1) the best of the moves that follow; a chance node reached with
    probability below ``cut``, or with no depth left, is scored by the
    heuristic. ``state`` is this task's row (see ``NODES`` ...): it counts
    chance nodes, and the task gives up (``state[ABORTED]``, value 0.0) once
    the counts of all tasks, written into ``progress``, pass the budget.

    Depth-first with an explicit stack instead of recursion (numba cannot
    reload a recursive function from its cache): the node being worked on
    lives in local variables, its ancestors in ``work``.
    """
    if depth <= 0 or cprob < cut:
        return evaluate(board, n, heur)
    known = _lookup(tags, vals, board, depth, state)
    if known == known:
        return known
    cells = n * n
    line_bits = 4 * n
    line_mask = np.uint64((1 << line_bits) - 1)
    fb = work.boards
    fi = work.ints
    ff = work.floats
    t = transpose(board, n)
    state[NODES] += 1
    num_open = count_empty(board, n)
    cp = cprob / num_open
    if depth == 1 or cp * 0.9 < cut:
        value = _leaf_node(board, t, n, slide, heur, work, 0)
        _store(tags, vals, board, depth, value, state)
        progress[state[SLOT]] = state[NODES]
        return value
    level = 0
    b = board
    _prepare(b, t, n, slide, heur, work, level)
    i = 0
    while (b >> np.uint64(4 * i)) & np.uint64(0xF) != 0:
        i += 1
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
            if n == 4:
                r = i >> 2
                c = i & 3
            else:
                r = i // n
                c = i - r * n
            ccp = cp * (0.9 if tile == 1 else 0.1)
            row = ((b >> np.uint64(line_bits * r)) & line_mask) | (np.uint64(tile) << np.uint64(4 * c))
            col = ((t >> np.uint64(line_bits * c)) & line_mask) | (np.uint64(tile) << np.uint64(4 * r))
            if ccp < cut:
                # every move after this spawn is scored by the heuristic
                best = _best_leaf(row, col, r, c, n, slide, heur, work, level)
                d = 4
                continue
            if d == 0:
                # start loading the table entries of this spawn's children
                for dd in range(4):
                    ok, _, mine, theirs = _child(row, col, r, c, dd, n, slide, work, level)
                    if ok:
                        _prefetch(tags, _slot(theirs if dd < 2 else mine, state))
            ok, _, mine, theirs = _child(row, col, r, c, d, n, slide, work, level)
            if d < 2:
                nb = theirs
                nt = mine
            else:
                nb = mine
                nt = theirs
            d += 1
            if not ok:
                continue  # the move does not change the board
            v = _lookup(tags, vals, nb, depth - 1, state)
            if v != v:
                state[NODES] += 1
                if state[NODES] > state[BUDGET]:
                    state[ABORTED] = 1
                    return 0.0
                if (state[NODES] & _REPORT_MASK) == 0:
                    progress[state[SLOT]] = state[NODES]
                    if progress.sum() > state[BUDGET]:
                        state[ABORTED] = 1
                        return 0.0
                child_open = count_empty(nb, n)
                child_cp = ccp / child_open
                if depth == 2 or child_cp * 0.9 < cut:
                    v = _leaf_node(nb, nt, n, slide, heur, work, level + 1)
                    _store(tags, vals, nb, depth - 1, v, state)
                else:
                    # descend: save this node, make the child current
                    fb[level, 0] = b
                    fb[level, 1] = t
                    fi[level, 0] = i
                    fi[level, 1] = tile
                    fi[level, 2] = d
                    fi[level, 3] = num_open
                    ff[level, 0] = cp
                    ff[level, 1] = res
                    ff[level, 2] = best
                    level += 1
                    b = nb
                    t = nt
                    depth -= 1
                    num_open = child_open
                    cp = child_cp
                    _prepare(b, t, n, slide, heur, work, level)
                    i = 0
                    while (b >> np.uint64(4 * i)) & np.uint64(0xF) != 0:
                        i += 1
                    tile = 1
                    d = 0
                    res = 0.0
                    best = 0.0
                    continue
            if v > best:
                best = v
        value = res / num_open
        _store(tags, vals, b, depth, value, state)
        if level == 0:
            progress[state[SLOT]] = state[NODES]
            return value
        level -= 1
        depth += 1
        b = fb[level, 0]
        t = fb[level, 1]
        i = fi[level, 0]
        tile = fi[level, 1]
        d = fi[level, 2]
        num_open = fi[level, 3]
        cp = ff[level, 0]
        res = ff[level, 1]
        best = ff[level, 2]
        if value > best:
            best = value
