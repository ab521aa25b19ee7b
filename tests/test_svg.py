"""Boards as SVG: valid XML, every tile's value in a <text>, the browser's colours, readable text."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from importlib.resources import files

import pytest

import game2048
from game2048 import Game, max_tile_for
from game2048.rules import SIZES
from game2048.svg import (
    DIGIT_WIDTH,
    LINE_HEIGHT,
    MIN_CONTRAST,
    SHEETS,
    TEXT_SPAN,
    VIEW,
    _hex,
    contrast,
    font_size,
    palette,
    palette_from_css,
    svg,
    text_lines,
)

NS = "{http://www.w3.org/2000/svg}"
CSS = files("game2048") / "web" / "static" / "css"


def texts(picture: str) -> list[str]:
    root = ET.fromstring(picture)
    return ["".join(t.itertext()) for t in root.iter(f"{NS}text")]


def test_a_game_draws_itself_as_svg_with_every_tile_value_in_a_text_element():
    game = Game(4, 2048)
    for d in "LURDLURD":
        game.move(d)
    picture = game._repr_svg_()
    root = ET.fromstring(picture)
    assert root.tag == f"{NS}svg" and root.get("width") == "360"
    values = sorted(str(v) for row in game.board for v in row if v)
    assert sorted(texts(picture)) == values


def test_the_package_exports_the_drawing_function():
    assert game2048.svg is svg
    assert svg(Game(3, 1)) == svg(Game(3, 1).board)


@pytest.mark.parametrize("size", SIZES)
def test_every_tile_up_to_the_largest_fits_its_cell(size):
    cell = (VIEW - VIEW * 0.1) / size
    for k in range(1, max_tile_for(size).bit_length()):
        value = 1 << k
        fs = font_size(value, cell)
        lines = text_lines(value)
        assert "".join(lines) == str(value) and len(lines) <= 2
        assert max(map(len, lines)) * DIGIT_WIDTH * fs <= TEXT_SPAN * cell + 1e-9
        assert len(lines) * LINE_HEIGHT * fs <= TEXT_SPAN * cell + 1e-9
        # and stays readable: at 360 px, 2^37 on 6x6 is still over 10 px
        assert fs * 360 / VIEW > 10


def test_the_largest_6x6_tile_is_drawn_on_two_lines_and_parses():
    board = [[0] * 6 for _ in range(6)]
    board[0][0] = 2**37
    picture = svg(board, size=300)
    assert texts(picture) == ["137438953472"]
    assert len(ET.fromstring(picture).findall(f".//{NS}tspan")) == 2


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_tile_text_meets_wcag_aa_contrast_in_both_themes(theme):
    for exp, (background, ink) in enumerate(palette(theme).tiles, start=1):
        assert contrast(ink, background) >= MIN_CONTRAST, f"2^{exp} in {theme}"


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_tile_backgrounds_come_from_the_browser_stylesheet(theme):
    """One fact, one place: every colour the picture uses is written in the stylesheets."""
    sheets = "".join((CSS / name).read_text() for name in SHEETS)
    colour = r"#[0-9a-fA-F]{6}\b|#[0-9a-fA-F]{3}\b|rgb\([^)/]*\)"
    written = {_hex(c, "test") for c in re.findall(colour, sheets)}
    styled = re.findall(r'data-exp="(\d+)"', (CSS / "tiles.css").read_text())
    p = palette(theme)
    assert len(p.tiles) == max(map(int, styled))
    assert {background for background, _ in p.tiles} <= written
    assert {p.board, p.cell, p.accent} <= written


def test_the_stylesheet_reader_follows_the_cascade():
    css = """
    :root { --panel: #abcdef; --cell-bg: #123; --focus: #0000ff; --hot: #ff8800; }
    @media (prefers-color-scheme: dark) { :root { --panel: #010101; --hot: #ffaa00; } }
    .board { position: relative; background: var(--panel); }
    .cell { background: var(--cell-bg); }
    .row-board .cell { background: #999999; }
    /* base, then per exponent */
    .tile-inner { background: #eeeeee; color: #111111; }
    .tile[data-exp="2"] .tile-inner { background: rgb(10 20 30); color: #fff; }
    .tile[data-exp="3"] .tile-inner { background: var(--hot); }
    @media (prefers-color-scheme: dark) {
      .tile-inner { background: #222222; color: #dddddd; }
      .tile[data-exp="3"] .tile-inner { color: #000000; }
    }
    """
    light = palette_from_css(css, "light")
    dark = palette_from_css(css, "dark")
    assert light.board == "#abcdef" and light.cell == "#112233" and dark.board == "#010101"
    assert light.tiles == (("#eeeeee", "#111111"), ("#0a141e", "#ffffff"), ("#ff8800", "#111111"))
    # dark: the base rule changes tile 2 only where no more specific rule speaks
    assert dark.tiles[0] == ("#222222", "#dddddd")
    assert dark.tiles[1] == ("#0a141e", "#ffffff")
    assert dark.tiles[2] == ("#ffaa00", "#000000")
    assert light.tile(40) == light.tiles[-1]


def test_text_below_wcag_contrast_is_replaced_by_black_or_white():
    css = (
        ':root { --focus: #00f; } .board { background: #000; } .cell { background: #111; }'
        '.tile-inner { background: #f2b179; color: #f9f6f2; } .tile[data-exp="2"] .tile-inner { }'
    )
    p = palette_from_css(css, "light")
    assert p.tiles[0] == ("#f2b179", "#000000")


def test_an_arrow_shows_a_direction():
    picture = svg(Game(4, 1), arrow="left")
    root = ET.fromstring(picture)
    (arrow,) = [g for g in root.iter(f"{NS}g") if g.get("class") == "arrow"]
    assert "rotate(270" in arrow.get("transform") and arrow.get("aria-label") == "best move: left"
    assert "arrow" not in svg(Game(4, 1))


@pytest.mark.parametrize(
    ("board", "kwargs", "message"),
    [
        ([[2, 0], [0, 0]], {}, "3 to 6 rows"),
        ([[2, 0, 0], [0, 0], [0, 0, 0]], {}, "3 rows of 3"),
        ([[3, 0, 0], [0, 0, 0], [0, 0, 0]], {}, "power of two"),
        ([[2048, 0, 0], [0, 0, 0], [0, 0, 0]], {}, "exceed 1024"),
        ([[2, 0, 0], [0, 0, 0], [0, 0, 0]], {"arrow": "north"}, "arrow"),
        ([[2, 0, 0], [0, 0, 0], [0, 0, 0]], {"size": 0}, "size"),
        ([[2, 0, 0], [0, 0, 0], [0, 0, 0]], {"theme": "sepia"}, "theme"),
    ],
)
def test_bad_boards_and_options_get_a_clear_error(board, kwargs, message):
    with pytest.raises(ValueError, match=message):
        svg(board, **kwargs)
