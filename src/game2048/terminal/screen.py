"""The full-screen terminal game on curses: keys in, board and score out.

curses is in Python's standard library on Linux and macOS and does all this
game needs (keys, colours, redraw on resize), so the terminal game adds no
dependency. Tiles take the browser game's colours (``svg.palette``), matched
to the nearest of the terminal's 256 or 8 colours; without colours (or with
``NO_COLOR`` set), tiles are drawn in reverse video. The board shrinks to fit: it works at 80x24 for
every size, and long numbers are shortened (131072 -> 128k) when a cell is
too narrow.
"""

from __future__ import annotations

import contextlib
import curses
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from ..limits import NAME_MAX
from ..rules import Direction
from ..svg import palette
from .session import Session

#: Key -> direction: arrows, WASD and vim's K H J L. The browser's key map
#: (web/static/js/input.js, KEYMAP) is the same; tests/test_terminal.py binds the two.
KEYMAP: dict[str, Direction] = {
    "ArrowUp": "up", "ArrowDown": "down", "ArrowLeft": "left", "ArrowRight": "right",
    "w": "up", "s": "down", "a": "left", "d": "right",
    "k": "up", "j": "down", "h": "left", "l": "right",
}  # fmt: skip
NEW_GAME_KEY = "r"
UNDO_KEY = "u"
QUIT_KEY = "q"
_CURSES_ARROWS = {
    curses.KEY_UP: "ArrowUp",
    curses.KEY_DOWN: "ArrowDown",
    curses.KEY_LEFT: "ArrowLeft",
    curses.KEY_RIGHT: "ArrowRight",
}
HELP = "arrows, WASD or HJKL move   u undo   r new game   q quit"
#: Lines around the board: title, a blank, the message and the help.
CHROME_LINES = 4


def press(session: Session, key: str) -> Literal["quit", "new"] | None:
    """Play one key on ``session``: a move or an undo is done here; quitting keeps the game
    (``"quit"``); a new game is for the caller to confirm first (``"new"``)."""
    if key == QUIT_KEY:
        session.quit()
        return "quit"
    if key in KEYMAP:
        session.move(KEYMAP[key])
    elif key == UNDO_KEY:
        session.undo()
    elif key == NEW_GAME_KEY:
        return "new"
    return None


@dataclass(frozen=True)
class Layout:
    """Cell width and height in characters, and the gaps between cells."""

    cell_w: int
    cell_h: int
    gap_x: int
    gap_y: int

    def size(self, n: int) -> tuple[int, int]:
        """(lines, columns) the board takes."""
        return n * self.cell_h + (n + 1) * self.gap_y, n * self.cell_w + (n + 1) * self.gap_x


def layout(lines: int, cols: int, n: int) -> Layout | None:
    """The roomiest layout of an n x n board that fits a lines x cols screen, or None."""
    heights = [(3, 1), (2, 1), (3, 0), (1, 1), (2, 0), (1, 0)]
    for cell_h, gap_y in heights:
        for cell_w, gap_x in ((8, 1), (7, 1), (6, 1), (5, 1), (4, 1), (4, 0)):
            candidate = Layout(cell_w, cell_h, gap_x, gap_y)
            h, w = candidate.size(n)
            if h + CHROME_LINES <= lines and w <= cols:
                return candidate
    return None


def tile_text(value: int, width: int) -> str:
    """The tile's number, shortened with k, M or G (powers of 1024) when it is wider than ``width``.

    >>> tile_text(2048, 6), tile_text(131072, 5), tile_text(137438953472, 4)
    ('2048', '128k', '128G')
    """
    text = str(value)
    for suffix, shift in (("k", 10), ("M", 20), ("G", 30)):
        if len(text) <= width:
            break
        text = f"{value >> shift}{suffix}"
    return text


def key_name(key: int | str) -> str:
    """A curses key as the browser names it: "ArrowUp", or one lower-case character."""
    if isinstance(key, int):
        return _CURSES_ARROWS.get(key, "")
    return key.lower() if len(key) == 1 else ""


# -- colours -------------------------------------------------------------------

_BASIC = {
    curses.COLOR_BLACK: (0, 0, 0),
    curses.COLOR_RED: (205, 0, 0),
    curses.COLOR_GREEN: (0, 205, 0),
    curses.COLOR_YELLOW: (205, 205, 0),
    curses.COLOR_BLUE: (0, 0, 238),
    curses.COLOR_MAGENTA: (205, 0, 205),
    curses.COLOR_CYAN: (0, 205, 205),
    curses.COLOR_WHITE: (229, 229, 229),
}
_CUBE = (0, 95, 135, 175, 215, 255)


def _rgb(colour: str) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


def _distance(a: tuple[int, int, int], b: tuple[int, int, int]) -> int:
    return sum((x - y) ** 2 for x, y in zip(a, b, strict=True))


def nearest_colour(colour: str, colours: int) -> int:
    """The terminal colour closest to #rrggbb: xterm's 256-colour cube and greys, or the basic 8.

    >>> nearest_colour("#ff0000", 256), nearest_colour("#eeeeee", 8) == curses.COLOR_WHITE
    (196, True)
    """
    rgb = _rgb(colour)
    if colours < 256:
        return min(_BASIC, key=lambda c: _distance(_BASIC[c], rgb))
    cube = [min(range(6), key=lambda i: abs(_CUBE[i] - v)) for v in rgb]
    best = 16 + 36 * cube[0] + 6 * cube[1] + cube[2]
    cube_rgb = (_CUBE[cube[0]], _CUBE[cube[1]], _CUBE[cube[2]])
    grey = min(range(24), key=lambda i: abs(8 + 10 * i - sum(rgb) // 3))
    grey_rgb = (8 + 10 * grey,) * 3
    return 232 + grey if _distance(grey_rgb, rgb) < _distance(cube_rgb, rgb) else best


class Colours:
    """curses attributes for the board, empty cells and each tile exponent."""

    def __init__(self) -> None:
        colours = palette("light")
        # https://no-color.org: a set, non-empty NO_COLOR means no colours
        self.enabled = curses.has_colors() and not os.environ.get("NO_COLOR")
        self.board = self.cell = curses.A_NORMAL
        self.tiles: list[int] = []
        if not self.enabled:
            return
        curses.start_color()
        with contextlib.suppress(curses.error):  # keep the terminal's own background around the board
            curses.use_default_colors()
        count = curses.COLORS
        pairs = [(colours.board, colours.board), (colours.cell, colours.cell), *colours.tiles]
        attrs = []
        for i, (bg, fg) in enumerate(pairs[: curses.COLOR_PAIRS - 1], start=1):
            back, ink = nearest_colour(bg, count), nearest_colour(fg, count)
            if ink == back:  # few colours: keep the number readable
                ink = curses.COLOR_BLACK if sum(_rgb(bg)) > 384 else curses.COLOR_WHITE
            curses.init_pair(i, ink, back)
            attrs.append(curses.color_pair(i))
        self.board, self.cell, *self.tiles = attrs
        self.tiles = self.tiles or [curses.A_REVERSE]

    def tile(self, value: int) -> int:
        if not self.enabled:
            return curses.A_REVERSE | curses.A_BOLD
        return self.tiles[min(value.bit_length() - 1, len(self.tiles)) - 1] | curses.A_BOLD


# -- drawing and the key loop ----------------------------------------------------


def _put(win: curses.window, y: int, x: int, text: str, attr: int = 0) -> None:
    lines, cols = win.getmaxyx()
    if 0 <= y < lines and 0 <= x < cols:
        with contextlib.suppress(curses.error):  # the bottom-right cell; nothing lost
            win.addstr(y, x, text[: max(0, cols - x - (1 if y == lines - 1 else 0))], attr)


def draw(win: curses.window, session: Session, colours: Colours, ranked: bool) -> None:
    win.erase()
    lines, cols = win.getmaxyx()
    state, n = session.state, session.size
    title = f"2048  {n}x{n}   score {state.score}   best {session.best}   undo {state.undos_left}"
    if ranked:
        title += "   ranked" if state.ranked else "   unranked"
    _put(win, 0, 0, title, curses.A_BOLD)
    grid = layout(lines, cols, n)
    if grid is None:
        _put(win, 2, 0, f"Make the window larger for a {n}x{n} board (it needs about {4 * n + 1}x{n + 5}).")
    else:
        height, width = grid.size(n)
        top, left = 2, max(0, (cols - width) // 2)
        for y in range(height):
            _put(win, top + y, left, " " * width, colours.board)
        for r, row in enumerate(state.board):
            for c, value in enumerate(row):
                y = top + grid.gap_y + r * (grid.cell_h + grid.gap_y)
                x = left + grid.gap_x + c * (grid.cell_w + grid.gap_x)
                attr = colours.tile(value) if value else colours.cell
                text = tile_text(value, grid.cell_w) if value else "."
                for dy in range(grid.cell_h):
                    face = text if dy == (grid.cell_h - 1) // 2 else ""
                    _put(win, y + dy, x, face.center(grid.cell_w), attr)
        _put(win, top + height, 0, session.message)
    _put(win, lines - 1, 0, HELP, curses.A_DIM)
    win.refresh()


def ask(win: curses.window, prompt: str) -> str:
    """A line of text typed at the bottom of the screen (Enter ends it)."""
    lines, _ = win.getmaxyx()
    _put(win, lines - 2, 0, " " * 200)
    _put(win, lines - 2, 0, prompt)
    curses.echo()
    curses.curs_set(1)
    try:
        answer = win.getstr(lines - 2, min(len(prompt), 60), NAME_MAX)
    finally:
        curses.noecho()
        curses.curs_set(0)
    return answer.decode(errors="replace").strip()


def run(win: curses.window, make_session: Callable[[curses.window], Session], ranked: bool) -> None:
    """The key loop: until q."""
    with contextlib.suppress(curses.error):  # a terminal without a cursor to hide
        curses.curs_set(0)
    win.keypad(True)
    colours = Colours()
    session = make_session(win)
    confirming = False
    while True:
        if confirming:
            session.message = "Start a new game? (y/n)"
        draw(win, session, colours, ranked)
        key = key_name(win.get_wch())
        if confirming:
            confirming = False
            session.message = ""
            if key == "y":
                session.new_game()
            continue
        pressed = press(session, key)
        if pressed == "quit":
            return
        confirming = pressed == "new"
