"""A visitor reports a game from its page in a real browser, and an operator signs in to /mod and
finds it in the queue, decides, and sees the action in the audit log."""

from __future__ import annotations

import pytest

from .conftest import MOD_PASSWORD

pytestmark = pytest.mark.browser


def test_a_report_from_a_game_page_reaches_the_operators_queue(browser, base_url, finished_game):
    visitor = browser.new_context()
    page = visitor.new_page()
    page.goto(f"{base_url}/games/{finished_game}?lang=en#report")
    assert page.locator("details#report").get_attribute("open") is not None  # #report opens it
    page.get_by_label("It plays like a program").check()
    page.get_by_role("button", name="Send the report").click()
    page.get_by_text("a person will look at this game").wait_for()
    visitor.close()

    operator = browser.new_context()
    page = operator.new_page()
    page.goto(f"{base_url}/mod")
    page.get_by_label("Your name").fill("Tess")
    page.get_by_label("Password").fill(MOD_PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    case = page.locator(f'[data-testid="mod-case"][data-game="{finished_game}"]')
    case.wait_for()
    assert "reported (1): program" in case.inner_text()
    case.get_by_label("Why").fill("looked at the replay: a person")
    case.get_by_role("button", name="Decide").click()  # the first action: keep it on the players' board
    page.get_by_test_id("mod-done").wait_for()
    assert page.locator(f'[data-game="{finished_game}"]').count() == 0
    log = page.get_by_test_id("mod-log").inner_text()
    assert "Tess" in log and "looked at the replay: a person" in log
    operator.close()
