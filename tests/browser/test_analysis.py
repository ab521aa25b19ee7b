"""The review page as an analysis board on a 360 px phone: nothing past its footer, a move opened
from its address (#m<n>), a link to the move on the board, and the costliest moves as links."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

pytestmark = pytest.mark.browser

PHONE = {"width": 360, "height": 740}


@pytest.fixture
def phone(browser) -> Iterator:  # type: ignore[no-untyped-def]
    context = browser.new_context(viewport=PHONE)
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    p = context.new_page()
    errors: list[str] = []
    p.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    p.on("pageerror", lambda e: errors.append(str(e)))
    yield p
    context.close()
    assert errors == [], errors


def _moves(page) -> list[dict]:
    return page.evaluate("JSON.parse(document.getElementById('review-data').textContent).moves")


def test_the_phone_page_ends_at_its_footer(phone, base_url, reviewed_game):
    phone.goto(f"{base_url}/games/{reviewed_game}/review")
    phone.wait_for_selector("ol.moves button[aria-current]")
    bottom, height, width = phone.evaluate("""() => [
        document.querySelector('footer.site').getBoundingClientRect().bottom + scrollY,
        document.documentElement.scrollHeight, document.documentElement.scrollWidth]""")
    assert height <= bottom + 1, (height, bottom)
    assert width <= 360


def test_an_address_with_a_move_opens_at_that_move_and_the_link_copies_it(phone, base_url, reviewed_game):
    phone.goto(f"{base_url}/games/{reviewed_game}/review")
    moves = _moves(phone)
    target = moves[len(moves) // 2]
    phone.goto(f"{base_url}/games/{reviewed_game}/review#m{target['n']}")
    phone.wait_for_selector("ol.moves button[aria-current]")
    current = phone.locator("ol.moves button[aria-current] .n").inner_text()
    assert current == str(target["n"])
    # a step moves the address along, so what is kept or shared is the move on the board
    phone.keyboard.press("ArrowRight")
    following = moves[len(moves) // 2 + 1]["n"]
    assert phone.evaluate("location.hash") == f"#m{following}"
    phone.locator("[data-testid='copy-link']").click()
    phone.wait_for_function("() => document.getElementById('review-status').textContent.includes('#m')")
    copied = phone.evaluate("navigator.clipboard.readText()")
    assert copied.endswith(f"/games/{reviewed_game}/review#m{following}")


def test_the_costliest_moves_are_links_to_them_on_the_board(phone, base_url, reviewed_game):
    phone.goto(f"{base_url}/games/{reviewed_game}/review")
    links = phone.locator("[data-testid='costliest'] a")
    if links.count() == 0:
        pytest.skip("the solver found nothing to improve in this game")
    assert links.count() <= 3
    href = links.first.get_attribute("href")
    links.first.click()
    phone.wait_for_function("h => location.hash === h", arg=href)
    assert phone.locator("ol.moves button[aria-current] .n").inner_text() == href.removeprefix("#m")
    assert phone.locator("[data-testid='phase']").count() == 1
