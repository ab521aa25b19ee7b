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


def test_the_graph_is_a_slider_a_click_picks_a_move_and_the_keys_step_it(phone, base_url, reviewed_game):
    phone.goto(f"{base_url}/games/{reviewed_game}/review")
    graph = phone.locator("[data-testid='graph-svg']")
    graph.wait_for()
    moves = _moves(phone)
    box = graph.bounding_box()
    graph.click(position={"x": box["width"] * 0.75, "y": box["height"] / 2})
    now = int(graph.get_attribute("aria-valuenow"))
    assert moves[0]["n"] < now and now == int(phone.locator("ol.moves button[aria-current] .n").inner_text())
    assert phone.evaluate("document.activeElement.getAttribute('data-testid')") == "graph-svg"
    phone.keyboard.press("ArrowRight")  # the page's keys step from the graph too
    assert int(graph.get_attribute("aria-valuenow")) > now
    marked = [m for m in moves if m["class"] in ("mistake", "blunder")]
    assert phone.locator("svg.graph path.graph-dots").count() == len({m["class"] for m in marked})


def test_the_graph_of_a_20000_move_game_draws_within_100_ms_on_a_slow_phone(phone, base_url, reviewed_game):
    """What a 20,000-move game sends: its curve (400 points at most) and its 100 worst moves."""
    phone.goto(f"{base_url}/games/{reviewed_game}/review")
    cdp = phone.context.new_cdp_session(phone)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": 4})  # Lighthouse's phone profile
    took = phone.evaluate("""async () => {
        const { Graph } = await import(document.querySelector('script[type=module]').src
            .replace('review.js', 'review_graph.js'));
        const last = 20000;
        const curve = { n: [], a: [] };
        for (let i = 0; i < 400; i++) { curve.n.push(1 + i * 50); curve.a.push(50 + 40 * Math.sin(i / 7)); }
        const moves = [];
        for (let i = 0; i < 100; i++) moves.push({ n: 1 + i * 199, class: i % 3 ? 'mistake' : 'blunder' });
        const data = { last, curve, moves, t: { graph_label: 'g', graph_value: 'move {n}' } };
        const figure = document.createElement('figure');
        document.body.append(figure);
        const start = performance.now();
        const graph = new Graph(document, figure, data, () => {});
        graph.show(50);
        figure.getBoundingClientRect();  // layout included
        return performance.now() - start;
    }""")
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": 1})
    print(f"graph of a 20,000-move game drawn in {took:.1f} ms at 4x CPU throttling")
    assert took < 100, took


def test_the_better_move_is_played_out_with_the_solvers_line_and_back(phone, base_url, reviewed_game):
    phone.goto(f"{base_url}/games/{reviewed_game}/review")
    moves = _moves(phone)
    wrong = next(m for m in moves if m["played"] != m["best"] and not m["undone"])
    phone.goto(f"{base_url}/games/{reviewed_game}/review#m{wrong['n']}")
    phone.wait_for_selector("ol.moves button[aria-current]")
    board = ("() => [...document.querySelectorAll('[data-testid=board] .tile')]"
             ".map(t => t.textContent + t.className).sort().join()")
    before = phone.evaluate(board)
    phone.locator("[data-testid='try-best']").click()
    phone.wait_for_function("() => document.querySelectorAll('#line-steps button').length >= 2",
                            timeout=60_000)
    first = phone.locator("#line-steps button").first.get_attribute("aria-label")
    words = phone.evaluate("JSON.parse(document.getElementById('review-data').textContent).t")
    assert first.endswith(words[wrong["best"]])
    assert phone.evaluate(board) != before
    phone.locator("[data-testid='line-back']").click()
    assert phone.evaluate(board) == before
    assert phone.locator("#line-steps button").count() == 0
