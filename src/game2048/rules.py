"""The rules of 2048, exactly, on plain lists.

This module is the reference statement of the rules: every other part of the
package (the fast engine, the solver, the browser engine's test vectors) is
checked against it. It imports nothing of ours and does no I/O.

A board is a list of rows, each a list of tile values; ``0`` is an empty cell.

>>> slide_row([2, 2, 2, 2])
([4, 4, 0, 0], 8)
>>> slide([[2, 0, 0], [2, 0, 0], [0, 0, 0]], "up")
([[4, 0, 0], [0, 0, 0], [0, 0, 0]], 4)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

Direction = Literal["up", "down", "left", "right"]

SIZES: tuple[int, ...] = (3, 4, 5, 6)
DEFAULT_SIZE = 4
DIRECTIONS: tuple[Direction, ...] = ("up", "down", "left", "right")

#: The move-log alphabet: one letter per direction, and ``Z`` for undo.
LETTERS: dict[Direction, str] = {"up": "U", "down": "D", "left": "L", "right": "R"}
UNDO_LETTER = "Z"
DIRECTION_OF_LETTER: dict[str, Direction] = {v: k for k, v in LETTERS.items()}

#: The tile that wins: 256 on 3x3, 2048 on every larger board.
TARGETS: dict[int, int] = {3: 256, 4: 2048, 5: 2048, 6: 2048}

#: Undos allowed in one game.
MAX_UNDOS = 3

#: A spawned tile is a 4 with probability FOUR_IN / SPAWN_OUT_OF, else a 2.
FOUR_IN = 1
SPAWN_OUT_OF = 10


def max_tile_for(size: int) -> int:
    """The largest tile a size x size board can ever hold: 2^(size^2 + 1).

    >>> max_tile_for(4)
    131072
    """
    check_size(size)
    return 1 << (size * size + 1)


def check_size(size: object) -> int:
    """Return ``size`` if it is a playable board size, else raise ValueError."""
    if type(size) is not int or size not in SIZES:
        raise ValueError(f"board size must be one of {', '.join(map(str, SIZES))}, got {size!r}")
    return size


def slide_exponents(line: Sequence[int]) -> tuple[tuple[int, ...], int]:
    """Slide one line of exponents (0 = empty, k = tile 2^k) toward index 0.

    Returns the new line and the points the move scores. Pairing starts at
    index 0 and a tile merges at most once per move.
    """
    tiles = [e for e in line if e]
    out: list[int] = []
    points = 0
    i = 0
    while i < len(tiles):
        if i + 1 < len(tiles) and tiles[i] == tiles[i + 1]:
            merged = tiles[i] + 1
            out.append(merged)
            points += 1 << merged
            i += 2
        else:
            out.append(tiles[i])
            i += 1
    out.extend([0] * (len(line) - len(out)))
    return tuple(out), points


def exponent(value: int) -> int:
    """The exponent of a tile value (0 for an empty cell); ValueError otherwise."""
    if type(value) is not int or isinstance(value, bool):
        raise ValueError(f"a tile must be an integer, got {value!r}")
    if value == 0:
        return 0
    if value < 2 or value & (value - 1):
        raise ValueError(f"a tile must be 0 or a power of two >= 2, got {value}")
    return value.bit_length() - 1


def board_exponents(board: object, size: int | None = None) -> list[list[int]]:
    """The exponents of a playable board (rows of tile values, 0 for empty), or ValueError
    naming what is wrong: the size (``size`` if given, else 3 to 6), the shape, a value that
    is no tile, a tile larger than the board can hold. The one check every part uses.

    >>> board_exponents([[2, 0, 0], [0, 4, 0], [0, 0, 0]])
    [[1, 0, 0], [0, 2, 0], [0, 0, 0]]
    """
    if not isinstance(board, Sequence) or isinstance(board, str):
        raise ValueError(f"a board is a list of rows, got {type(board).__name__}")
    n = size or check_size(len(board))
    if len(board) != n or any(not isinstance(row, Sequence) or isinstance(row, str) or len(row) != n
                              for row in board):
        raise ValueError(f"a {n}x{n} board needs {n} rows of {n} cells")
    exps = [[exponent(v) for v in row] for row in board]
    top = n * n + 1
    if any(e > top for row in exps for e in row):
        raise ValueError(f"no tile on a {n}x{n} board can exceed {max_tile_for(n)}")
    return exps


def slide_row(line: Sequence[int]) -> tuple[list[int], int]:
    """Slide one line of tile values toward index 0.

    >>> slide_row([4, 4, 4, 4])
    ([8, 8, 0, 0], 16)
    >>> slide_row([2, 2, 2, 0])
    ([4, 2, 0, 0], 4)
    """
    moved, points = slide_exponents([exponent(v) for v in line])
    return [1 << e if e else 0 for e in moved], points


def _check_board(board: Sequence[Sequence[int]]) -> int:
    n = len(board)
    if n < 1 or any(len(row) != n for row in board):
        raise ValueError("a board must be a non-empty square list of rows")
    return n


def slide(board: Sequence[Sequence[int]], direction: Direction) -> tuple[list[list[int]], int]:
    """Slide a whole board one way, without spawning; returns (board, points).

    >>> slide([[2, 0, 0], [2, 0, 0], [4, 0, 0]], "up")
    ([[4, 0, 0], [4, 0, 0], [0, 0, 0]], 4)
    """
    _check_board(board)
    if direction not in DIRECTIONS:
        raise ValueError(f"direction must be one of {', '.join(DIRECTIONS)}, got {direction!r}")
    rows = [list(r) for r in board]
    if direction in ("up", "down"):
        rows = [list(col) for col in zip(*rows, strict=True)]
    if direction in ("right", "down"):
        rows = [r[::-1] for r in rows]
    total = 0
    out = []
    for r in rows:
        moved, points = slide_row(r)
        total += points
        out.append(moved)
    if direction in ("right", "down"):
        out = [r[::-1] for r in out]
    if direction in ("up", "down"):
        out = [list(col) for col in zip(*out, strict=True)]
    return out, total


def can_move(board: Sequence[Sequence[int]]) -> bool:
    """True if some direction changes the board.

    That is: two orthogonal neighbours are equal tiles, or a tile has an empty
    neighbour to slide into. A full board with no equal neighbours is over.
    """
    n = _check_board(board)
    for r in range(n):
        for c in range(n):
            v = board[r][c]
            for rr, cc in ((r, c + 1), (r + 1, c)):
                if rr < n and cc < n:
                    w = board[rr][cc]
                    if (v == 0) != (w == 0) or (v and v == w):
                        return True
    return False
