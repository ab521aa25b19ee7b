"""A held name's holder takes it to another browser with its recovery code, or lets it go; nobody
else can do either, and a bad request changes nothing."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select, update

from game2048.server import create_app
from game2048.server.config import MAX_BODY
from game2048.server.records import owners
from game2048.server.storage.models import NameRow

from ..conftest import Api


def held(app) -> dict[str, str]:  # type: ignore[no-untyped-def]
    with app.state.sessions() as s:
        return {name: key_hash for name, key_hash in s.execute(select(NameRow.name, NameRow.key_hash))}


def test_a_recovery_code_gives_another_browser_its_names_back(app, api):
    key = api.honest(4, 5, name="Lovelace")[2].json()["name_key"]
    elsewhere = Api(TestClient(app))  # cleared storage: no keys
    assert elsewhere.finish(elsewhere.served(4, 5).issued, name="Lovelace").json()["code"] == "name_held"
    r = elsewhere.client.post("/api/names/recover", json={"code": key})
    assert r.status_code == 200 and r.json() == {"names": ["Lovelace"], "name_key": key}
    again = elsewhere.finish(elsewhere.served(4, 5).issued, name="Lovelace", name_key=r.json()["name_key"])
    assert again.status_code == 200


def test_a_code_that_holds_no_name_is_404_and_a_name_gone_free_takes_its_code_along(app, api):
    r = api.client.post("/api/names/recover", json={"code": "0" * 32})
    assert r.status_code == 404 and r.json()["code"] == "name_key_unknown"
    key = api.honest(4, 5, name="Sleeper")[2].json()["name_key"]
    with app.state.sessions() as s:
        s.execute(update(NameRow).values(used_at=datetime.now(UTC) - owners.HELD_FOR - timedelta(days=1)))
        s.commit()
    r = api.client.post("/api/names/recover", json={"code": key})
    assert r.status_code == 404 and r.json()["code"] == "name_key_unknown"


def test_the_holder_releases_a_name_and_anyone_may_take_it_then(app, api):
    issued, _, done = api.honest(4, 5, name="Hopper")
    key = done.json()["name_key"]
    other = Api(TestClient(app))
    wrong = other.client.post("/api/names/release", json={"name": "Hopper", "name_key": "0" * 32})
    assert wrong.status_code == 403 and wrong.json()["code"] == "name_key_wrong"
    assert "Hopper" in held(app)  # nothing changed
    assert other.finish(other.served(4, 5).issued, name="Hopper").json()["code"] == "name_held"
    freed = api.client.post("/api/names/release", json={"name": "  Hopper ", "name_key": key})
    assert freed.status_code == 200 and freed.json() == {"name": "Hopper"}
    assert "Hopper" not in held(app)
    assert api.stored(issued["id"])["name"] == "Hopper"  # its records stay under it
    taken = other.finish(other.served(4, 5).issued, name="Hopper")
    assert taken.status_code == 200 and taken.json()["name_key"] not in (None, key)
    # the old key holds nothing now
    assert api.client.post("/api/names/recover", json={"code": key}).json()["code"] == "name_key_unknown"
    again = api.client.post("/api/names/release", json={"name": "Hopper", "name_key": key})
    assert again.status_code == 403 and again.json()["code"] == "name_key_wrong"


def test_releasing_a_name_nobody_holds_is_404(api):
    r = api.client.post("/api/names/release", json={"name": "Nobody", "name_key": "0" * 32})
    assert r.status_code == 404 and r.json()["code"] == "name_not_held"


def test_a_released_name_frees_its_look_alikes_too(app, api):
    key = api.honest(4, 5, name="admin")[2].json()["name_key"]
    assert api.finish(api.served(4, 5).issued, name="\u0430dmin").json()["code"] == "name_confusable"
    assert api.client.post("/api/names/release", json={"name": "admin", "name_key": key}).status_code == 200
    assert api.finish(api.served(4, 5).issued, name="\u0430dmin").status_code == 200


BAD = [
    ("/api/names/recover", {"code": 12345}),
    ("/api/names/recover", {"code": None}),
    ("/api/names/recover", {}),
    ("/api/names/recover", {"code": "0" * 31}),
    ("/api/names/recover", {"code": "A" * 32}),
    ("/api/names/recover", {"code": "0" * 32 + "\n"}),
    ("/api/names/recover", {"code": ["0" * 32]}),
    ("/api/names/recover", ["0" * 32]),
    ("/api/names/release", {"name": "Keeper"}),
    ("/api/names/release", {"name": 5, "name_key": "0" * 32}),
    ("/api/names/release", {"name": "Keeper", "name_key": "z" * 32}),
    ("/api/names/release", {"name": "x" * 201, "name_key": "0" * 32}),
    ("/api/names/release", {"name": "Kee\u200bper", "name_key": "0" * 32}),
    ("/api/names/release", {"name": "", "name_key": "0" * 32}),
]


@pytest.mark.parametrize(("path", "body"), BAD, ids=[f"{p[11:]}-{i}" for i, (p, _) in enumerate(BAD)])
def test_a_bad_request_is_a_clear_422_and_changes_nothing(app, api, path, body):
    api.honest(4, 3, name="Keeper")
    before = held(app)
    r = api.client.post(path, json=body)
    assert r.status_code == 422 and r.json()["error"], r.text
    assert held(app) == before


def test_a_huge_body_is_413_and_changes_nothing(app, api):
    api.honest(4, 3, name="Keeper")
    before = held(app)
    for path in ("/api/names/recover", "/api/names/release"):
        r = api.client.post(path, json={"code": "0" * MAX_BODY, "name": "Keeper", "name_key": "0" * 32})
        assert r.status_code == 413 and r.json()["error"]
    assert held(app) == before


def test_recovery_is_rate_limited_per_client(settings):
    app = create_app(replace(settings, rate_limit="3/minute"))
    try:
        with TestClient(app) as client:
            codes = [f"{i:032x}" for i in range(4)]
            answers = [client.post("/api/names/recover", json={"code": code}).status_code for code in codes]
            assert answers == [404, 404, 404, 429]
            other = TestClient(app, client=("203.0.113.80", 50000))
            assert other.post("/api/names/recover", json={"code": "0" * 32}).status_code == 404
    finally:
        app.state.engine.dispose()


def test_the_routes_are_in_the_api_description(client):
    paths = client.get("/openapi.json").json()["paths"]
    assert {"403", "404", "422", "429"} <= set(paths["/api/names/release"]["post"]["responses"])
    assert {"404", "422", "429"} <= set(paths["/api/names/recover"]["post"]["responses"])
