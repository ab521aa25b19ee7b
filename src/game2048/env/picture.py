"""Boards as RGB frames for ``render_mode="rgb_array"`` (Gymnasium's video recorder), drawn with numpy.

The colours are ``game2048.svg``'s (read from the web game's stylesheets), the
layout is the SVG picture's (cells on a board, numbers centred, 7 digits and
more on two lines), and the digits come from a 5x7 pixel font scaled to the
cell, so no rasteriser or font file is needed. Frame sides are multiples of
16 pixels, as video encoders want.

>>> import numpy as np
>>> f = frame(np.zeros((4, 4), dtype=np.uint8))
>>> f.shape, f.dtype
((336, 336, 3), dtype('uint8'))
"""

from __future__ import annotations

from functools import cache

import numpy as np

from ..svg import palette, text_lines

#: Pixels of a cell and of the gap between cells.
CELL = 72
GAP = 8

_FONT = {
    "0": "01110 10001 10011 10101 11001 10001 01110",
    "1": "00100 01100 00100 00100 00100 00100 01110",
    "2": "01110 10001 00001 00010 00100 01000 11111",
    "3": "11111 00010 00100 00010 00001 10001 01110",
    "4": "00010 00110 01010 10010 11111 00010 00010",
    "5": "11111 10000 11110 00001 00001 10001 01110",
    "6": "00110 01000 10000 11110 10001 10001 01110",
    "7": "11111 00001 00010 00100 01000 01000 01000",
    "8": "01110 10001 10001 01110 10001 10001 01110",
    "9": "01110 10001 10001 01111 00001 00010 01100",
}
_GLYPHS = {d: np.array([[c == "1" for c in row] for row in rows.split()]) for d, rows in _FONT.items()}


def _rgb(colour: str) -> np.ndarray:
    return np.array([int(colour[i : i + 2], 16) for i in (1, 3, 5)], dtype=np.uint8)


@cache
def _colours(theme: str) -> tuple[np.ndarray, np.ndarray, tuple[tuple[np.ndarray, np.ndarray], ...]]:
    p = palette(theme)  # type: ignore[arg-type]
    return _rgb(p.board), _rgb(p.cell), tuple((_rgb(bg), _rgb(fg)) for bg, fg in p.tiles)


@cache
def _text_mask(value: int) -> np.ndarray:
    """The tile's number as a boolean bitmap, scaled to fill its cell like the SVG's text."""
    lines = text_lines(value)
    width = max(len(line) for line in lines) * 6 - 1
    height = len(lines) * 8 - 1
    scale = min(CELL * 0.7 / width, CELL * 0.42 * len(lines) / height)
    mask = np.zeros((height, width), dtype=bool)
    for row, line in enumerate(lines):
        left = (width - (len(line) * 6 - 1)) // 2
        for k, digit in enumerate(line):
            mask[row * 8 : row * 8 + 7, left + k * 6 : left + k * 6 + 5] = _GLYPHS[digit]
    # nearest-neighbour scaling: every output pixel takes the font pixel under its centre
    rows = ((np.arange(int(height * scale)) + 0.5) / scale).astype(int)
    cols = ((np.arange(int(width * scale)) + 0.5) / scale).astype(int)
    return mask[rows][:, cols]


def frame(exponents: np.ndarray, theme: str = "light") -> np.ndarray:
    """An (H, W, 3) uint8 picture of a board of tile exponents (0 empty), in the web game's colours."""
    board_rgb, cell_rgb, tiles = _colours(theme)
    n = exponents.shape[0]
    side = n * CELL + (n + 1) * GAP
    padded = -(-side // 16) * 16
    out = np.empty((padded, padded, 3), dtype=np.uint8)
    out[:] = board_rgb
    offset = (padded - side) // 2
    for r in range(n):
        for c in range(n):
            y = offset + GAP + r * (CELL + GAP)
            x = offset + GAP + c * (CELL + GAP)
            e = int(exponents[r, c])
            cell = out[y : y + CELL, x : x + CELL]
            if not e:
                cell[:] = cell_rgb
                continue
            bg, fg = tiles[min(e, len(tiles)) - 1]
            cell[:] = bg
            mask = _text_mask(1 << e)
            h, w = mask.shape
            top, left = (CELL - h) // 2, (CELL - w) // 2
            cell[top : top + h, left : left + w][mask] = fg
    return out
