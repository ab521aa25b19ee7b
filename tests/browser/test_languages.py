"""Languages: the page arrives in the player's language (lang, dir and every word in
the HTML, before any script), chosen by ?lang=, then the remembered choice, then
Accept-Language, then English; Hebrew is right to left with a left-to-right board."""

from __future__ import annotations

import re
import urllib.request

import pytest

pytestmark = pytest.mark.browser

NEW_GAME = {"en": "New game", "he": "משחק חדש", "ru": "Новая игра", "th": "เกมใหม่"}
DIRS = {"en": "ltr", "he": "rtl", "ru": "ltr", "th": "ltr"}


def raw_page(base_url: str, query: str = "", headers: dict[str, str] | None = None) -> str:
    """The HTML of / exactly as the server sends it: what a player sees before scripts run."""
    request = urllib.request.Request(f"{base_url}/{query}", headers=headers or {})
    with urllib.request.urlopen(request, timeout=10) as r:
        return r.read().decode()


def html_lang(html: str) -> tuple[str, str]:
    m = re.search(r'<html lang="(\w+)" dir="(\w+)">', html)
    assert m, html[:200]
    return m.group(1), m.group(2)


@pytest.mark.parametrize("lang", NEW_GAME)
def test_the_raw_html_is_in_the_language_asked_for(base_url, lang):
    html = raw_page(base_url, f"?lang={lang}")
    assert html_lang(html) == (lang, DIRS[lang])
    assert f'<button type="button" id="new-game">{NEW_GAME[lang]}</button>' in html
    for other, word in NEW_GAME.items():
        if other != lang and word not in NEW_GAME[lang]:
            assert f">{word}<" not in html, (lang, other)


@pytest.mark.parametrize(("header", "lang"), [
    ("ru-RU,ru;q=0.9,en;q=0.5", "ru"), ("th", "th"), ("fr-FR, he;q=0.8", "he"), ("fr, de", "en"), ("", "en"),
])
def test_without_a_choice_the_browser_languages_decide(base_url, header, lang):
    html = raw_page(base_url, headers={"Accept-Language": header} if header else {})
    assert html_lang(html)[0] == lang
    assert NEW_GAME[lang] in html


def test_the_choice_order_is_parameter_then_cookie_then_browser(base_url):
    both = {"Accept-Language": "ru", "Cookie": "lang=th"}
    assert html_lang(raw_page(base_url, headers=both))[0] == "th"
    assert html_lang(raw_page(base_url, "?lang=he", headers=both))[0] == "he"
    # the content pages decide the same way
    for path in ("rules", "leaderboard"):
        assert html_lang(raw_page(base_url, path, headers=both))[0] == "th"
        assert html_lang(raw_page(base_url, f"{path}?lang=he", headers=both))[0] == "he"


@pytest.mark.parametrize("game", [{"locale": "th-TH"}], indirect=True)
def test_the_browser_language_is_the_default(game):
    game.open()
    assert game.page.evaluate("document.documentElement.lang") == "th"


def test_only_the_active_language_loads(game):
    requests: list[str] = []
    game.page.on("request", lambda r: requests.append(r.url))
    game.open("?lang=ru")
    game.page.keyboard.press("ArrowLeft")
    assert not [u for u in requests if "/i18n/" in u], requests
    embedded = game.page.evaluate("JSON.parse(document.getElementById('strings').textContent)")
    assert embedded["lang"] == "ru" and embedded["strings"]["newGame"] == NEW_GAME["ru"]
    html = game.page.content()
    for lang in ("he", "th"):
        assert NEW_GAME[lang] not in html


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
    page.keyboard.press("ArrowLeft")
    board = game.settled()["board"]  # the move's tile dealt
    page.locator("footer a[hreflang='ru']").click()
    page.wait_for_function("() => document.documentElement.lang === 'ru' && window.game2048 !== undefined")
    assert page.locator("#new-game").inner_text() == NEW_GAME["ru"]
    assert game.settled()["board"] == board, "changing the language keeps the game"
    page.goto(game.base_url + "/")
    page.wait_for_function("() => window.game2048 !== undefined")
    assert page.evaluate("document.documentElement.lang") == "ru"
    assert page.locator("footer a[aria-current='true']").get_attribute("hreflang") == "ru"


def test_the_page_names_its_other_languages_with_absolute_addresses(base_url):
    html = raw_page(base_url, "?lang=en")
    links = dict(re.findall(r'<link rel="alternate" hreflang="([\w-]+)" href="([^"]+)">', html))
    assert set(links) == {"en", "he", "ru", "th", "x-default"}
    assert all(href.startswith(base_url + "/") for href in links.values()), links
    assert links["he"] == f"{base_url}/?lang=he"
