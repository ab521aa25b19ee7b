"""The server's refusals reach the player in the page's language, never in the server's English."""

import json
import re

import pytest

pytestmark = pytest.mark.browser

DAILY_REFUSAL = {
    "error": "you have started today's 4x4 daily game 3 times; the next one comes at 00:00 UTC",
    "code": "daily_tries_used", "size": 4, "tries": 3, "retry_after": 3600, "next_at": "2030-01-02T00:00:00Z",
}


def _refuse_daily(route) -> None:
    body = json.loads(route.request.post_data or "{}")
    if route.request.method == "POST" and body.get("mode") == "daily":
        route.fulfill(status=429, content_type="application/json", body=json.dumps(DAILY_REFUSAL),
                      headers={"Retry-After": "3600"})
    else:
        route.continue_()


@pytest.mark.parametrize("game", [{"timezone_id": "Asia/Jerusalem"}], indirect=True)
def test_the_daily_limit_is_said_in_hebrew_with_the_local_time(game):
    game.network_cut = True  # the refused request is logged as a failed resource: expected
    game.page.route("**/api/games", _refuse_daily)
    game.open("?lang=he")
    game.page.locator("#daily").click()
    message = game.page.locator("#message")
    message.wait_for()
    game.page.wait_for_function("() => document.getElementById('message').textContent !== ''")
    text = message.inner_text()
    assert re.search("[\u0590-\u05ff]", text), text  # Hebrew letters
    assert "4×4" in text and "2:00" in text, text  # midnight UTC is 2:00 in Jerusalem in winter
    assert "UTC" not in text and "daily game" not in text, text


def test_an_unknown_refusal_gets_the_general_sentence_in_russian(game):
    def refuse(route):
        route.fulfill(status=429, content_type="application/json",
                      body=json.dumps({"error": "something new in English", "code": "brand_new"}))

    game.network_cut = True
    game.page.route("**/api/games", lambda r: refuse(r) if r.request.method == "POST" else r.continue_())
    game.open("?lang=ru")
    game.page.locator("#daily").click()
    game.page.wait_for_function("() => document.getElementById('message').textContent !== ''")
    text = game.page.locator("#message").inner_text()
    assert re.search("[а-яё]", text) and "English" not in text, text
