"""Pictures of a board as SVG, in the browser game's colours (notebooks, pages, the review).

>>> picture = svg([[2, 0, 0], [0, 1024, 0], [0, 0, 0]], size=240)
>>> picture.startswith("<svg") and ">1024</text>" in picture
True

In a notebook a ``Game`` draws itself (``Game._repr_svg_``). The tile colours
are read from the browser game's stylesheets (``web/static/css``: ``tiles.css``
for the tiles, the ``.board`` and ``.cell`` rules for the board and empty
cells), light and dark, so the two never disagree. Where a stylesheet's text colour would fall below the
WCAG AA contrast ratio (4.5:1) on its tile, the picture uses black or white
text instead, whichever reads better. Numbers shrink with their digit count
and from 7 digits on break over two lines, so every tile up to 2^37 fits its
cell on every board size.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Literal

from .rules import DIRECTIONS, Direction, board_exponents, check_size, exponent

if TYPE_CHECKING:
    from .game import Game

Theme = Literal["light", "dark"]
THEMES: tuple[Theme, ...] = ("light", "dark")

#: WCAG 2 AA contrast for normal text: tile numbers get at least this much.
MIN_CONTRAST = 4.5
#: Bold digits are at most this wide, in ems (system sans-serif fonts: 0.55-0.6).
DIGIT_WIDTH = 0.62
#: A tile's text stays within this share of the cell, across and down.
TEXT_SPAN = 0.8
LINE_HEIGHT = 1.1
FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, 'Noto Sans', sans-serif"
#: The picture's own coordinates: the board is this many units wide.
VIEW = 1000


# -- colours from the stylesheets --------------------------------------------


@dataclass(frozen=True)
class Palette:
    """One theme's colours: board, empty cell, accent (for the arrow), and (background, text) per exponent."""

    board: str
    cell: str
    accent: str
    tiles: tuple[tuple[str, str], ...]  # index 0 is exponent 1 (the tile 2)

    def tile(self, exp: int) -> tuple[str, str]:
        """(background, text) of tile 2^exp; past the last styled exponent, the last style."""
        return self.tiles[min(exp, len(self.tiles)) - 1]


_RULE = re.compile(r"([^{}]+)\{([^{}]*)\}")
_MEDIA = re.compile(r"@media[^{]*prefers-color-scheme:\s*dark[^{]*\{((?:[^{}]*\{[^{}]*\})*)\s*\}")
_EXP = re.compile(r'data-exp="(\d+)"')


def _rules(css: str) -> list[tuple[bool, str, dict[str, str]]]:
    """(dark only, selector, declarations) for each rule, in source order."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    out: list[tuple[int, bool, str, dict[str, str]]] = []
    for m in _MEDIA.finditer(css):
        out.extend((m.start() + r.start(), True, *_rule(r)) for r in _RULE.finditer(m.group(1)))
    plain = _MEDIA.sub(lambda m: " " * len(m.group(0)), css)
    out.extend((r.start(), False, *_rule(r)) for r in _RULE.finditer(plain))
    return [(dark, sel, decls) for _, dark, sel, decls in sorted(out, key=lambda t: t[0])]


def _rule(match: re.Match[str]) -> tuple[str, dict[str, str]]:
    decls = {}
    for part in match.group(2).split(";"):
        if ":" in part:
            name, value = part.split(":", 1)
            decls[name.strip()] = value.strip()
    return " ".join(match.group(1).split()), decls


def _cascade(
    rules: list[tuple[bool, str, dict[str, str]]], dark: bool, matches: Callable[[str], bool], prop: str
) -> str | None:
    """The winning value of ``prop`` among rules whose selector ``matches``: specificity, then order."""
    best: tuple[int, int] | None = None
    value = None
    for order, (dark_only, sel, decls) in enumerate(rules):
        if (dark_only and not dark) or prop not in decls or not matches(sel):
            continue
        rank = (sel.count(".") + sel.count("["), order)
        if best is None or rank > best:
            best, value = rank, decls[prop]
    return value


def _resolve(value: str | None, variables: dict[str, str], where: str) -> str:
    if value is None:
        raise ValueError(f"no colour for {where} in the stylesheets")
    m = re.fullmatch(r"var\(\s*(--[\w-]+)\s*\)", value)
    if m:
        return _resolve(variables.get(m.group(1)), variables, where)
    return _hex(value, where)


def _hex(value: str, where: str) -> str:
    """A CSS colour (#rgb, #rrggbb, rgb(r g b) or rgb(r, g, b)) as #rrggbb."""
    v = value.strip().lower()
    if re.fullmatch(r"#[0-9a-f]{3}", v):
        return "#" + "".join(c * 2 for c in v[1:])
    if re.fullmatch(r"#[0-9a-f]{6}", v):
        return v
    m = re.fullmatch(r"rgb\(\s*(\d+)[\s,]+(\d+)[\s,]+(\d+)\s*\)", v)
    if m:
        return "#" + "".join(f"{int(c):02x}" for c in m.groups())
    raise ValueError(f"cannot read the colour {value!r} for {where} in the stylesheets")


#: The stylesheets that colour a board, in the order the page loads them.
SHEETS = ("base.css", "board.css", "tiles.css")


def palette_from_css(css: str, theme: Theme) -> Palette:
    """The palette the browser shows for ``theme``, from the text of its stylesheets.

    The board and empty cells take the background of the ``.board`` and
    ``.cell`` rules, each tile the background and colour that win the cascade
    for ``.tile[data-exp="k"] .tile-inner``; ``var(--x)`` is read from the
    ``:root`` rules, and the dark theme adds the ``prefers-color-scheme: dark``
    rules.
    """
    dark = theme == "dark"
    rules = _rules(css)
    variables: dict[str, str] = {}
    for dark_only, sel, decls in rules:
        if sel == ":root" and (dark or not dark_only):
            variables.update({k: v for k, v in decls.items() if k.startswith("--")})
    exps = sorted({int(e) for _, sel, _ in rules for e in _EXP.findall(sel)})
    if not exps:
        raise ValueError("no tile styles (data-exp) found in tiles.css")

    def exactly(selector: str) -> Callable[[str], bool]:
        return lambda sel: sel == selector

    def tile(exp: int) -> Callable[[str], bool]:
        def matches(sel: str) -> bool:
            if not sel.endswith(".tile-inner"):
                return False
            found = _EXP.findall(sel)
            return not found or found == [str(exp)]

        return matches

    tiles = []
    for exp in range(1, exps[-1] + 1):
        where = f"the tile 2^{exp} ({theme})"
        bg = _resolve(_cascade(rules, dark, tile(exp), "background"), variables, where)
        fg = _resolve(_cascade(rules, dark, tile(exp), "color"), variables, where)
        tiles.append((bg, readable(fg, bg)))
    board = _cascade(rules, dark, exactly(".board"), "background")
    cell = _cascade(rules, dark, exactly(".cell"), "background")
    return Palette(
        board=_resolve(board, variables, f"the board ({theme})"),
        cell=_resolve(cell, variables, f"an empty cell ({theme})"),
        accent=_resolve(variables.get("--focus"), variables, f"the accent --focus ({theme})"),
        tiles=tuple(tiles),
    )


@cache
def palette(theme: Theme = "light") -> Palette:
    """The browser game's palette for ``theme``, read once from its stylesheets."""
    if theme not in THEMES:
        raise ValueError(f"theme must be one of {', '.join(THEMES)}, got {theme!r}")
    from importlib.resources import files  # on first use: it costs an import's time

    css = files("game2048") / "web" / "static" / "css"
    return palette_from_css("\n".join((css / name).read_text(encoding="utf-8") for name in SHEETS), theme)


def luminance(colour: str) -> float:
    """WCAG 2 relative luminance of a #rrggbb colour."""

    def channel(i: int) -> float:
        c = int(colour[i : i + 2], 16) / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5)


def contrast(a: str, b: str) -> float:
    """WCAG 2 contrast ratio of two #rrggbb colours (1 to 21)."""
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def readable(text: str, background: str) -> str:
    """``text`` if it reaches MIN_CONTRAST on ``background``, else black or white, whichever reads better."""
    if contrast(text, background) >= MIN_CONTRAST:
        return text
    return max(("#000000", "#ffffff"), key=lambda c: contrast(c, background))


# -- layout ------------------------------------------------------------------


def text_lines(value: int) -> list[str]:
    """The lines a tile's number is written on: one, or two from 7 digits on (as in the browser)."""
    digits = str(value)
    if len(digits) <= 6:
        return [digits]
    cut = len(digits) - (len(digits) + 1) // 2
    return [digits[:cut], digits[cut:]]


def font_size(value: int, cell: float) -> float:
    """The font size for ``value`` in a cell ``cell`` wide: the longest line fits TEXT_SPAN of it."""
    lines = text_lines(value)
    longest = max(len(line) for line in lines)
    across = TEXT_SPAN * cell / (DIGIT_WIDTH * longest)
    down = TEXT_SPAN * cell / (LINE_HEIGHT * len(lines))
    return min(0.5 * cell, across, down)


def _rows(board: Game | Sequence[Sequence[int]]) -> list[list[int]]:
    rows = board.board if hasattr(board, "board") else [list(r) for r in board]
    try:
        check_size(len(rows))
    except ValueError:
        raise ValueError(f"a board has 3 to 6 rows, got {len(rows)}") from None
    board_exponents(rows)
    return rows


def svg(
    board: Game | Sequence[Sequence[int]],
    size: int | None = None,
    *,
    theme: Theme = "light",
    arrow: Direction | None = None,
) -> str:
    """The board as an SVG document (a string).

    ``board``: a ``Game`` or rows of tile values (0 empty), 3x3 to 6x6.
    ``size``: width and height in pixels (None: no fixed size, it scales to
    its container). ``theme``: ``"light"`` or ``"dark"``, the browser game's
    two palettes. ``arrow``: a direction (``"up"``, ...) to draw as an arrow
    over the board, e.g. the best move of a position.
    """
    rows = _rows(board)
    n = len(rows)
    if arrow is not None and arrow not in DIRECTIONS:
        raise ValueError(f"arrow must be one of {', '.join(DIRECTIONS)} or None, got {arrow!r}")
    if size is not None and (type(size) is not int or size <= 0):
        raise ValueError(f"size must be a positive number of pixels, got {size!r}")
    colours = palette(theme)
    gap = VIEW * 0.1 / (n + 1)
    cell = (VIEW - gap * (n + 1)) / n
    radius = cell * 0.06
    biggest = max(max(r) for r in rows)
    label = f"{n}×{n} 2048 board" + (f", largest tile {biggest}" if biggest else ", empty")
    dims = f' width="{size}" height="{size}"' if size is not None else ""
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {VIEW} {VIEW}"{dims} role="img" '
        f"aria-label=\"{_escape(label)}\">",
        f"<title>{_escape(label)}</title>",
        f'<rect width="{VIEW}" height="{VIEW}" rx="{VIEW * 0.015:g}" fill="{colours.board}"/>',
    ]
    for r, row in enumerate(rows):
        for c, value in enumerate(row):
            x, y = gap + c * (cell + gap), gap + r * (cell + gap)
            if not value:
                out.append(
                    f'<rect x="{x:.1f}" y="{y:.1f}" width="{cell:.1f}" height="{cell:.1f}" '
                    f'rx="{radius:.1f}" fill="{colours.cell}"/>'
                )
                continue
            background, ink = colours.tile(exponent(value))
            out.append(
                f'<rect x="{x:.1f}" y="{y:.1f}" width="{cell:.1f}" height="{cell:.1f}" '
                f'rx="{radius:.1f}" fill="{background}"/>'
            )
            out.append(_number(value, x + cell / 2, y + cell / 2, cell, ink))
    if arrow is not None:
        out.append(_arrow(arrow, colours.accent))
    out.append("</svg>")
    return "\n".join(out)


def _escape(text: str) -> str:
    """``text`` safe inside an XML element or a double-quoted attribute."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def _number(value: int, cx: float, cy: float, cell: float, ink: str) -> str:
    lines = text_lines(value)
    fs = font_size(value, cell)
    head = (
        f'<text x="{cx:.1f}" y="{cy:.1f}" font-family="{FONT}" font-size="{fs:.1f}" font-weight="700" '
        f'fill="{ink}" text-anchor="middle" dominant-baseline="central">'
    )
    if len(lines) == 1:
        return f"{head}{lines[0]}</text>"
    top = cy - fs * LINE_HEIGHT / 2
    spans = "".join(
        f'<tspan x="{cx:.1f}" y="{top + i * fs * LINE_HEIGHT:.1f}">{line}</tspan>'
        for i, line in enumerate(lines)
    )
    return f"{head}{spans}</text>"


#: An arrow pointing up from the centre of the board; other directions rotate it.
_ARROW_POINTS = "500,210 700,450 570,450 570,790 430,790 430,450 300,450"
_ARROW_TURN = {"up": 0, "right": 90, "down": 180, "left": 270}


def _arrow(direction: Direction, colour: str) -> str:
    return (
        f'<g class="arrow" aria-label="best move: {direction}" '
        f'transform="rotate({_ARROW_TURN[direction]} {VIEW // 2} {VIEW // 2})">'
        f'<polygon points="{_ARROW_POINTS}" fill="{colour}" fill-opacity="0.75" stroke="#ffffff" '
        f'stroke-width="14" stroke-linejoin="round"/></g>'
    )
