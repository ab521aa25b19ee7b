"""Names in Chromium: the browser's own Unicode is newer than the server's Python, yet the page
cleans every shared case as the server does, and a name the server would refuse never costs
a ranked game."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

VECTORS_FILE = Path(__file__).resolve().parents[1] / "vectors" / "names.json"
VECTORS = json.loads(VECTORS_FILE.read_text(encoding="utf-8"))

RUN_VECTORS = """async (cases) => {
  const icon = document.querySelector('link[rel="icon"]').href; // this release's static folder
  const { cleanName } = await import(icon.replace(/icons\\/[^/]*$/, 'js/names.js'));
  return cases.map((c) => cleanName(c.typed));
}"""


def test_chromium_cleans_every_shared_case_as_the_server_does(game):
    game.open()
    got = game.page.evaluate(RUN_VECTORS, VECTORS["cases"])
    for case, js in zip(VECTORS["cases"], got, strict=True):
        if "stored" in case:
            assert js == {"name": case["stored"]}, case["why"]
        else:
            want = {"code": case["refused"]} | {k: case[k] for k in ("char", "length") if k in case}
            assert js == want, case["why"]


def test_a_saved_name_the_server_refuses_is_replaced_before_the_game_is_sent(game):
    game.open()
    # a name an older page kept: U+F8FF is private use, which the server refuses
    game.page.evaluate("localStorage.setItem('game2048:name', JSON.stringify('Mac\\uf8ff'))")
    game.page.reload()
    game.page.wait_for_function("() => window.game2048 !== undefined")
    game.ranked()
    for key in ["ArrowLeft", "ArrowDown", "ArrowRight", "ArrowDown"]:
        game.page.keyboard.press(key)
    game.settled()
    game.new_game()
    dialog = game.page.locator("#nickname")
    dialog.wait_for(state="visible")
    assert "U+F8FF" in game.page.locator("#nickname-help").inner_text()
    assert game.page.locator("#nickname-input").get_attribute("aria-invalid") == "true"
    assert len(json.loads(game.storage("game2048:queue"))) == 1  # kept, not dropped
    game.page.locator("#nickname-input").fill("Mac")
    dialog.get_by_role("button", name="Save").click()
    game.page.wait_for_function("() => localStorage.getItem('game2048:queue') === '[]'")
    assert json.loads(game.storage("game2048:name")) == "Mac"
