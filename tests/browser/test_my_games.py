"""My games: the games this browser finished, from its own storage."""

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
