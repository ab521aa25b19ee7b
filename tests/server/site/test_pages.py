"""The leaderboard and game pages: rendered on the server, names shown as text, four languages."""

from __future__ import annotations

import pytest


def test_leaderboard_page_lists_ranked_games_with_links(api):
    _, played, _ = api.honest(4, 30, name="Grace")
    page = api.client.get("/leaderboard?size=4")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    assert "Grace" in page.text and f'href="/games/{played.issued["id"]}"' in page.text
    assert str(played.score) in page.text


def test_names_render_as_text(api):
    api.honest(4, 10, name="<script>alert(1)</script")
    page = api.client.get("/leaderboard").text
    assert "<script>alert(1)</script" not in page
    assert "&lt;script&gt;alert(1)&lt;/script" in page


def test_game_page_shows_record_and_replay(api):
    _, played, done = api.honest(4, 25, name="<b>Linus</b>")
    page = api.client.get(f"/games/{played.issued['id']}")
    assert page.status_code == 200
    assert "&lt;b&gt;Linus&lt;/b&gt;" in page.text and "<b>Linus</b>" not in page.text
    assert played.log in page.text and str(done.json()["seed"]) in page.text
    assert 'id="replay-frames"' in page.text


def test_a_game_in_play_has_no_page(api):
    played = api.served(4, 5)
    assert api.client.get(f"/games/{played.issued['id']}").status_code == 404


def test_missing_game_page_is_404_html(client):
    page = client.get("/games/none")
    assert page.status_code == 404 and "text/html" in page.headers["content-type"]


def test_daily_leaderboard_page(api):
    _, played, _ = api.honest(3, 10, name="Daily", mode="daily")
    page = api.client.get(f"/leaderboard?size=3&mode=daily&date={played.issued['date']}")
    assert "Daily" in page.text and played.issued["date"] in page.text


@pytest.mark.parametrize(("lang", "word"), [("en", "Leaderboard"), ("he", "טבלת שיאים"),
                                            ("ru", "Рейтинг"), ("th", "ตารางอันดับ")])
def test_leaderboard_speaks_four_languages(client, lang, word):
    page = client.get(f"/leaderboard?lang={lang}")
    assert page.status_code == 200 and word in page.text and f'lang="{lang}"' in page.text
    if lang == "he":
        assert 'dir="rtl"' in page.text


@pytest.mark.parametrize("query", ["size=99", "mode=weird", "mode=daily&date=nonsense", "size=%00"])
def test_bad_page_parameters_fall_back_to_defaults(client, query):
    assert client.get(f"/leaderboard?{query}").status_code == 200


@pytest.mark.parametrize("lang", ["en", "he", "ru", "th"])
def test_my_games_page_offers_the_names_recovery_in_each_language(client, lang):
    import html
    import json
    import re

    from game2048.server.site.i18n import strings

    t = strings(lang)
    page = client.get(f"/me?lang={lang}").text
    assert html.escape(t["me_names"]) in page and 'id="me-recover"' in page and 'id="me-code"' in page
    words = json.loads(html.unescape(re.search(r'id="me-strings">(.*?)</script>', page, re.S).group(1)))
    script_words = ("me_code_bad", "me_code_unknown", "me_recovered", "me_release_confirm", "me_released",
                    "me_key_wrong", "me_name_free", "me_busy", "me_failed", "me_release", "me_release_name")
    assert {k: words[k] for k in script_words} == {k: t[k] for k in script_words}
