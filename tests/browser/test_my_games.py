"""My games: the games this browser finished, from its own storage."""

import json

import pytest

pytestmark = pytest.mark.browser

PLAY_TO_THE_END = """async () => {
    const g = window.game2048;
    for (let i = 0; i < 2000 && !g.state().over; i++) {
        g.move('left') || g.move('down') || g.move('right') || g.move('up');
        await g.settled();
    }
}"""


def test_my_games_lists_two_finished_games_with_their_best_and_links(game):
    game.open("?lang=en")
    for _ in range(2):
        game.ranked()
        game.page.evaluate(PLAY_TO_THE_END)
        game.page.wait_for_function("() => localStorage.getItem('game2048:queue') === '[]'")
        game.page.wait_for_function(
            "() => (JSON.parse(localStorage.getItem('game2048:mine')) || []).every((g) => g.id)")
        game.page.locator("#try-again").click()
    mine = game.page.evaluate("JSON.parse(localStorage.getItem('game2048:mine'))")
    assert len(mine) == 2 and all(g["size"] == 4 and g["id"] for g in mine)
    game.page.goto(f"{game.base_url}/me")
    game.page.wait_for_function("() => !document.getElementById('me-data').hidden")
    assert game.page.locator("[data-testid='me-count']").inner_text() == "2"
    best = max(g["score"] for g in mine)
    assert f"{best:,}" in game.page.locator("#me-best").inner_text()
    rows = game.page.locator("[data-testid='me-games'] tr")
    assert rows.count() == 2
    hrefs = {a.get_attribute("href") for a in game.page.locator("[data-testid='me-games'] a").all()}
    assert {f"/games/{g['id']}/review" for g in mine} <= hrefs
    assert {f"/games/{g['id']}" for g in mine} <= hrefs
    game.page.locator("#me-clear").click()
    assert game.page.locator("[data-testid='me-empty']").is_visible()
    assert game.page.evaluate("localStorage.getItem('game2048:mine')") is None


def test_my_games_is_linked_from_every_page(game):
    game.page.goto(f"{game.base_url}/rules")
    assert game.page.locator("nav.main a[href='/me']").count() == 1


def _strings(lang: str) -> dict[str, str]:
    from game2048.server.site.i18n import strings

    return strings(lang)


def test_my_names_shows_each_key_as_a_recovery_code_that_brings_the_name_to_another_browser(game, browser):
    game.open("?lang=en")
    game.ranked()
    for key in ["ArrowLeft", "ArrowDown", "ArrowRight", "ArrowDown"]:
        game.page.keyboard.press(key)
    game.settled()
    game.new_game()  # the game is sent under the tester's name, which it takes
    game.page.wait_for_function(
        "(name) => (JSON.parse(localStorage.getItem('game2048:nameKeys')) || {})[name]", arg=game.name,
        timeout=120_000)
    key = json.loads(game.storage("game2048:nameKeys"))[game.name]
    game.page.goto(f"{game.base_url}/me?lang=en")
    rows = game.page.locator("[data-testid='me-names'] tr")
    rows.first.wait_for()
    assert rows.count() == 1 and rows.first.locator("th").inner_text() == game.name
    assert rows.first.locator("code").inner_text() == key

    # another browser, with nothing of the first: the code is typed as people copy it
    other = browser.new_context()
    try:
        page = other.new_page()
        page.goto(f"{game.base_url}/me?lang=ru")
        assert page.locator("#me-names-none").is_visible()
        page.locator("#me-code").fill("  " + key.upper()[:16] + " " + key[16:])
        page.locator("#me-recover button[type='submit']").click()
        page.locator("[data-testid='me-names'] tr").first.wait_for()
        ru = _strings("ru")
        assert page.locator("#me-status").inner_text().startswith(ru["me_recovered"].split("{")[0])
        assert page.evaluate("JSON.parse(localStorage.getItem('game2048:nameKeys'))") == {game.name: key}
        assert page.evaluate("JSON.parse(localStorage.getItem('game2048:name'))") == game.name
        # a code of the wrong shape is never sent
        asked: list[str] = []
        page.on("request", lambda r: asked.append(r.url) if "/api/names/" in r.url else None)
        page.locator("#me-code").fill("not a code")
        page.locator("#me-recover button[type='submit']").click()
        assert page.locator("#me-status").inner_text() == ru["me_code_bad"]
        assert page.locator("#me-code").get_attribute("aria-invalid") == "true" and asked == []

        # the holder lets the name go: asked first, then the name is free for anyone
        page.once("dialog", lambda d: d.accept())
        page.locator("[data-testid='me-names'] button").click()
        page.wait_for_function("() => !document.getElementById('me-names-none').hidden")
        said = page.locator("#me-status").inner_text().replace("\u2068", "").replace("\u2069", "")
        assert said == ru["me_released"].replace("{name}", game.name)
        assert page.evaluate("JSON.parse(localStorage.getItem('game2048:nameKeys'))") == {}
    finally:
        other.close()

    # the first browser's code holds nothing now: it says so in its words
    game.network_cut = True  # the server's 404 for the code is the answer expected
    game.page.locator("#me-code").fill(key)
    game.page.locator("#me-recover button[type='submit']").click()
    game.page.wait_for_function("() => document.getElementById('me-status').textContent !== ''")
    assert game.page.locator("#me-status").inner_text() == _strings("en")["me_code_unknown"]
    assert game.page.locator("#me-code").get_attribute("aria-invalid") == "true"
