"""Layout and comfort: a 320 px phone, huge tiles, screen readers, dark theme, reduced motion."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

PHONE = {"viewport": {"width": 320, "height": 640}}


def _board_with(size, value):
    board = [[0] * size for _ in range(size)]
    board[0][0] = value
    board[size - 1][size - 1] = 2
    return board


@pytest.mark.parametrize("game", [PHONE], indirect=True)
@pytest.mark.parametrize("lang", ["en", "he", "ru", "th"])
def test_a_320_pixel_screen_has_no_horizontal_scroll(game, lang):
    game.open(f"?lang={lang}")
    for size in (3, 4, 5, 6):
        game.page.locator(f"[data-size='{size}']").click()
        width = game.page.evaluate("document.scrollingElement.scrollWidth")
        assert width <= 320, (size, width)


@pytest.mark.parametrize("game", [PHONE], indirect=True)
@pytest.mark.parametrize(("size", "value"), [(4, 131072), (5, 2**26), (6, 2**37), (3, 1024)])
def test_the_largest_tiles_fit_their_cells(game, size, value):
    game.open()
    game.load(_board_with(size, value))
    exp = min(value.bit_length() - 1, 18)
    inner = game.page.locator(f".tile[data-exp='{exp}'] .tile-inner")
    fits = inner.evaluate("e => ({sw: e.scrollWidth, cw: e.clientWidth,"
                          " sh: e.scrollHeight, ch: e.clientHeight,"
                          " font: parseFloat(getComputedStyle(e).fontSize)})")
    assert fits["sw"] <= fits["cw"] and fits["sh"] <= fits["ch"], fits
    assert fits["font"] >= 9, fits
    assert inner.inner_text().replace("\n", "") == str(value)


def test_screen_readers_get_the_board_and_each_move(game):
    game.open()
    game.load([[2, 2, 0], [0, 0, 0], [0, 0, 4]])
    game.page.keyboard.press("ArrowLeft")
    said = game.page.locator("#announcer").inner_text()
    assert said.startswith("Moved left. Merged into 4. 4 points, score 4. New "), said
    board = game.state()["board"]
    old = ((0, 0), (2, 0))
    spawned = next((r, c) for r in range(3) for c in range(3) if board[r][c] and (r, c) not in old)
    assert f"at row {spawned[0] + 1}, column {spawned[1] + 1}." in said
    grid = game.page.get_by_role("grid", name="3 by 3 board")
    cells = grid.get_by_role("gridcell").all_inner_texts()
    named = [f"row {r + 1}, column {c + 1}: {board[r][c] or 'empty'}" for r in range(3) for c in range(3)]
    assert cells == named
    assert game.page.locator("#announcer").get_attribute("aria-live") == "polite"


@pytest.mark.parametrize("game", [{"color_scheme": "dark"}], indirect=True)
def test_dark_theme_follows_the_system(game):
    game.open()
    bg = game.page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert bg == "rgb(29, 27, 24)"


@pytest.mark.parametrize("game", [{"reduced_motion": "reduce"}], indirect=True)
def test_reduced_motion_turns_animation_off(game):
    game.open()
    game.load([[2, 2, 0], [0, 0, 0], [0, 0, 0]])
    game.page.keyboard.press("ArrowLeft")
    # no slide in flight: the merged and the new tile are there at once, without transitions
    assert game.page.locator(".tile").count() == 2
    assert game.page.locator(".tile").first.evaluate("e => getComputedStyle(e).transitionDuration") == "0s"


def test_focus_is_visible(game):
    game.open()
    game.page.keyboard.press("Tab")
    outline = game.page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert outline == "solid"


SIDEWAYS = {"viewport": {"width": 839, "height": 412}, "has_touch": True, "is_mobile": True}
NARROW = {"viewport": {"width": 360, "height": 740}}
CONTENT_PAGES = ["/leaderboard", "/me", "/games/{id}", "/games/{id}/review", "/rules", "/strategy", "/boards",
                 "/solver"]


def _rect(locator) -> dict:
    return locator.evaluate("e => { const r = e.getBoundingClientRect();"
                            " return {top: r.top, bottom: r.bottom, left: r.left, right: r.right}; }")


@pytest.mark.parametrize("game", [SIDEWAYS], indirect=True)
@pytest.mark.parametrize("lang", ["en", "he"])
def test_a_phone_held_sideways_shows_the_whole_board_beside_the_controls(game, lang):
    game.open(f"?lang={lang}")
    page = game.page
    for size in (3, 4, 5, 6):
        page.locator(f"[data-size='{size}']").click()
        board = _rect(page.get_by_test_id("board"))
        controls = _rect(page.locator(".controls"))
        assert page.evaluate("scrollY") == 0
        assert board["top"] >= 0 and board["bottom"] <= 412, board
        assert board["left"] >= 0 and board["right"] <= 839, board
        assert board["bottom"] - board["top"] >= 360, "the board takes the height"
        beside = board["left"] >= controls["right"] or board["right"] <= controls["left"]
        assert beside, (board, controls)


@pytest.mark.parametrize("game", [NARROW], indirect=True)
@pytest.mark.parametrize("lang", ["en", "he", "ru", "th"])
def test_no_page_is_wider_than_a_360_pixel_screen(game, reviewed_game, lang):
    # reviewed_game is finished_game once its review is made: the review page shows it, not the wait
    for path in ["/", *CONTENT_PAGES]:
        game.page.goto(f"{game.base_url}{path.format(id=reviewed_game)}?lang={lang}")
        width = game.page.evaluate("document.scrollingElement.scrollWidth")
        assert width <= 360, (path, width)


@pytest.mark.parametrize("game", [NARROW], indirect=True)
def test_wide_tables_scroll_inside_a_focusable_labelled_region_with_a_cue(game):
    page = game.page
    page.goto(f"{game.base_url}/strategy")
    regions = page.locator(".table-wrap")
    assert regions.count() >= 2
    labels = set()
    for i in range(regions.count()):
        region = regions.nth(i)
        assert region.get_attribute("role") == "region" and region.get_attribute("tabindex") == "0"
        labels.add(region.get_attribute("aria-label"))
        assert "gradient" in region.evaluate("e => getComputedStyle(e).backgroundImage")
    assert len(labels) == regions.count() and None not in labels, "each region has a name of its own"
    wide = page.locator(".table-wrap").filter(has=page.locator("td")).first
    assert wide.evaluate("e => e.scrollWidth > e.clientWidth")
    wide.focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function("e => e.scrollLeft > 0", arg=wide.element_handle())


@pytest.mark.parametrize("game", [NARROW], indirect=True)
def test_the_leaderboard_shows_rank_player_score_and_replay_first(game, finished_game):
    page = game.page
    page.goto(f"{game.base_url}/leaderboard")
    heads = page.locator("thead th").all_inner_texts()
    assert heads[:4] == ["#", "Player", "Score", "Replay"]
    link = page.locator(f"a[href='/games/{finished_game}']")
    assert _rect(link)["right"] <= 360, "the replay link is on screen without scrolling"
    review = page.locator(f"a[href='/games/{finished_game}/review']")
    assert _rect(review)["right"] <= 360, "so is the review link"
    assert _rect(review)["top"] == _rect(link)["top"], "Replay · Review stays on one line"


@pytest.mark.parametrize("game", [NARROW], indirect=True)
# (the review's graph has no text of its own: its words are its caption and its slider's value)
@pytest.mark.parametrize("path", ["/strategy", "/boards", "/solver"])
def test_chart_text_is_at_least_11_pixels_on_a_phone(game, path, request):
    if "{id}" in path:
        path = path.format(id=request.getfixturevalue("reviewed_game"))
    game.page.goto(f"{game.base_url}{path}")
    sizes = game.page.evaluate("""() => [...document.querySelectorAll('figure.chart svg text')]
        .filter(t => t.textContent.trim() && t.getBBox().width > 0)
        .map(t => {
            const m = t.getScreenCTM();  // the chart's scale on screen (and the slant of a label)
            return Math.hypot(m.a, m.b) * parseFloat(getComputedStyle(t).fontSize);
        })""")
    assert sizes, "the page has charts"
    assert min(sizes) >= 11, min(sizes)


@pytest.mark.parametrize("game", [NARROW], indirect=True)
def test_the_replay_page_draws_the_games_own_board(game, finished_game):
    page = game.page
    page.goto(f"{game.base_url}/games/{finished_game}")
    board = page.locator("#replay-board")
    assert board.evaluate("e => e.classList.contains('board')")
    cells = board.locator(".cell")
    n = cells.count()
    assert n == 16
    heights = {round(cells.nth(i).evaluate("e => e.getBoundingClientRect().height")) for i in range(n)}
    assert len(heights) == 1, "every row is as tall as the others"
    colours = set(board.locator(".tile-inner").evaluate_all(
        "els => els.map(e => getComputedStyle(e).backgroundColor)"))
    values = set(board.locator(".tile-inner").all_inner_texts())
    assert len(values) > 1 and len(colours) == len(values), "each value has its own tile colour"
    font = board.locator(".tile-inner").first.evaluate("e => parseFloat(getComputedStyle(e).fontSize)")
    assert font >= 16
    button = page.locator("[data-step='first']")
    styled = button.evaluate("e => getComputedStyle(e).borderStyle") == "none"
    assert styled, "the site's buttons, not the system's"
    button.click()
    assert page.locator("#replay-status").inner_text().startswith("move 0 of ")
    assert board.locator(".tile").count() == 2


def test_no_empty_band_under_the_board(game):
    game.open()
    board = _rect(game.page.get_by_test_id("board"))
    how = _rect(game.page.locator("#how"))
    assert game.page.locator("#message").inner_text() == ""
    assert how["top"] - board["bottom"] <= 24, (board, how)


@pytest.mark.parametrize("game", [{"timezone_id": "Asia/Tokyo", "locale": "en-US"}], indirect=True)
def test_finish_times_are_in_the_readers_own_time_zone(game, finished_game):
    for path in ("/leaderboard", f"/games/{finished_game}"):
        game.page.goto(f"{game.base_url}{path}")
        when = game.page.locator("time[data-local]").first
        iso = when.get_attribute("datetime")
        expected = game.page.evaluate("""iso => new Intl.DateTimeFormat('en', {dateStyle: 'medium',
            timeStyle: 'short', timeZone: 'Asia/Tokyo'}).format(new Date(iso))""", iso)
        game.page.wait_for_function("el => !el.textContent.includes('UTC')", arg=when.element_handle())
        assert when.inner_text() == expected, path


@pytest.mark.parametrize("game", [{"viewport": {"width": 1280, "height": 900}}], indirect=True)
@pytest.mark.parametrize("lang", ["en", "he", "ru", "th"])
@pytest.mark.parametrize("path", ["/boards", "/strategy", "/solver", "/rules"])
def test_no_table_scrolls_sideways_on_a_desktop(game, path, lang):
    game.page.goto(f"{game.base_url}{path}?lang={lang}")
    wide = game.page.evaluate("""() => [...document.querySelectorAll('.table-wrap')]
        .filter(w => w.scrollWidth > w.clientWidth + 1).map(w => w.getAttribute('aria-label'))""")
    assert wide == []
