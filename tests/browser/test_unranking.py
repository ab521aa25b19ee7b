"""The first undo or hint of a ranked game asks before it ends the ranking."""

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.ask_unranking]


def _moved(game) -> dict:
    game.open()
    game.ranked()
    game.page.evaluate("window.game2048.move('left') || window.game2048.move('right')")
    return game.settled()


def test_the_first_undo_of_a_ranked_game_asks_and_keep_it_ranked_undoes_nothing(game):
    before = _moved(game)
    game.page.locator("#undo").click()
    dialog = game.page.locator("#unrank")
    assert dialog.is_visible()
    assert "ranked" in dialog.inner_text()
    dialog.locator("button[value='no']").click()
    game.page.wait_for_function("() => !document.getElementById('unrank').open")
    after = game.settled()
    assert (after["undosLeft"], after["log"]) == (3, before["log"])
    assert game.page.locator("#status").get_attribute("data-ranked") == "true"


def test_going_ahead_undoes_and_the_next_undo_does_not_ask(game):
    _moved(game)
    game.page.locator("#undo").click()
    game.page.locator("#unrank button[value='yes']").click()
    game.page.wait_for_function("() => window.game2048.state().undosLeft === 2")
    game.page.evaluate("window.game2048.move('left') || window.game2048.move('right')")
    game.settled()
    game.page.locator("#undo").click()  # the game is no longer ranked: nothing to ask
    game.page.wait_for_function("() => window.game2048.state().undosLeft === 1")
    assert not game.page.locator("#unrank").is_visible()


def test_dont_ask_again_is_kept_in_the_browser(game):
    _moved(game)
    game.page.locator("#undo").click()
    game.page.locator("#unrank-stop").check()
    game.page.locator("#unrank button[value='yes']").click()
    game.page.wait_for_function("() => window.game2048.state().undosLeft === 2")
    assert game.storage("game2048:askUnranking") == "false"
    game.new_game()
    _moved(game)
    game.page.locator("#undo").click()
    game.page.wait_for_function("() => window.game2048.state().undosLeft === 2")
    assert not game.page.locator("#unrank").is_visible()


def test_the_first_hint_asks_too(game):
    _moved(game)
    game.page.locator("#hint").click()
    assert game.page.locator("#unrank").is_visible()
    game.page.locator("#unrank button[value='no']").click()
    game.page.wait_for_function("() => !document.getElementById('unrank').open")
    assert game.page.locator("#status").get_attribute("data-ranked") == "true"
