"""Held names played fair: a network newly holds a few names a day, a mark added to a held name
makes a look-alike, and a bot cannot take a name a player holds."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import datetime, timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select, update

from game2048.server import create_app
from game2048.server.errors import ClientError
from game2048.server.records import owners
from game2048.server.storage.models import DailyTryRow, GameRow, NameRow

from ..conftest import Api


def held_names(app) -> set[str]:  # type: ignore[no-untyped-def]
    with app.state.sessions() as s:
        return set(s.scalars(select(NameRow.name)))


@contextmanager
def names_a_day(settings, names_per_day: int) -> Iterator[Api]:  # type: ignore[no-untyped-def]
    """A client of an app that lets a network newly hold ``names_per_day`` names a day (one client,
    one event loop for the test: a PostgreSQL store keeps pipelined connections per loop)."""
    app = create_app(replace(settings, names_per_day=names_per_day))
    try:
        with TestClient(app) as client:
            yield Api(client)
    finally:
        app.state.engine.dispose()


# -- a few names a day per network ----------------------------------------------------------


def test_a_network_newly_holds_three_names_a_day_and_a_fourth_is_recorded_but_not_held(app, api):
    for name in ("One", "Two", "Three"):
        assert api.honest(4, 5, name=name)[2].json()["name_key"]
    issued, _, fourth = api.honest(4, 5, name="Four")
    answer = fourth.json()
    assert fourth.status_code == 200 and answer["verified"] and answer["name_key"] is None
    refusal = answer["name_not_held"]
    assert refusal["code"] == "names_per_day" and refusal["limit"] == 3 and "00:00 UTC" in refusal["error"]
    assert datetime.fromisoformat(refusal["next_at"].replace("Z", "+00:00")).time().isoformat() == "00:00:00"
    assert api.stored(issued["id"])["name"] == "Four"  # the game counts, under its name
    assert api.finish(issued, name="Four").json() == answer  # a retry hears the same
    assert held_names(app) == {"One", "Two", "Three"}
    # a name the network holds already is no new name: used again, it costs nothing
    again = api.finish(api.served(4, 5).issued, name="One")
    assert again.status_code == 200 and again.json()["name_not_held"] is None
    # the name nobody holds is anyone's: another browser finishes under it without a key
    assert api.finish(api.served(4, 5).issued, name="Four", name_key=None).status_code == 200


def test_the_count_is_a_keyed_hash_of_the_network_and_each_network_has_its_own(settings):
    app = create_app(replace(settings, names_per_day=1))
    try:
        here = Api(TestClient(app, client=("2001:db8:7:1::10", 50000)))
        same_64 = Api(TestClient(app, client=("2001:db8:7:1::99", 50000)))
        other = Api(TestClient(app, client=("203.0.113.50", 50000)))
        assert here.honest(4, 5, name="Alpha")[2].json()["name_key"]
        assert same_64.honest(4, 5, name="Beta")[2].json()["name_not_held"]["limit"] == 1
        assert other.honest(4, 5, name="Gamma")[2].json()["name_key"]
        with app.state.sessions() as s:
            counters = s.execute(select(DailyTryRow.client, DailyTryRow.size, DailyTryRow.tries)).all()
        assert sorted(t for _, _, t in counters) == [1, 1] and {size for _, size, _ in counters} == {0}
        assert all(len(c) == 64 and "2001" not in c and "203.0" not in c for c, _, _ in counters)
    finally:
        app.state.engine.dispose()


def test_the_next_utc_day_a_name_not_held_can_be_held(settings):
    with names_a_day(settings, 1) as api:
        api.honest(4, 5, name="Early")
        assert api.honest(4, 5, name="Late")[2].json()["name_key"] is None
        with api.client.app.state.sessions() as s:  # the day's counter as it stands tomorrow: yesterday's
            s.execute(update(DailyTryRow).values(day=DailyTryRow.day - timedelta(days=1)))
            s.commit()
        late = api.honest(4, 5, name="Late")[2].json()
        assert late["name_key"] and late["name_not_held"] is None


def test_no_limit_when_the_setting_is_zero_and_the_default_is_three(settings):
    from game2048.server.config import DEFAULT_NAMES_PER_DAY, Settings

    assert DEFAULT_NAMES_PER_DAY == 3 and Settings.from_env(env={}).names_per_day == 3
    assert Settings.from_env(env={"GAME2048_NAMES_PER_DAY": "7"}).names_per_day == 7
    with names_a_day(settings, 0) as api:
        assert all(api.honest(4, 3, name=f"Many{i}")[2].json()["name_key"] for i in range(5))


def test_a_name_not_held_is_said_over_the_socket_too(settings):
    with names_a_day(settings, 1) as api:
        api.honest(4, 5, name="First")
        issued = api.served(4, 5).issued
        with api.client.websocket_connect(f"/api/games/{issued['id']}/play") as ws:
            ws.send_json({"op": "finish", "token": issued["token"], "name": "Second"})
            answer = ws.receive_json()
        assert answer["verified"] and answer["name_key"] is None
        assert answer["name_not_held"]["code"] == "names_per_day"


def test_finishes_of_one_network_at_the_same_moment_hold_its_allowance_and_no_more(app, api):
    """Each finish is told either its key or why it has none, even when they begin the day's count
    together (PostgreSQL: one of two first counts meets the other's row)."""
    from concurrent.futures import ThreadPoolExecutor

    from game2048.server import live

    store, secret, sessions = app.state.store, app.state.secret, app.state.sessions
    games = [api.served(4, 3).issued for _ in range(8)]
    holder = owners.Holder("n" * 64, 3)

    def finish(i: int):  # type: ignore[no-untyped-def]
        return live.finish(store, sessions, secret, games[i]["id"], token=games[i]["token"], name=f"Same{i}",
                           holder=holder)

    with ThreadPoolExecutor(8) as pool:
        done = list(pool.map(finish, range(8)))
    assert sum(d.name_key is not None for d in done) == 3 and len(held_names(app)) == 3
    assert all((d.name_key is None) == (d.name_not_held is not None) for d in done)


def test_claim_counts_only_a_name_it_takes(app):
    """A name held already, or refused, costs the network nothing; the counter's row is size 0."""
    holder = owners.Holder("h" * 64, 1)
    now = datetime.now().astimezone()
    with app.state.engine.begin() as conn:
        assert owners.claim(conn, "s", "Kept", None, "g1", now, holder)
        assert owners.claim(conn, "s", "Kept", None, "g1", now, holder)  # its own retry: no new name
        assert owners.claim(conn, "s", "K\u0435pt", None, "g2", now, holder) is None  # a look-alike
        with pytest.raises(ClientError) as refused:
            owners.claim(conn, "s", "Other", None, "g3", now, holder)
        assert refused.value.code == "names_per_day"
        tries = conn.execute(select(DailyTryRow.tries).where(DailyTryRow.size == owners.NAMES_COUNTED)).all()
    assert [t for (t,) in tries] == [1]
    assert held_names(app) == {"Kept"}


# -- a mark added to a held name ------------------------------------------------------------


@pytest.mark.parametrize("copy", ["Ada\u0323", "A\u0323da", "\u00c1da"])
def test_a_held_name_with_a_combining_mark_added_is_a_look_alike(api, copy):
    api.honest(4, 5, name="Ada")
    issued = api.served(4, 5).issued
    r = api.finish(issued, name=copy)
    assert r.status_code == 409 and r.json()["code"] == "name_confusable", copy
    assert api.stored(issued["id"]) is None  # nothing was recorded


# -- bots and players' names ----------------------------------------------------------------


def bot_start(api: Api, bot: str, **fields: object):  # type: ignore[no-untyped-def]
    return api.client.post("/api/games", json={"size": 4, "bot": bot} | fields)


def test_a_bot_may_not_start_under_a_name_a_player_holds_or_one_like_it(api):
    """Else a bot could sit on the engines board under a player's name: a held name, or a look-alike,
    needs the name's key, which only its holder has (their own bot may use it)."""
    key = api.honest(4, 5, name="Grace")[2].json()["name_key"]
    held = bot_start(api, "Grace")
    assert held.status_code == 409 and held.json()["code"] == "name_held"
    for look_alike in ("Gr\u0430ce", "Grace\u0323"):  # a Cyrillic а; a dot below
        r = bot_start(api, look_alike)
        assert r.status_code == 409 and r.json()["code"] == "name_confusable", look_alike
    assert bot_start(api, "Grace", name_key="0" * 32).json()["code"] == "name_held"
    # the holder's own bot: its key lets it play under the name, on the engines board
    mine = bot_start(api, "Grace", name_key=key)
    assert mine.status_code == 201 and mine.json()["bot"] == "Grace"
    assert bot_start(api, "Hopper").status_code == 201  # a name nobody holds is any bot's


def test_a_refused_bot_start_changes_nothing(app, api):
    api.honest(4, 5, name="Grace")
    with app.state.sessions() as s:
        before = s.scalar(select(func.count()).select_from(GameRow))
    refused = [bot_start(api, "Grace"), bot_start(api, "Grace", mode="daily"),
               bot_start(api, "Robo", name_key="k" * 65), bot_start(api, "Robo", name_key=32),
               api.client.post("/api/games", json={"size": 4, "name_key": "0" * 32})]  # a key, no bot
    assert [r.status_code for r in refused] == [409, 409, 422, 422, 422]
    assert "bot" in refused[-1].json()["error"]
    with app.state.sessions() as s:
        assert s.scalar(select(func.count()).select_from(GameRow)) == before
        assert s.scalar(select(func.count()).select_from(DailyTryRow).where(DailyTryRow.size > 0)) == 0
