"""Layout and comfort: a 320 px phone, huge tiles, screen readers, dark theme, reduced motion."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

PHONE = {"viewport": {"width": 320, "height": 640}}


def _board_with(size, value):
    board = [[0] * size for _ in range(size)]
    board[0][0] = value
    board[size - 1][size - 1] = 2
    return board


@pytest.mark.parametrize("game", [PHONE], indirect=True)
@pytest.mark.parametrize("lang", ["en", "he", "ru", "th"])
def test_a_320_pixel_screen_has_no_horizontal_scroll(game, lang):
    game.open(f"?lang={lang}")
    for size in (3, 4, 5, 6):
        game.page.locator(f"[data-size='{size}']").click()
        width = game.page.evaluate("document.scrollingElement.scrollWidth")
        assert width <= 320, (size, width)


@pytest.mark.parametrize("game", [PHONE], indirect=True)
@pytest.mark.parametrize(("size", "value"), [(4, 131072), (5, 2**26), (6, 2**37), (3, 1024)])
def test_the_largest_tiles_fit_their_cells(game, size, value):
    game.open()
    game.load(_board_with(size, value))
    exp = min(value.bit_length() - 1, 18)
    inner = game.page.locator(f".tile[data-exp='{exp}'] .tile-inner")
    fits = inner.evaluate("e => ({sw: e.scrollWidth, cw: e.clientWidth,"
                          " sh: e.scrollHeight, ch: e.clientHeight,"
                          " font: parseFloat(getComputedStyle(e).fontSize)})")
    assert fits["sw"] <= fits["cw"] and fits["sh"] <= fits["ch"], fits
    assert fits["font"] >= 9, fits
    assert inner.inner_text().replace("\n", "") == str(value)


def test_screen_readers_get_the_board_and_each_move(game):
    game.open()
    game.load([[2, 2, 0], [0, 0, 0], [0, 0, 4]])
    game.page.keyboard.press("ArrowLeft")
    said = game.page.locator("#announcer").inner_text()
    assert said.startswith("Moved left. Merged into 4. 4 points, score 4. New "), said
    board = game.state()["board"]
    old = ((0, 0), (2, 0))
    spawned = next((r, c) for r in range(3) for c in range(3) if board[r][c] and (r, c) not in old)
    assert f"at row {spawned[0] + 1}, column {spawned[1] + 1}." in said
    grid = game.page.get_by_role("grid", name="3 by 3 board")
    cells = grid.get_by_role("gridcell").all_inner_texts()
    named = [f"row {r + 1}, column {c + 1}: {board[r][c] or 'empty'}" for r in range(3) for c in range(3)]
    assert cells == named
    assert game.page.locator("#announcer").get_attribute("aria-live") == "polite"


@pytest.mark.parametrize("game", [{"color_scheme": "dark"}], indirect=True)
def test_dark_theme_follows_the_system(game):
    game.open()
    bg = game.page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert bg == "rgb(29, 27, 24)"


@pytest.mark.parametrize("game", [{"reduced_motion": "reduce"}], indirect=True)
def test_reduced_motion_turns_animation_off(game):
    game.open()
    game.load([[2, 2, 0], [0, 0, 0], [0, 0, 0]])
    game.page.keyboard.press("ArrowLeft")
    # no slide in flight: the merged and the new tile are there at once, without transitions
    assert game.page.locator(".tile").count() == 2
    assert game.page.locator(".tile").first.evaluate("e => getComputedStyle(e).transitionDuration") == "0s"


def test_focus_is_visible(game):
    game.open()
    game.page.keyboard.press("Tab")
    outline = game.page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert outline == "solid"
