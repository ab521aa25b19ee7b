"""axe-core on every page, light and dark, in Latin, Hebrew and Thai script (and
Russian; a game's review page with its chart and board), with the game's win banner and game-over
overlay up: no serious or
critical violation (WCAG 2.1 AA and axe's best practices).

axe-core comes from node_modules (``npm ci``, which ``scripts/test.sh`` runs);
it is injected into the page with Content-Security-Policy bypassed, since the
site's own policy rightly forbids injected scripts.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"
PAGES = ["/", "/leaderboard", "/games/{id}", "/games/{id}/review", "/rules", "/strategy", "/boards",
         "/solver"]
#: Latin, Hebrew and Thai script on every page; Russian (Cyrillic, long words) where the layout is tightest.
CASES = [(path, lang) for path in PAGES for lang in ("en", "he", "th")] + [("/", "ru"), ("/rules", "ru")]
#: A move left makes 2048 (the win banner); a full board without a pair (game over).
WINNING = [[1024, 1024, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 2]]
DEAD = [[2, 4, 8, 16], [32, 64, 128, 256], [512, 1024, 2048, 4096], [8192, 16384, 32768, 65536]]


@pytest.fixture(scope="module")
def axe_source() -> str:
    if not AXE.is_file():
        pytest.skip(f"axe-core is not installed at {AXE} (run npm ci, as scripts/test.sh does)")
    return AXE.read_text()


def serious_violations(page, axe_source: str) -> list[str]:
    """Run axe on the page as it is now; one line per serious or critical violation."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(content=axe_source)
    result = page.evaluate("""() => axe.run(document, {
        runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']},
        resultTypes: ['violations'],
    })""")
    out = []
    for v in result["violations"]:
        if v["impact"] in ("serious", "critical"):
            for node in v["nodes"][:5]:
                summary = node.get("failureSummary", "")[:200]
                out.append(f"{v['id']} ({v['impact']}): {node['target']} {summary}")
    return out


@pytest.fixture(params=["light", "dark"])
def themed(request, browser):
    context = browser.new_context(color_scheme=request.param, bypass_csp=True,
                                  viewport={"width": 412, "height": 900}, reduced_motion="reduce")
    context.add_init_script("localStorage.setItem('game2048:name', '\"tester\"')")
    yield context.new_page()
    context.close()


@pytest.mark.parametrize(("path", "lang"), CASES)
def test_no_serious_violations_on_any_page(themed, base_url, finished_game, axe_source, path, lang, request):
    page = themed
    if path.endswith("/review"):
        request.getfixturevalue("reviewed_game")  # the review itself, not the page that waits for it
    page.goto(f"{base_url}{path.format(id=finished_game)}?lang={lang}")
    page.wait_for_load_state("load")
    assert serious_violations(page, axe_source) == []


@pytest.mark.parametrize("lang", ["en", "he", "th"])
def test_no_serious_violations_with_the_overlays_up(themed, base_url, axe_source, lang):
    page = themed
    page.goto(f"{base_url}/?lang={lang}")
    page.wait_for_function("() => window.game2048 !== undefined")
    page.evaluate("b => window.game2048.load(b)", WINNING)
    page.keyboard.press("ArrowLeft")
    assert page.locator("#win").is_visible()
    assert serious_violations(page, axe_source) == []
    page.evaluate("b => window.game2048.load(b)", DEAD)
    assert page.locator("#over").is_visible()
    assert serious_violations(page, axe_source) == []
    # the dialogs too
    page.locator("#try-again").click()
    page.locator("#name").click()
    assert page.locator("#nickname").is_visible()
    assert serious_violations(page, axe_source) == []


@pytest.mark.parametrize("lang", ["en", "he", "ru", "th"])
def test_no_serious_violations_on_my_games_and_the_analysis_board(themed, base_url, reviewed_game, axe_source,
                                                                  lang):
    page = themed
    mine = [{"key": reviewed_game, "id": reviewed_game, "size": 4, "score": 6140, "maxTile": 512,
             "moves": 480, "ranked": True, "mode": "classic", "at": "2026-11-30T10:00:00.000Z",
             "accuracy": 71.5},
            {"key": "practice-1-2-3", "id": None, "size": 5, "score": 1234, "maxTile": 128, "moves": 200,
             "ranked": False, "mode": "classic", "at": "2026-12-01T10:00:00.000Z"}]
    page.goto(f"{base_url}/me?lang={lang}")
    page.evaluate("m => localStorage.setItem('game2048:mine', JSON.stringify(m))", mine)
    page.reload()
    page.wait_for_function("() => !document.getElementById('me-data').hidden")
    assert serious_violations(page, axe_source) == []
    page.goto(f"{base_url}/me?lang={lang}")
    page.evaluate("() => localStorage.removeItem('game2048:mine')")
    page.reload()
    assert serious_violations(page, axe_source) == []
    page.goto(f"{base_url}/games/{reviewed_game}/review?lang={lang}#m5")
    page.wait_for_selector("ol.moves button[aria-current]")
    assert serious_violations(page, axe_source) == []
