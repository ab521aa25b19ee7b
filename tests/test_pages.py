"""The content pages: every page in every language, its script, direction, tables, charts and sizes."""

from __future__ import annotations

import re

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from game2048.rules import SIZES, TARGETS, max_tile_for, slide_row
from game2048.server.site import router
from game2048.server.site.content import STRATEGY_ORDER
from game2048.server.site.i18n import LANGUAGES, STRINGS, pick_language
from game2048.server.site.render import number
from game2048.server.site.stats import figures, trapped_small_tiles

PAGES = ("/rules", "/strategy", "/boards", "/solver")

#: Letters each language must be written in.
SCRIPTS = {
    "he": re.compile(r"[\u05d0-\u05ea]"),
    "ru": re.compile(r"[\u0430-\u044f\u0410-\u042f\u0451]"),
    "th": re.compile(r"[\u0e01-\u0e5b]"),
    "en": re.compile(r"[a-zA-Z]"),
}


@pytest.fixture(scope="module")
def client() -> TestClient:
    app = FastAPI()
    app.include_router(router)
    return TestClient(app)


def visible_text(html: str) -> str:
    """The words a reader sees: no styles, charts, tags or entities."""
    html = re.sub(r"<(style|svg|script)\b.*?</\1>", " ", html, flags=re.S)
    html = re.sub(r"<[^>]+>", " ", html)
    return re.sub(r"\s+", " ", html)


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("path", PAGES)
def test_each_page_is_written_in_its_language(client: TestClient, path: str, lang: str) -> None:
    r = client.get(path, params={"lang": lang})
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/html")
    direction = "rtl" if lang == "he" else "ltr"
    assert f'<html lang="{lang}" dir="{direction}">' in r.text
    text = visible_text(r.text)
    letters = len(SCRIPTS[lang].findall(text))
    assert letters > (2500 if path == "/rules" else 800), f"{path} in {lang}: only {letters} letters"
    if lang != "en":
        # the page is not English with a translated header: its own script outweighs Latin letters
        assert letters > len(SCRIPTS["en"].findall(text))


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("path", PAGES)
def test_each_page_covers_every_board_size(client: TestClient, path: str, lang: str) -> None:
    text = client.get(path, params={"lang": lang}).text
    for n in SIZES:
        assert f"{n}×{n}" in text, f"{path} ({lang}) never mentions {n}×{n}"


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("path", PAGES)
def test_each_page_shares_the_header_navigation_and_chooser(client: TestClient, path: str, lang: str) -> None:
    text = client.get(path, params={"lang": lang}).text
    for href in (
        'href="/"',
        'href="/leaderboard"',
        'href="/rules"',
        'href="/strategy"',
        'href="/boards"',
        'href="/solver"',
    ):
        assert href in text
    for code in LANGUAGES:
        assert f'hreflang="{code}"' in text
    assert 'aria-current="page"' in text
    assert "<script" not in text  # the content pages need no JavaScript


@pytest.mark.parametrize("lang", LANGUAGES)
def test_rules_state_sizes_targets_and_largest_tiles(client: TestClient, lang: str) -> None:
    text = client.get("/rules", params={"lang": lang}).text
    assert "<table" in text
    for n in SIZES:
        # grouped as the page's language writes numbers: 1,024 and 137,438,953,472
        assert f'<td class="num">{number(max_tile_for(n), lang)}</td>' in text
        assert f'<td class="num">{number(TARGETS[n], lang)}</td>' in text
    assert all(number(v, lang) in text for v in (137438953472, 67108864, 131072))
    # a 2048 built only from 2s is worth 20,480 points
    assert re.search(r"20[,\u202f]480", text)
    for key in ("W", "A", "S", "D", "K", "H", "J", "L", "R"):
        assert f"<kbd>{key}</kbd>" in text
    assert 'href="/leaderboard"' in text


@pytest.mark.parametrize("lang", LANGUAGES)
def test_rules_draw_the_worked_examples_from_the_rules_themselves(client: TestClient, lang: str) -> None:
    text = client.get("/rules", params={"lang": lang}).text
    for before in ((2, 2, 2, 2), (4, 2, 2, 0), (2, 2, 4, 0), (2, 2, 2, 0), (2, 0, 0, 2), (8, 4, 4, 8)):
        after, _ = slide_row(before)
        label = " ".join(str(v) if v else "·" for v in after)
        assert f'aria-label="{label}"' in text
    # the right move 2 2 2 _ gives _ _ 2 4, and 4 4 4 4 gives 8 8 _ _ (never 16)
    assert 'aria-label="· · 2 4"' in text
    assert 'aria-label="8 8 · ·"' in text
    assert text.count('class="row-board"') >= 12


@pytest.mark.parametrize("lang", LANGUAGES)
def test_strategy_page_has_charts_and_tables_for_every_strategy(client: TestClient, lang: str) -> None:
    text = client.get("/strategy", params={"lang": lang}).text
    # the page compares the playing methods; the trained network's games are on the solver page
    data = {name: s for name, s in figures()["results"][4].items() if name in STRATEGY_ORDER}
    assert set(data) == set(STRATEGY_ORDER)
    assert text.count("<svg") >= 2
    assert text.count("<table") >= 3
    assert "game2048 simulate" in text
    for name, s in data.items():
        assert s["games"] >= 1000, f"{name}: only {s['games']} games on 4x4"
    total = sum(s["games"] for s in data.values())
    assert f"{total:,}".replace(",", "\u202f" if lang == "ru" else ",") in text


def test_strategy_claims_hold_in_the_data() -> None:
    """The prose says each mistake costs points; the committed data must agree."""
    s = figures()["results"][4]
    mean = {name: v["mean_score"] for name, v in s.items()}
    assert mean["random"] < mean["greedy"] < mean["corner-greedy"]  # four directions cost points
    assert mean["corner-greedy"] < mean["corner"]  # merging whenever possible costs points
    assert mean["corner-rush"] < mean["corner"]  # rushing when nearly full costs points
    assert s["corner"]["score_trapped"] < s["corner"]["score_not_trapped"]  # trapped tiles cost points


@pytest.mark.parametrize("lang", LANGUAGES)
def test_boards_and_solver_pages_show_measurements(client: TestClient, lang: str) -> None:
    for path in ("/boards", "/solver"):
        text = client.get(path, params={"lang": lang}).text
        assert "<table" in text and "<svg" in text
        assert "game2048 simulate" in text
    boards = client.get("/boards", params={"lang": lang}).text
    for n in SIZES:
        assert f'id="size-{n}"' in boards


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_solver_page_tells_of_the_network_where_it_gives_the_hints(
    client: TestClient, lang: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from game2048.server.site import content
    from game2048.server.site.i18n import strategy_name

    monkeypatch.setattr(content, "_weights_installed", lambda: False)
    assert 'id="learned"' not in client.get("/solver", params={"lang": lang}).text
    monkeypatch.setattr(content, "_weights_installed", lambda: True)
    text = client.get("/solver", params={"lang": lang}).text
    assert 'id="learned"' in text and "32768" in text
    learned = figures()["results"].get(4, {}).get("solver-learned")
    if learned is not None:  # the committed data has the network's games: shown beside the fast preset's
        name = strategy_name(lang, "solver-learned")
        assert name in text and name != "solver-learned"
        assert number(learned["mean_score"], lang) in text


def test_charts_follow_the_colour_scheme(client: TestClient) -> None:
    text = client.get("/strategy").text
    assert "prefers-color-scheme: dark" in text
    svg = re.search(r"<svg.*?</svg>", text, flags=re.S).group(0)
    assert "var(--c0)" in svg and "var(--fg)" in svg
    assert 'role="img"' in svg


def test_language_comes_from_query_then_cookie_then_browser(client: TestClient) -> None:
    fresh = TestClient(client.app)
    r = fresh.get("/rules", headers={"Accept-Language": "ru-RU,ru;q=0.9,en;q=0.8"})
    assert '<html lang="ru"' in r.text
    r = fresh.get("/rules", params={"lang": "th"}, headers={"Accept-Language": "ru"})
    assert '<html lang="th"' in r.text
    assert r.cookies.get("lang") == "th"
    r = fresh.get("/rules", headers={"Accept-Language": "ru"})  # the cookie now wins
    assert '<html lang="th"' in r.text
    r = TestClient(client.app).get("/rules", headers={"Accept-Language": "de, he;q=0.5"})
    assert '<html lang="he" dir="rtl"' in r.text
    r = TestClient(client.app).get("/rules", params={"lang": "xx"})
    assert '<html lang="en"' in r.text


class _Req:
    def __init__(self, query: dict[str, str], cookies: dict[str, str], accept: str) -> None:
        self.query_params, self.cookies, self.headers = query, cookies, {"accept-language": accept}


def test_pick_language_weighs_accept_language() -> None:
    assert pick_language(_Req({}, {}, "fr, ru;q=0.3, th;q=0.6")) == "th"
    assert pick_language(_Req({}, {}, "iw")) == "he"
    assert pick_language(_Req({}, {}, "")) == "en"
    assert pick_language(_Req({}, {"lang": "he"}, "th")) == "he"
    assert pick_language(_Req({"lang": "ru"}, {"lang": "he"}, "th")) == "ru"


def test_every_language_has_every_interface_string() -> None:
    # a language's plural rules name only the categories it has (CLDR's)
    def keys(lang: str) -> set[str]:
        return {k for k in STRINGS[lang] if not k.startswith("plural_")}

    for lang in LANGUAGES:
        assert keys(lang) == keys("en"), lang


def test_a_small_tile_walled_in_by_big_ones_is_trapped() -> None:
    assert trapped_small_tiles([[2, 4, 8], [4, 8, 16], [8, 16, 32]]) == 0
    assert trapped_small_tiles([[2, 16, 4], [16, 64, 64], [32, 2, 16]]) == 2
