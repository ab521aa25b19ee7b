"""Fast boards: a whole board packed into one Python int, moved by table lookups.

Cell (r, c) of an n x n board holds an exponent (0 = empty) in ``bits`` bits
at offset ``(r * n + c) * bits``. Each move reads one row (or, after a
transpose, one column) at a time and looks its result up in a memo filled from
``rules.slide_exponents``, so the rules stay stated once. 5 bits a cell hold
every exponent a 3x3, 4x4 or 5x5 board can reach (up to 26); 6x6 needs 6 bits
(up to 37).

This module is private to the package: the public API is ``Game`` and
``replay``, which speak tile values and lists.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from functools import cache
from typing import Any

from .rules import check_size, slide_exponents
from .spawn import spawn_choice

#: Entries one memo may hold before it starts afresh. 4x4 boards have fewer
#: distinct rows than this; 5x5 and 6x6 have far more, and a long-lived server
#: must not grow without bound.
MEMO_LIMIT = 1 << 18


class _Memo:
    """A plain dict ``d`` filled from ``fn`` on demand.

    Hot loops subscript ``d`` directly (CPython specialises subscripts of an
    exact dict, not of a subclass) and fall back to ``get`` on a KeyError.
    """

    __slots__ = ("d", "fn")

    def __init__(self, fn: Callable[[Any], Any]) -> None:
        self.d: dict[Any, Any] = {}
        self.fn = fn

    def get(self, key: Hashable) -> Any:
        try:
            return self.d[key]
        except KeyError:
            if len(self.d) >= MEMO_LIMIT:
                self.d.clear()
            value = self.d[key] = self.fn(key)
            return value


class Tables:
    """Row memos and bit layout for one board size."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.bits = bits = 6 if n == 6 else 5
        self.cell_mask = (1 << bits) - 1
        self.row_bits = n * bits
        self.row_mask = (1 << self.row_bits) - 1
        self.shifts = tuple(r * self.row_bits for r in range(n))
        self.col_shifts = tuple(c * bits for c in range(n))
        # row -> (moved row, points), toward column 0 and toward column n-1
        self.left = _Memo(self._left)
        self.right = _Memo(self._right)
        # row -> (moved row spread into a column, points): moves on a transposed board
        self.left_t = _Memo(lambda row: self._spread_result(self.left.get(row)))
        self.right_t = _Memo(lambda row: self._spread_result(self.right.get(row)))
        # row -> the row's cells placed down column 0 (for transposing)
        self.spread = _Memo(self._spread)
        # row -> column indices of its empty cells
        self.empties = _Memo(lambda row: tuple(c for c, e in enumerate(self.unpack_row(row)) if not e))
        # row -> largest exponent in it
        self.row_max = _Memo(lambda row: max(self.unpack_row(row)))
        #: one function per direction (up, down, left, right): board -> (board, points)
        self.movers = (
            self._column_mover(self.left_t),
            self._column_mover(self.right_t),
            self._row_mover(self.left),
            self._row_mover(self.right),
        )

    def unpack_row(self, row: int) -> tuple[int, ...]:
        m = self.cell_mask
        return tuple([(row >> s) & m for s in self.col_shifts])

    def pack_row(self, cells: tuple[int, ...] | list[int]) -> int:
        out = 0
        for s, e in zip(self.col_shifts, cells, strict=True):
            out |= e << s
        return out

    def _left(self, row: int) -> tuple[int, int]:
        moved, points = slide_exponents(self.unpack_row(row))
        return self.pack_row(moved), points

    def _right(self, row: int) -> tuple[int, int]:
        moved, points = slide_exponents(self.unpack_row(row)[::-1])
        return self.pack_row(moved[::-1]), points

    def _spread(self, row: int) -> int:
        out, m = 0, self.cell_mask
        for s, r in zip(self.col_shifts, self.shifts, strict=True):
            out |= ((row >> s) & m) << r
        return out

    def _spread_result(self, result: tuple[int, int]) -> tuple[int, int]:
        return self.spread.get(result[0]), result[1]

    # -- whole boards ---------------------------------------------------

    def pack(self, exps: list[list[int]]) -> int:
        out = 0
        for r, row in enumerate(exps):
            out |= self.pack_row(row) << self.shifts[r]
        return out

    def unpack(self, board: int) -> list[list[int]]:
        rm = self.row_mask
        return [list(self.unpack_row((board >> s) & rm)) for s in self.shifts]

    def transpose(self, board: int) -> int:
        rm, spread, out = self.row_mask, self.spread.get, 0
        for s, c in zip(self.shifts, self.col_shifts, strict=True):
            out |= spread((board >> s) & rm) << c
        return out

    def _row_mover(self, memo: _Memo) -> Callable[[int], tuple[int, int]]:
        shifts, rm, table, fill = self.shifts, self.row_mask, memo.d, memo.get

        def move(board: int) -> tuple[int, int]:
            out = total = 0
            try:
                for s in shifts:
                    row, points = table[(board >> s) & rm]
                    out |= row << s
                    total += points
            except KeyError:
                for s in shifts:
                    fill((board >> s) & rm)
                return move(board)
            return out, total

        return move

    def _column_mover(self, memo: _Memo) -> Callable[[int], tuple[int, int]]:
        # transpose, then each row of the transpose (a column) moves and lands spread back
        pairs = tuple(zip(self.shifts, self.col_shifts, strict=True))
        rm, spread, table, fill, transpose = self.row_mask, self.spread.d, memo.d, memo.get, self.transpose

        def move(board: int) -> tuple[int, int]:
            t = out = total = 0
            try:
                for s, c in pairs:
                    t |= spread[(board >> s) & rm] << c
                for s, c in pairs:
                    col, points = table[(t >> s) & rm]
                    out |= col << c
                    total += points
            except KeyError:
                t = transpose(board)
                for s, _ in pairs:
                    fill((t >> s) & rm)
                return move(board)
            return out, total

        return move

    def move(self, board: int, d: int) -> tuple[int, int]:
        """Move ``board`` in direction d (0 up, 1 down, 2 left, 3 right): (board, points)."""
        return self.movers[d](board)

    def empty_count(self, board: int) -> int:
        rm, empties, count = self.row_mask, self.empties.d, 0
        try:
            for s in self.shifts:
                count += len(empties[(board >> s) & rm])
        except KeyError:
            get, count = self.empties.get, 0
            for s in self.shifts:
                count += len(get((board >> s) & rm))
        return count

    def spawn(self, board: int, seed: int, index: int, key: int) -> int:
        """``board`` with spawn ``index`` of game ``seed`` placed on it (see docs/spawns.md)."""
        rm, shifts, empties = self.row_mask, self.shifts, self.empties.d
        try:
            rows = [empties[(board >> s) & rm] for s in shifts]
        except KeyError:
            get = self.empties.get
            rows = [get((board >> s) & rm) for s in shifts]
        ordinal, exp = spawn_choice(seed, index, sum(map(len, rows)), key)
        for s, cols in zip(shifts, rows, strict=True):
            if ordinal < len(cols):
                return board | exp << (s + cols[ordinal] * self.bits)
            ordinal -= len(cols)
        raise AssertionError("unreachable: the ordinal is below the count of empty cells")

    def max_exponent(self, board: int) -> int:
        rm, row_max = self.row_mask, self.row_max.get
        return max(row_max((board >> s) & rm) for s in self.shifts)

    def can_move(self, board: int) -> bool:
        # With a tile and an empty cell on the board some line holds both, so
        # some direction moves; a full board moves only if a pair is adjacent.
        if board and self.empty_count(board):
            return True
        return self.move(board, 2)[0] != board or self.move(board, 0)[0] != board


@cache
def tables(n: int) -> Tables:
    """The shared tables for board size ``n``."""
    return Tables(check_size(n))
