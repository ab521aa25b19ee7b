"""Languages: English, Hebrew (right to left, with a left-to-right board), Russian, Thai."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

NEW_GAME = {"en": "New game", "he": "משחק חדש", "ru": "Новая игра", "th": "เกมใหม่"}


@pytest.mark.parametrize("lang", NEW_GAME)
def test_lang_parameter_translates_the_page(game, lang):
    game.open(f"?lang={lang}")
    page = game.page
    assert page.evaluate("document.documentElement.lang") == lang
    assert page.locator("#new-game").inner_text() == NEW_GAME[lang]


def test_hebrew_is_right_to_left_and_the_board_left_to_right(game):
    game.open("?lang=he")
    page = game.page
    assert page.evaluate("document.documentElement.dir") == "rtl"
    assert page.evaluate("getComputedStyle(document.body).direction") == "rtl"
    board = page.get_by_test_id("board")
    assert board.evaluate("e => getComputedStyle(e).direction") == "ltr"
    # left is still left: a lone tile goes to column 0
    game.load([[0, 0, 0], [0, 2, 0], [0, 0, 0]])
    page.keyboard.press("ArrowLeft")
    assert game.state()["board"][1][0] == 2


def test_the_chooser_switches_language_and_remembers_it(game):
    game.open("")
    page = game.page
    page.locator("[data-lang='ru']").click()
    assert page.evaluate("document.documentElement.lang") == "ru"
    assert page.locator("#new-game").inner_text() == NEW_GAME["ru"]
    page.goto(game.base_url + "/")
    page.wait_for_function("() => window.game2048 !== undefined")
    assert page.evaluate("document.documentElement.lang") == "ru"


@pytest.mark.parametrize("game", [{"locale": "th-TH"}], indirect=True)
def test_the_browser_language_is_the_default(game):
    game.open()
    assert game.page.evaluate("document.documentElement.lang") == "th"


def test_every_language_has_every_string(game):
    game.open()
    missing = game.page.evaluate("""async () => {
        const { LANGUAGES } = await import('/static/js/i18n.js');
        const keys = Object.keys(LANGUAGES.en.strings);
        const out = {};
        for (const [code, pack] of Object.entries(LANGUAGES)) {
            out[code] = keys.filter(k => !pack.strings[k]);
        }
        return out;
    }""")
    assert missing == {"en": [], "he": [], "ru": [], "th": []}
