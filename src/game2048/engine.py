"""Fast boards: a whole board packed into one Python int, moved by table lookups.

Cell (r, c) of an n x n board holds an exponent (0 = empty) in ``bits`` bits
at offset ``(r * n + c) * bits``. A move reads each line where it lies: a row
is ``(board >> r * row_bits) & row_mask``, a column is ``(board >> c * bits) &
col_mask`` (its cells spread one row apart), and looks the result up in a memo
filled from ``rules.slide_exponents``, so the rules stay stated once. 5 bits a
cell hold every exponent a 3x3, 4x4 or 5x5 board can reach (up to 26); 6x6
needs 6 bits (up to 37).

A move's look-ups also give the empty cells of each moved line, as bits of
an *empty mask* (bit ``r * n + c`` for cell (r, c)); a second memo turns the
mask into the cells' bit offsets in row-major order, which is where the spawn
(``spawn.draw`` or ``spawn.draw_secret``, whichever generator the game's seed
chose) picks its cell. A move and its spawn cost ``n + 1`` look-ups and one
draw.

This module is private to the package: the public API is ``Game`` and
``replay``, which speak tile values and lists.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from functools import cache
from typing import Any

from .rules import check_size, slide_exponents
from .spawn import Draw, draw, draw_secret

#: Entries one memo may hold before it starts afresh. 4x4 boards have fewer
#: distinct rows than this; 5x5 and 6x6 have far more, and a long-lived server
#: must not grow without bound.
MEMO_LIMIT = 1 << 18
#: Whole boards' JSON texts kept (``Tables.values_json``): a few megabytes at most.
BOARD_TEXTS = 1 << 14

#: One direction's move with its spawn: (board, spawn index, game key) -> (the board with the
#: spawned tile, the points, the bit offset of the spawned tile), or None if nothing moves.
Step = Callable[[int, int, Any], "tuple[int, int, int] | None"]


class _Memo:
    """A plain dict ``d`` filled from ``fn`` on demand.

    Hot loops subscript ``d`` directly (CPython specialises subscripts of an
    exact dict, not of a subclass) and fall back to ``get`` on a KeyError.
    """

    __slots__ = ("d", "fn", "limit")

    def __init__(self, fn: Callable[[Any], Any], limit: int = MEMO_LIMIT) -> None:
        self.d: dict[Any, Any] = {}
        self.fn = fn
        self.limit = limit

    def get(self, key: Hashable) -> Any:
        try:
            return self.d[key]
        except KeyError:
            return self.add(key)

    def add(self, key: Hashable) -> Any:
        """``fn(key)``, kept: for a caller that has just missed ``key`` in ``d`` (a miss raises
        nothing then, where ``get``'s costs an exception)."""
        if len(self.d) >= self.limit:
            self.d.clear()
        value = self.d[key] = self.fn(key)
        return value


class Tables:
    """Line memos and bit layout for one board size."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.bits = bits = 6 if n == 6 else 5
        self.cell_mask = (1 << bits) - 1
        self.row_bits = n * bits
        self.row_mask = (1 << self.row_bits) - 1
        # the lowest and the highest bit of every cell: ``has_empty``'s masks
        self.cell_lows = sum(1 << (i * bits) for i in range(n * n))
        self.cell_highs = self.cell_lows << (bits - 1)
        #: where row r starts, and where column c starts
        self.shifts = tuple(r * self.row_bits for r in range(n))
        self.col_shifts = tuple(c * bits for c in range(n))
        self.col_mask = sum(self.cell_mask << s for s in self.shifts)
        # line -> (moved line, points, empty mask of the moved line), one memo
        # per direction: up and down read columns, left and right read rows
        row_cells, col_cells = self.col_shifts, self.shifts
        self.lines = (
            _Memo(self._line_move(col_cells, n, False)),
            _Memo(self._line_move(col_cells, n, True)),
            _Memo(self._line_move(row_cells, 1, False)),
            _Memo(self._line_move(row_cells, 1, True)),
        )
        # row -> its empty cells as bits 0..n-1 of an empty mask
        self.row_empty = _Memo(lambda row: sum(1 << c for c, e in enumerate(self.unpack_row(row)) if not e))
        # empty mask -> bit offsets of the empty cells, in row-major order
        self.free = _Memo(lambda mask: tuple(i * bits for i in range(n * n) if mask >> i & 1))
        # row -> largest exponent in it
        self.row_max = _Memo(lambda row: max(self.unpack_row(row)))
        # row -> its tile values (0 empty), and the same as JSON text: a board as lists of values,
        # or as the text of those lists, costs one look-up a row
        self.row_values = _Memo(lambda row: [1 << e if e else 0 for e in self.unpack_row(row)])
        self.row_json = _Memo(lambda row: "[" + ",".join(map(str, self.row_values.get(row))) + "]")
        self.board_json = _Memo(self._values_json, BOARD_TEXTS)
        #: per direction (up, down, left, right): board -> (board, points), no spawn
        self.movers = tuple(self._mover(d) for d in range(4))
        #: per generator (``spawn.draw``, ``spawn.draw_secret``), per direction:
        #: (board, spawn index, game key) -> (board with its spawn, points, the spawn's bit
        #: offset), or None when the move does not change the board
        stepper = self._stepper4 if n == 4 else self._stepper
        self.steps: dict[Draw, tuple[Step, ...]] = {
            draw_with: tuple(stepper(d, draw_with) for d in range(4)) for draw_with in (draw, draw_secret)
        }

    def unpack_row(self, row: int) -> tuple[int, ...]:
        m = self.cell_mask
        return tuple([(row >> s) & m for s in self.col_shifts])

    def pack_row(self, cells: tuple[int, ...] | list[int]) -> int:
        out = 0
        for s, e in zip(self.col_shifts, cells, strict=True):
            out |= e << s
        return out

    def _line_move(
        self, offsets: tuple[int, ...], mask_step: int, toward_end: bool
    ) -> Callable[[int], tuple[int, int, int]]:
        """The memo function for lines whose cells sit at ``offsets`` (bit offsets in the line)."""
        m = self.cell_mask

        def move(line: int) -> tuple[int, int, int]:
            cells = [(line >> o) & m for o in offsets]
            if toward_end:
                cells.reverse()
            moved, points = slide_exponents(cells)
            if toward_end:
                moved = moved[::-1]
            out = empty = 0
            for i, (o, e) in enumerate(zip(offsets, moved, strict=True)):
                out |= e << o
                if not e:
                    empty |= 1 << (i * mask_step)
            return out, points, empty

        return move

    def _line_layout(self, d: int) -> tuple[_Memo, int, tuple[tuple[int, int], ...]]:
        """Direction d's memo, its line mask, and (board shift, empty-mask shift) per line."""
        n = self.n
        if d < 2:  # columns
            return self.lines[d], self.col_mask, tuple((s, c) for c, s in enumerate(self.col_shifts))
        return self.lines[d], self.row_mask, tuple((s, r * n) for r, s in enumerate(self.shifts))

    # -- whole boards ---------------------------------------------------

    def pack(self, exps: list[list[int]]) -> int:
        out = 0
        for r, row in enumerate(exps):
            out |= self.pack_row(row) << self.shifts[r]
        return out

    def values(self, board: int) -> list[list[int]]:
        """``board`` as rows of tile values, 0 for empty (fresh lists: the caller may change them)."""
        rm, get, memo = self.row_mask, self.row_values.d, self.row_values
        rows = []
        for s in self.shifts:
            row = (board >> s) & rm
            try:
                rows.append(get[row][:])
            except KeyError:
                rows.append(memo.get(row)[:])
        return rows

    def values_json(self, board: int) -> str:
        """``values(board)`` as compact JSON text (``json.dumps(..., separators=(",", ":"))``).
        A server writes each board's text again with the next few moves' snapshots (undo's
        positions), so recent boards' texts are kept (``BOARD_TEXTS``)."""
        memo = self.board_json
        text = memo.d.get(board)  # a board just played is rarely there: no exception for a miss
        return text if text is not None else memo.add(board)  # type: ignore[no-any-return]

    def _values_json(self, board: int) -> str:
        rm, get, memo = self.row_mask, self.row_json.d, self.row_json
        rows = []
        for s in self.shifts:
            row = (board >> s) & rm
            try:
                rows.append(get[row])
            except KeyError:
                rows.append(memo.get(row))
        return "[" + ",".join(rows) + "]"

    def transpose(self, board: int) -> int:
        m, out = self.cell_mask, 0
        for r, rs in enumerate(self.shifts):
            for c, cs in enumerate(self.col_shifts):
                out |= ((board >> (rs + cs)) & m) << (self.shifts[c] + self.col_shifts[r])
        return out

    def _mover(self, d: int) -> Callable[[int], tuple[int, int]]:
        memo, lm, lines = self._line_layout(d)
        table = memo.d

        def move(board: int) -> tuple[int, int]:
            out = total = 0
            try:
                for s, _ in lines:
                    line, points, _e = table[(board >> s) & lm]
                    out |= line << s
                    total += points
            except KeyError:
                for s, _ in lines:
                    memo.get((board >> s) & lm)
                return move(board)
            return out, total

        return move

    def _stepper(self, d: int, draw: Draw = draw) -> Step:
        memo, lm, lines = self._line_layout(d)
        table, free, free_memo = memo.d, self.free.d, self.free

        def step(board: int, index: int, key: Any) -> tuple[int, int, int] | None:
            out = total = empty = 0
            try:
                for s, ms in lines:
                    line, points, e = table[(board >> s) & lm]
                    out |= line << s
                    total += points
                    empty |= e << ms
            except KeyError:
                for s, _ in lines:
                    memo.get((board >> s) & lm)
                return step(board, index, key)
            if out == board:
                return None
            try:
                cells = free[empty]
            except KeyError:
                cells = free_memo.get(empty)
            # a legal move leaves at least one empty cell: it merged, or slid into one
            ordinal, exp = draw(key, index, len(cells))
            cell = cells[ordinal]
            return out | exp << cell, total, cell

        return step

    def _stepper4(self, d: int, draw: Draw = draw) -> Step:
        """``_stepper`` with the four lines of a 4x4 board written out: the common board, a fifth faster."""
        memo, lm, lines = self._line_layout(d)
        (_, _), (s1, m1), (s2, m2), (s3, m3) = lines  # line 0 starts at bit 0 of both
        table, free, free_memo = memo.d, self.free.d, self.free

        def step(board: int, index: int, key: Any) -> tuple[int, int, int] | None:
            try:
                l0, p0, e0 = table[board & lm]
                l1, p1, e1 = table[(board >> s1) & lm]
                l2, p2, e2 = table[(board >> s2) & lm]
                l3, p3, e3 = table[board >> s3 & lm]
            except KeyError:
                for s, _ in lines:
                    memo.get((board >> s) & lm)
                return step(board, index, key)
            out = l0 | l1 << s1 | l2 << s2 | l3 << s3
            if out == board:
                return None
            empty = e0 | e1 << m1 | e2 << m2 | e3 << m3
            try:
                cells = free[empty]
            except KeyError:
                cells = free_memo.get(empty)
            ordinal, exp = draw(key, index, len(cells))
            cell = cells[ordinal]
            return out | exp << cell, p0 + p1 + p2 + p3, cell

        return step

    def move(self, board: int, d: int) -> tuple[int, int]:
        """Move ``board`` in direction d (0 up, 1 down, 2 left, 3 right): (board, points)."""
        return self.movers[d](board)

    def empty_mask(self, board: int) -> int:
        """The empty cells of ``board``: bit r * n + c for cell (r, c)."""
        rm, row_empty, n, mask = self.row_mask, self.row_empty.get, self.n, 0
        for r, s in enumerate(self.shifts):
            mask |= row_empty((board >> s) & rm) << (r * n)
        return mask

    def spawn(self, board: int, index: int, key: Any, draw: Draw = draw) -> int:
        """``board`` with spawn ``index`` of the game with ``key`` on it (see docs/spawns.md)."""
        cells = self.free.get(self.empty_mask(board))
        ordinal, exp = draw(key, index, len(cells))
        return board | exp << cells[ordinal]

    def max_exponent(self, board: int) -> int:
        rm, row_max = self.row_mask, self.row_max.get
        return max(row_max((board >> s) & rm) for s in self.shifts)

    def has_empty(self, board: int) -> bool:
        """Whether some cell of ``board`` is empty, in three operations on the whole board: a cell
        of 0 borrows from its own high bit in ``board - cell_lows`` (the classic "has a zero
        byte" test, here with cells for bytes). A borrow may flag a cell above an empty one,
        never a board without one.

        >>> t = tables(3)
        >>> t.has_empty(t.pack([[1, 2, 3], [4, 5, 6], [7, 8, 0]])), t.has_empty(t.pack([[1] * 3] * 3))
        (True, False)
        """
        return bool((board - self.cell_lows) & ~board & self.cell_highs)

    def can_move(self, board: int) -> bool:
        # With a tile and an empty cell on the board some line holds both, so
        # some direction moves; a full board moves only if a pair is adjacent.
        if board and self.has_empty(board):
            return True
        return self.move(board, 2)[0] != board or self.move(board, 0)[0] != board


@cache
def tables(n: int) -> Tables:
    """The shared tables for board size ``n``."""
    return Tables(check_size(n))
