"""The game in a real browser: keys, swipes, win, game over, undo, new game."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

# One tile in the middle: every direction is a legal move.
CENTRE = [[0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]

KEY_FAMILIES = {
    "arrows": {"ArrowUp": "U", "ArrowDown": "D", "ArrowLeft": "L", "ArrowRight": "R"},
    "wasd": {"w": "U", "s": "D", "a": "L", "d": "R"},
    "vim": {"k": "U", "j": "D", "h": "L", "l": "R"},
}


@pytest.mark.parametrize("family", KEY_FAMILIES)
def test_each_key_family_moves_every_way(game, family):
    game.open()
    for key, letter in KEY_FAMILIES[family].items():
        game.load(CENTRE)
        game.page.keyboard.press(key)
        assert game.state()["log"] == letter, key


def test_keys_with_ctrl_alt_or_meta_are_ignored(game):
    game.open()
    game.load(CENTRE)
    for combo in ("Control+ArrowLeft", "Alt+ArrowUp", "Meta+ArrowRight", "Control+r"):
        game.page.keyboard.press(combo)
    assert game.state()["log"] == ""


def test_a_move_that_changes_nothing_is_not_recorded(game):
    game.open()
    game.load([[2, 4, 0], [0, 0, 0], [0, 0, 0]])
    game.page.keyboard.press("ArrowLeft")
    game.page.keyboard.press("ArrowUp")
    assert game.state()["log"] == ""


def _touch_swipe(page, x0, y0, x1, y1, steps=6):
    cdp = page.context.new_cdp_session(page)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x0, "y": y0}]})
    for i in range(1, steps + 1):
        x, y = x0 + (x1 - x0) * i / steps, y0 + (y1 - y0) * i / steps
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y}]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    cdp.detach()


PHONE = {"viewport": {"width": 360, "height": 560}, "has_touch": True, "is_mobile": True}


@pytest.mark.parametrize("game", [PHONE], indirect=True)
def test_swipes_move_and_do_not_scroll_the_page(game):
    game.open()
    page = game.page
    board = page.get_by_test_id("board")
    board.scroll_into_view_if_needed()
    box = board.bounding_box()
    cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    for (dx, dy), letter in (((0, -1), "U"), ((0, 1), "D"), ((-1, 0), "L"), ((1, 0), "R")):
        game.load(CENTRE)
        scroll = page.evaluate("[scrollX, scrollY]")
        _touch_swipe(page, cx - dx * 60, cy - dy * 60, cx + dx * 60, cy + dy * 60)
        page.wait_for_timeout(50)
        assert game.state()["log"] == letter
        assert page.evaluate("[scrollX, scrollY]") == scroll


def test_a_mouse_drag_on_the_board_is_a_swipe(game):
    game.open()
    game.load(CENTRE)
    box = game.page.get_by_test_id("board").bounding_box()
    cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    mouse = game.page.mouse
    mouse.move(cx + 80, cy)
    mouse.down()
    mouse.move(cx - 80, cy, steps=5)
    mouse.up()
    assert game.state()["log"] == "L"


def test_win_banner_shows_once_and_keep_playing_continues(game):
    game.open()
    game.load([[128, 128, 0], [0, 0, 0], [0, 0, 0]])
    banner = game.page.locator("#win")
    game.page.keyboard.press("ArrowLeft")
    assert game.state()["won"] is True
    assert banner.is_visible()
    assert "256" in banner.inner_text()
    assert "You made 256!" in game.page.locator("#announcer").inner_text()
    game.page.keyboard.press("ArrowRight")  # the banner waits for an answer
    assert game.state()["log"] == "L"
    game.page.get_by_role("button", name="Keep playing").click()
    assert banner.is_hidden()
    moved = [game.page.evaluate(f"window.game2048.move('{d}')") for d in ("right", "left", "up", "down")]
    assert any(moved)
    assert banner.is_hidden()
    assert game.state()["won"] is True


def test_game_over_overlay_and_try_again(game):
    game.open()
    # left leaves the board full with no equal neighbours, whichever tile appears
    game.load([[2, 4, 2], [4, 2, 8], [0, 16, 32]])
    game.page.keyboard.press("ArrowLeft")
    state = game.state()
    assert state["over"] is True
    overlay = game.page.locator("#over")
    assert overlay.is_visible()
    assert "No moves left" in game.page.locator("#announcer").inner_text()
    game.page.get_by_role("button", name="Try again").click()
    assert overlay.is_hidden()
    assert game.state()["log"] == "" and game.state()["over"] is False


def test_undo_counts_down_restores_and_unranks(game):
    game.open()
    game.load(CENTRE)
    undo = game.page.locator("#undo")
    for key in ("ArrowLeft", "ArrowUp", "ArrowRight", "ArrowDown"):
        game.page.keyboard.press(key)
    before = game.state()
    assert "3" in undo.inner_text()
    for left in (2, 1, 0):
        undo.click()
        assert game.state()["undosLeft"] == left
        assert str(left) in undo.inner_text()
    assert undo.is_disabled()
    after = game.state()
    assert after["log"] == before["log"] + "ZZZ"
    assert after["ranked"] is False


def test_r_asks_before_replacing_a_game_in_progress(game):
    game.open()
    page = game.page
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowUp")
    log = game.settled()["log"]
    assert log
    page.keyboard.press("r")
    dialog = page.locator("#confirm")
    assert dialog.is_visible()
    page.keyboard.press("Escape")
    assert dialog.is_hidden()
    assert game.state()["log"] == log
    page.keyboard.press("r")
    page.locator("#confirm").get_by_role("button", name="New game").click()
    page.wait_for_function("() => window.game2048.state().log === ''")
    assert page.locator("#confirm").is_hidden()


def test_every_control_is_a_button_reachable_with_tab(game):
    game.open()
    game.load(CENTRE)
    page = game.page
    page.keyboard.press("ArrowLeft")  # so that undo is enabled
    ids = set()
    for _ in range(40):
        page.keyboard.press("Tab")
        ids.add(page.evaluate("document.activeElement.id || document.activeElement.dataset.size || "
                              "document.activeElement.hreflang || document.activeElement.tagName"))
    wanted_ids = ("new-game", "undo", "daily", "hint", "autoplay", "name", "3", "6", "board-reader",
                  "he", "th")
    for wanted in wanted_ids:
        assert wanted in ids
    tags = page.evaluate(
        "[...document.querySelectorAll('.controls > *, .choosers [data-size]')].map(e => e.tagName)")
    assert set(tags) == {"BUTTON"}
    # the language choice is a link: it works before (and without) any script
    assert page.evaluate("[...document.querySelectorAll('.languages a')].map(a => a.hreflang)") == [
        "en", "he", "ru", "th"]


@pytest.mark.parametrize("button", ["#new-game", "#daily"])
def test_buttons_that_end_a_game_in_progress_ask_first(game, button):
    game.open()
    page = game.page
    for key in ("ArrowLeft", "ArrowRight", "ArrowUp"):
        page.keyboard.press(key)
    log = game.settled()["log"]  # every key answered
    assert log
    page.locator(button).click()
    confirm = page.locator("#confirm")
    assert confirm.is_visible()
    confirm.get_by_role("button", name="Keep this game").click()
    assert confirm.is_hidden()
    assert game.state()["log"] == log
    # focus goes back to the button
    page.wait_for_function("id => document.activeElement.id === id", arg=button[1:])
    page.locator(button).click()
    confirm.get_by_role("button", name="New game").click()
    page.wait_for_function("() => window.game2048.state().log === ''")
    if button == "#daily":
        page.wait_for_function("() => window.game2048.state().mode === 'daily'")


def test_a_fresh_game_is_replaced_without_asking(game):
    game.open()
    game.page.locator("#new-game").click()
    assert game.page.locator("#confirm").is_hidden()


def test_escape_on_the_name_dialog_stores_no_name(game):
    game.page.add_init_script("localStorage.removeItem('game2048:name')")
    game.open()
    game.page.locator("#name").click()
    dialog = game.page.locator("#nickname")
    assert dialog.is_visible()
    game.page.keyboard.press("Escape")
    assert dialog.is_hidden()
    game.page.wait_for_timeout(100)
    assert game.storage("game2048:name") is None
    game.page.locator("#name").click()
    dialog.get_by_role("button", name="Stay anonymous").click()
    game.page.wait_for_function("() => localStorage.getItem('game2048:name') !== null")
    assert game.storage("game2048:name") == '"Anonymous"'


def test_no_board_text_shows_through_game_over_and_its_words_leave_with_the_game(game):
    game.open()
    game.load([[2, 4, 2], [4, 2, 8], [0, 16, 32]])
    game.page.keyboard.press("ArrowLeft")
    assert game.page.locator("#over").is_visible()
    backgrounds = game.page.evaluate("""() => [...document.querySelectorAll('#over > h2, #over > p')]
        .filter(el => el.textContent.trim()).map(el => getComputedStyle(el).backgroundColor)""")
    opaque = [not b.startswith("rgba") or b.endswith(", 1)") for b in backgrounds]
    assert backgrounds and all(opaque), backgrounds
    # the finished practice game is sent and kept: the page says so under it
    game.page.wait_for_function("() => document.getElementById('message').textContent.includes('recorded')")
    game.page.get_by_role("button", name="Try again").click()
    assert game.page.locator("#message").inner_text() == ""
