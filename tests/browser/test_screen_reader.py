"""What a screen reader user gets: the board as a grid of named cells, one polite
announcement per move (with the new tile), Score and Best that are not live
regions, the loss of ranking said once, and focus that never drops to the page."""

from __future__ import annotations

import pytest

from game2048 import slide

pytestmark = pytest.mark.browser

CENTRE = [[0, 0, 0, 0], [0, 2, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]
WINNING = [[1024, 1024, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 2]]

#: Records every text written into the announcer (emptying it first is not an announcement).
HEAR = """() => {
    window.heard = [];
    new MutationObserver(() => {
        const text = document.getElementById('announcer').textContent;
        if (text) window.heard.push(text);
    }).observe(document.getElementById('announcer'), {childList: true, characterData: true, subtree: true});
}"""


def heard(game) -> list[str]:
    game.page.wait_for_timeout(50)  # the announcement goes out at the end of the task
    return game.page.evaluate("window.heard.splice(0)")


def test_the_board_is_a_grid_of_named_cells(game):
    game.open("?lang=ru")
    game.load([[0, 0, 0], [0, 64, 0], [0, 0, 2]])
    grid = game.page.get_by_role("grid", name="Поле 3 на 3")
    assert grid.get_by_role("row").count() == 3
    assert grid.get_by_role("gridcell", name="ряд 2, столбец 2: 64").count() == 1
    assert grid.get_by_role("gridcell", name="ряд 1, столбец 1: пусто").count() == 1
    assert game.page.get_by_test_id("board").get_attribute("aria-hidden") == "true"


def test_each_move_is_one_announcement_with_the_new_tile(game):
    game.open()
    game.load([[2, 2, 0], [0, 0, 0], [0, 0, 4]])
    game.page.evaluate(HEAR)
    game.page.keyboard.press("ArrowLeft")
    said = heard(game)
    assert len(said) == 1, said
    board = game.state()["board"]
    new = next((r, c) for r in range(3) for c in range(3) if board[r][c] and (r, c) not in ((0, 0), (2, 0)))
    assert said[0] == (f"Moved left. Merged into 4. 4 points, score 4. "
                       f"New {board[new[0]][new[1]]} at row {new[0] + 1}, column {new[1] + 1}.")


def test_a_tile_the_server_deals_is_announced_with_its_move(game):
    game.open()
    before = game.ranked()["board"]
    game.page.evaluate(HEAR)
    direction = next(d for d in ("left", "down", "right", "up") if slide(before, d)[0] != before)
    game.page.keyboard.press(f"Arrow{direction.title()}")
    board = game.settled()["board"]
    said = heard(game)
    slid = slide(before, direction)[0]
    r, c = next((r, c) for r in range(4) for c in range(4) if board[r][c] != slid[r][c])
    assert len(said) == 1, said
    assert said[0].startswith(f"Moved {direction}.") and said[0].endswith(
        f"New {board[r][c]} at row {r + 1}, column {c + 1}."), said


def test_counted_words_agree_with_their_number(game):
    game.open("?lang=ru")
    game.load([[2, 2, 0], [0, 0, 0], [0, 0, 0]])
    game.page.evaluate(HEAR)
    game.page.keyboard.press("ArrowLeft")
    assert "4 очка, счёт 4." in heard(game)[0]


def test_score_and_best_are_not_live_regions(game):
    game.open()
    for box in ("#score", "#best"):
        el = game.page.locator(box)
        assert el.evaluate("e => e.tagName") != "OUTPUT"
        assert el.evaluate("e => e.closest('[aria-live], [role=status], output')") is None


def test_losing_the_ranking_is_said_once(game):
    game.open()
    game.page.wait_for_function("() => window.game2048.state().id !== null")
    for key in ("ArrowLeft", "ArrowRight", "ArrowLeft", "ArrowRight"):
        game.page.keyboard.press(key)
    game.settled()  # the last move's sentence went out with its tile
    game.page.evaluate(HEAR)
    game.page.locator("#undo").click()
    game.settled()  # the server took it back
    first = heard(game)
    assert len(first) == 1 and first[0].endswith("This game is no longer ranked."), first
    assert "2 undos left." in first[0]
    game.page.locator("#undo").click()
    game.settled()
    second = heard(game)
    assert len(second) == 1 and second[0].endswith(" 1 undo left."), second


def test_focus_stays_on_undo_after_the_last_undo(game):
    game.open()
    game.load(CENTRE)
    for key in ("ArrowLeft", "ArrowUp", "ArrowRight", "ArrowDown"):
        game.page.keyboard.press(key)
    undo = game.page.locator("#undo")
    undo.focus()
    for _ in range(3):
        game.page.keyboard.press("Enter")
    assert game.state()["undosLeft"] == 0
    assert game.page.evaluate("document.activeElement.id") == "undo"
    assert undo.get_attribute("aria-disabled") == "true"
    game.page.keyboard.press("Enter")  # a spent undo does nothing
    assert game.state()["undosLeft"] == 0


def test_focus_goes_to_the_board_after_keep_playing(game):
    game.open()
    game.load(WINNING)
    game.page.keyboard.press("ArrowLeft")
    assert game.page.evaluate("document.activeElement.id") == "keep-playing"
    game.page.keyboard.press("Enter")
    assert game.page.locator("#win").is_hidden()
    assert game.page.evaluate("document.activeElement.id") == "board-reader"
    game.page.keyboard.press("ArrowRight")  # and the board plays on from there
    assert game.state()["log"] == "LR"


def test_the_hint_is_said_without_a_double_space(game):
    game.open()
    game.page.wait_for_function("() => window.game2048.state().id !== null")
    game.page.evaluate(HEAR)
    game.page.locator("#hint").click()
    game.page.wait_for_function("() => document.getElementById('hint-out').textContent !== ''", timeout=30000)
    said = heard(game)
    assert said and said[-1].startswith("Hint: ") and "  " not in said[-1], said
    assert said[-1].endswith("This game is no longer ranked.")


def test_no_offline_note_flashes_while_the_server_deals_the_first_game(game):
    game.page.add_init_script("""
        window.statuses = [];
        document.addEventListener('DOMContentLoaded', () => new MutationObserver(() =>
            window.statuses.push(document.getElementById('status').textContent)
        ).observe(document.getElementById('status'), {childList: true, characterData: true, subtree: true}));
    """)
    game.open()
    game.page.wait_for_function("() => window.game2048.state().id !== null")
    statuses = game.page.evaluate("window.statuses")
    assert statuses and statuses[-1] == "Ranked game"
    assert not [s for s in statuses if "Offline" in s], statuses
