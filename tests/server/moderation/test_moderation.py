"""A person in the loop: visitors report games, the operators' queue shows what waits with its
evidence, an operator's action moves a game or a name and is written to the audit log, from /mod
(closed without the operators' password) and from ``game2048 mod``."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from game2048.server import create_app
from game2048.server.errors import ClientError
from game2048.server.moderation import access
from game2048.server.moderation.actions import act, audit_log
from game2048.server.moderation.queue import cases

from ..conftest import Api, Played

PASSWORD = "a long operator password"
#: Made once: scrypt takes a moment.
HASH = access.password_hash(PASSWORD)


@pytest.fixture
def mod_app(settings) -> Iterator:  # type: ignore[no-untyped-def]
    app = create_app(replace(settings, mod_password_hash=HASH, hold_tiles="3:16", report_rate_limit="3/hour"))
    yield app
    app.state.store.close()
    app.state.engine.dispose()


@pytest.fixture
def mod_client(mod_app) -> Iterator[TestClient]:  # type: ignore[no-untyped-def]
    # one client, one event loop, for the whole test; https: the operators' cookie is Secure
    with TestClient(mod_app, base_url="https://testserver") as client:
        yield client


@pytest.fixture
def mod_api(mod_client) -> Api:  # type: ignore[no-untyped-def]
    return Api(mod_client)


def _board(api: Api, which: str, size: int) -> list[str]:
    api.client.app.state.answers.clear()
    r = api.client.get("/api/leaderboard", params={"size": size, "board": which})
    return [e["name"] for e in r.json()["entries"]]


def _held(api: Api, name: str = "Lucky") -> dict:
    """A 3×3 game played to its end: its tile reaches the test's threshold, 16, so it is held."""
    issued, _, done = api.honest(3, None, name=name)
    assert done.json()["standing"] == "held", done.text
    return issued


def test_a_report_counts_once_per_client_and_the_game_stays_on_its_board(mod_api):
    issued, _, _ = mod_api.honest(4, 10, name="Reported")
    url = f"/api/games/{issued['id']}/report"
    assert mod_api.client.post(url, json={"reason": "program"}).json() == {"reports": 1}
    assert mod_api.client.post(url, json={"reason": "name"}).json() == {"reports": 1}  # the same client
    assert _board(mod_api, "players", 4) == ["Reported"]
    with mod_api.client.app.state.sessions() as session:
        [case] = cases(session)
    assert case.id == issued["id"] and case.reports == {"program": 1} and case.standing == "listed"


@pytest.mark.parametrize("body", [{"reason": "ugly"}, {}, {"reason": 3}, {"reason": ["program"]}])
def test_a_bad_report_is_refused_and_changes_nothing(mod_api, body):
    issued, _, _ = mod_api.honest(4, 5)
    r = mod_api.client.post(f"/api/games/{issued['id']}/report", json=body)
    assert r.status_code == 422 and r.json()["error"]
    with mod_api.client.app.state.sessions() as session:
        assert cases(session) == []


def test_reports_are_limited_per_client_and_need_a_finished_ranked_game(mod_api):
    assert mod_api.client.post("/api/games/AAAAAAAAAAAA/report", json={"reason": "other"}).status_code == 404
    playing = mod_api.start(4)
    unfinished = mod_api.client.post(f"/api/games/{playing['id']}/report", json={"reason": "other"})
    assert unfinished.status_code == 404
    issued, _, _ = mod_api.honest(4, 5)
    url = f"/api/games/{issued['id']}/report"
    assert mod_api.client.post(url, json={"reason": "other"}).status_code == 201
    r = mod_api.client.post(url, json={"reason": "other"})
    assert r.status_code == 429 and r.headers["Retry-After"]  # the fourth report in an hour (3/hour)


def test_an_operators_decision_places_a_held_game_keeps_it_and_is_logged(mod_api):
    issued = _held(mod_api)
    game = issued["id"]
    assert _board(mod_api, "players", 3) == []
    with mod_api.client.app.state.sessions() as session:
        assert [c.id for c in cases(session)] == [game]
        with pytest.raises(ClientError, match="say why"):
            act(session, "Ops", "list", game, "  ")
        entry = act(session, "Ops", "list", game, "a known strong player")
        assert (entry.before["standing"], entry.after["standing"]) == ("held", "listed")
        assert entry.after["decided"]
        assert cases(session) == []
    assert _board(mod_api, "players", 3) == ["Lucky"]
    done = mod_api.finish(issued, name="Lucky")  # the finish asked again: placed now
    assert (done.json()["standing"], done.json()["rank"]) == ("listed", 1)
    with mod_api.client.app.state.sessions() as session:
        act(session, "Ops", "hide", game, "second thoughts")
        assert [(e.action, e.operator) for e in audit_log(session)] == [("hide", "Ops"), ("list", "Ops")]
    assert _board(mod_api, "players", 3) == [] and _board(mod_api, "engines", 3) == []


def test_a_declared_bots_game_is_never_put_on_the_players_board(mod_api):
    game = mod_api.client.post("/api/games", json={"size": 4, "bot": "Botty"}).json()
    mod_api.play_on(Played(game), 3)
    done = mod_api.client.post(f"/api/games/{game['id']}/finish", json={"token": game["token"]})
    assert done.status_code == 200 and done.json()["board"] == "engines"
    with mod_api.client.app.state.sessions() as session:
        with pytest.raises(ClientError, match="engines board"):
            act(session, "Ops", "list", game["id"], "why not")
        assert audit_log(session) == []


def test_a_barred_key_takes_its_names_games_off_the_players_board_and_a_released_name_is_free(mod_app,
                                                                                             mod_client):
    owner, other = Api(mod_client), Api(mod_client)  # two browsers: each keeps its own name keys
    owner.honest(4, 5, name="Barred")
    with mod_app.state.sessions() as session:
        entry = act(session, "Ops", "bar", "Barred", "a script")
    assert entry.after["games_moved"] == 1
    assert _board(owner, "players", 4) == [] and _board(owner, "engines", 4) == ["Barred"]
    _, _, later = owner.honest(4, 5, name="Barred")
    assert later.json()["board"] == "engines"
    assert other.honest(4, 5, name="Barred")[2].json()["code"] == "name_held"
    with mod_app.state.sessions() as session:
        act(session, "Ops", "release", "Barred", "the owner asked")
        with pytest.raises(ClientError, match="nobody holds"):
            act(session, "Ops", "release", "Barred", "again")
    assert other.honest(4, 5, name="Barred")[2].json()["name_key"]  # free: taken by another browser


def test_mod_is_closed_without_the_operators_password(api):
    assert api.client.get("/mod").status_code == 404
    assert api.client.post("/mod/login", data={"operator": "x", "password": "y"}).status_code == 404


def test_an_operator_signs_in_decides_from_the_page_and_the_log_shows_it(mod_api):
    game = _held(mod_api)["id"]
    client = mod_api.client
    assert 'action="/mod/login"' in client.get("/mod").text and "Lucky" not in client.get("/mod").text
    wrong = client.post("/mod/login", data={"operator": "Ops", "password": "nope"}, follow_redirects=False)
    assert wrong.status_code == 303 and access.COOKIE not in wrong.cookies
    signed = client.post("/mod/login", data={"operator": "Ops", "password": PASSWORD}, follow_redirects=False)
    cookie = signed.headers["set-cookie"]
    assert all(part in cookie for part in ("Secure", "HttpOnly", "SameSite=strict"))
    page = client.get("/mod").text
    assert f'data-game="{game}"' in page and "held: outcome" in page
    token = re.search(r'name="form_token" value="([0-9a-f]+)"', page).group(1)
    form = {"action": "engines", "target": game, "why": "plays like a program"}
    assert client.post("/mod/act", data=form, follow_redirects=False).status_code == 403  # no form token
    assert client.post("/mod/act", data=form | {"form_token": "0" * 64}).status_code == 403
    done = client.post("/mod/act", data=form | {"form_token": token}, follow_redirects=False)
    assert done.status_code == 303
    page = client.get("/mod").text
    assert f'data-game="{game}"' not in page and "plays like a program" in page
    assert _board(mod_api, "engines", 3) == ["Lucky"]


def test_sign_in_tries_are_limited(mod_api):
    tries = [mod_api.client.post("/mod/login", data={"operator": "x", "password": "guess"},
                                 follow_redirects=False).status_code for _ in range(6)]
    assert tries[:5] == [303] * 5 and tries[5] == 429


def test_a_forged_or_expired_session_is_no_session():
    secret = "s" * 32
    token = access.session_token(secret, "Ops", now=1000.0)
    assert access.operator_of(secret, token, now=1001.0) == "Ops"
    assert access.operator_of(secret, token, now=1000.0 + access.SESSION_SECONDS + 1) is None
    assert access.operator_of("t" * 32, token, now=1001.0) is None
    assert access.operator_of(secret, token.replace(".", "x.", 1), now=1001.0) is None
    assert access.operator_of(secret, "garbage", now=1001.0) is None


def test_the_command_line_shows_the_queue_acts_and_logs(mod_app, mod_api):
    from game2048.cli import app as cli

    api = mod_api
    game = _held(api)["id"]
    runner = CliRunner()
    db = ["--db", mod_app.state.settings.database_url]
    shown = runner.invoke(cli, ["mod", "queue", *db])
    assert shown.exit_code == 0 and game in shown.output and "held: outcome" in shown.output
    ops = ["--operator", "Ops", *db]
    refused = runner.invoke(cli, ["mod", "act", "list", "AAAAAAAAAAAA", "--why", "x", *ops])
    assert refused.exit_code == 1 and "no finished ranked game" in refused.output
    done = runner.invoke(cli, ["mod", "act", "list", game, "--why", "checked by hand", *ops])
    assert done.exit_code == 0, done.output
    assert _board(api, "players", 3) == ["Lucky"]
    log = runner.invoke(cli, ["mod", "log", *db])
    assert "Ops" in log.output and "checked by hand" in log.output
    assert "the queue is empty" in runner.invoke(cli, ["mod", "queue", *db]).output


def test_the_players_pages_say_where_a_game_stands_and_no_rank_before_a_board(mod_api):
    issued = _held(mod_api)
    client = mod_api.client
    for lang, said in (("en", "Held for a person"), ("ru", "Ждёт человека"), ("he", "ממתין לבדיקה של אדם"),
                       ("th", "รอคนตรวจ")):
        page = client.get(f"/games/{issued['id']}?lang={lang}").text
        assert said in page and "class=\"ranked-mark\"" not in page, lang
        assert f'href="/games/{issued["id"]}/review"' in page  # the evidence, linked
    board = client.get("/leaderboard?size=3&lang=en").text
    assert "0 being checked, 1 waiting for a person" in board
    with client.app.state.sessions() as session:
        act(session, "Ops", "list", issued["id"], "a strong player")
    page = client.get(f"/games/{issued['id']}?lang=en").text  # drawn again: its standing changed
    assert "class=\"ranked-mark\"" in page and "Held for a person" not in page
    assert 'data-testid="pending"' not in client.get("/leaderboard?size=3&lang=en").text
