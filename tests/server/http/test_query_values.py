"""Odd query values on every page and GET route: a 4xx or a clean page, never a 5xx."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROUTES = ["/", "/leaderboard", "/rules", "/strategy", "/boards", "/solver", "/docs", "/games/x",
          "/api/leaderboard", "/api/games/x", "/healthz", "/openapi.json"]
PARAMS = ["size", "mode", "date", "limit", "lang", "page", "id"]
ODD = ["0001-01-01", "9999-12-31", "0000-00-00", "10000-01-01", "-1", "0", "9" * 400, "-" + "9" * 30,
       "1e309", "nan", "", "daily", "classic", "\u0000", "%00", "../../etc/passwd", "x" * 5000, "2026-02-30",
       "\u202e", "4.5", " 4"]


@pytest.mark.parametrize("date", ["0001-01-01", "9999-12-31", "0001-01-02", "9999-12-30"])
@pytest.mark.parametrize("path", ["/leaderboard", "/api/leaderboard"])
def test_the_first_and_last_days_answer(client, path, date):
    r = client.get(path, params={"mode": "daily", "date": date})
    assert r.status_code == 200, r.text[:300]


def test_the_first_day_has_no_previous_day_link(client):
    html = client.get("/leaderboard", params={"mode": "daily", "date": "0001-01-01"}).text
    assert "date=0000" not in html and "date=0001-01-01" in html


@pytest.mark.parametrize("limit", ["0", "-1", "101", "9" * 40, "1e3", "x"])
def test_an_odd_limit_is_a_422(client, limit):
    r = client.get("/api/leaderboard", params={"limit": limit})
    assert r.status_code == 422 and set(r.json()) == {"error"}


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(route=st.sampled_from(ROUTES),
       query=st.dictionaries(st.sampled_from(PARAMS), st.one_of(st.sampled_from(ODD), st.text(max_size=30)),
                             max_size=4))
def test_no_query_value_gets_a_5xx(client_for_properties, route, query):
    r = client_for_properties.get(route, params=query)
    assert r.status_code < 500, (route, query, r.text[:300])
    if r.status_code >= 400 and route.startswith("/api/"):
        assert set(r.json()) == {"error"}


@pytest.fixture(scope="module")
def client_for_properties(tmp_path_factory):
    """One app for all the examples (the function-scoped client would be rebuilt per example)."""
    from fastapi.testclient import TestClient

    from game2048.server import Settings, create_app

    db = tmp_path_factory.mktemp("query") / "q.sqlite3"
    app = create_app(Settings(database_url=f"sqlite:///{db}", rate_limit="0", hint_rate_limit="0"))
    with TestClient(app) as c:
        yield c
    app.state.engine.dispose()
