"""Rate limits per client on starting and finishing games: 429 with Retry-After."""

from __future__ import annotations

import math
import socket
import uuid
from dataclasses import replace

import pytest
from fastapi.testclient import TestClient

from game2048.server import Settings, create_app
from game2048.server.limits.rate import RateLimiter


def _app(settings: Settings, **changes):  # type: ignore[no-untyped-def]
    return create_app(replace(settings, **changes))


def test_limit_answers_429_with_retry_after(settings):
    app = _app(settings, rate_limit="3/minute")
    try:
        client = TestClient(app)
        codes = [client.post("/api/games", json={"size": 4}).status_code for _ in range(4)]
        assert codes == [201, 201, 201, 429]
        r = client.post("/api/games", json={"size": 4})
        assert r.status_code == 429 and "too many" in r.json()["error"]
        assert 1 <= int(r.headers["retry-after"]) <= 60
        assert client.get("/api/leaderboard").status_code == 200  # reading is not limited
    finally:
        app.state.engine.dispose()


def test_finishing_counts_against_the_same_limit(settings):
    app = _app(settings, rate_limit="2/minute")
    try:
        client = TestClient(app)
        issued = client.post("/api/games", json={"size": 4}).json()
        body = {"token": issued["token"], "name": "a"}
        assert client.post(f"/api/games/{issued['id']}/finish", json=body).status_code == 200
        assert client.post(f"/api/games/{issued['id']}/finish", json=body).status_code == 429
    finally:
        app.state.engine.dispose()


def test_moves_have_a_limit_of_their_own(settings):
    app = _app(settings, rate_limit="2/minute", move_rate_limit="3/minute")
    try:
        client = TestClient(app)
        issued = client.post("/api/games", json={"size": 4}).json()
        body = {"token": issued["token"], "at": 0, "moves": "Z"}
        codes = [client.post(f"/api/games/{issued['id']}/moves", json=body).status_code for _ in range(4)]
        assert codes == [422, 422, 422, 429]
        with client.websocket_connect(f"/api/games/{issued['id']}/play") as ws:
            ws.send_json({"op": "moves", **body})
            answer = ws.receive_json()
            assert answer["status"] == 429 and "too many" in answer["error"]
        assert client.post("/api/games", json={"size": 4}).status_code == 201  # a separate count
    finally:
        app.state.engine.dispose()


def test_a_retry_from_far_back_counts_like_a_finish(settings):
    from ..conftest import Api, Played

    app = _app(settings, rate_limit="2/minute", move_rate_limit="0")
    try:
        api = Api(TestClient(app))
        played = api.play_on(Played(api.start(4)), 5)
        assert api.moves(played.issued, 4, played.log[4]).status_code == 200  # the last answer: free
        # a replay counts like a finish: the start and this one use the two of this minute
        assert api.moves(played.issued, 1, played.log[1]).status_code == 200
        assert api.moves(played.issued, 2, played.log[2]).status_code == 429
    finally:
        app.state.engine.dispose()


def test_zero_turns_limits_off():
    limiter = RateLimiter("0")
    assert not limiter.enabled
    assert all(limiter.check("games", "1.2.3.4") is None for _ in range(1000))


def test_limits_are_per_client():
    limiter = RateLimiter("1/minute")
    assert limiter.check("games", "1.1.1.1") is None
    assert limiter.check("games", "2.2.2.2") is None
    assert limiter.check("games", "1.1.1.1") is not None


def test_settings_read_the_environment():
    s = Settings.from_env("sqlite:///x.db", env={"GAME2048_RATE_LIMIT": "0", "REDIS_URL": "redis://h:6379/0"})
    assert s.rate_limit == "0" and s.hint_rate_limit == "0" and s.redis_url == "redis://h:6379/0"
    assert s.move_rate_limit == s.board_hint_rate_limit == "0"
    s = Settings.from_env("sqlite:///x.db", env={"GAME2048_DAILY_TRIES": "5", "GAME2048_IDLE_DAYS": "2.5"})
    assert (s.daily_tries, s.idle_days, s.move_rate_limit) == (5, 2.5, "50/second")
    assert s.board_hint_rate_limit == "10/minute"  # a person's pace: a bare board is tied to no game
    s = Settings.from_env("sqlite:///x.db", env={"GAME2048_BOARD_HINT_RATE_LIMIT": "2/minute"})
    assert (s.board_hint_rate_limit, s.hint_rate_limit) == ("2/minute", "20/second")
    assert Settings.from_env("postgresql://u@h/d", env={}).database_url == "postgresql+psycopg://u@h/d"


def _redis_url() -> str | None:
    try:
        socket.create_connection(("127.0.0.1", 6379), timeout=1).close()
    except OSError:
        return None
    return "redis://127.0.0.1:6379/15"


@pytest.mark.skipif(_redis_url() is None, reason="Redis not reachable at 127.0.0.1:6379")
def test_workers_sharing_redis_share_the_count():
    """Two limiters stand for two worker processes: together they allow the limit, not twice it."""
    url = _redis_url()
    client = f"test-{uuid.uuid4().hex}"
    a, b = RateLimiter("4/minute", url), RateLimiter("4/minute", url)
    results = [(a if i % 2 else b).check("games", client) for i in range(6)]
    assert results[:4] == [None] * 4 and all(r is not None for r in results[4:])


def test_unreachable_limit_store_lets_requests_through(monkeypatch):
    # the shared store (Redis) is the one that can be down; counts kept in the process cannot
    limiter = RateLimiter("1/minute", "redis://127.0.0.1:1/0")
    assert limiter.strategy is not None

    def store_down(*_args, **_kwargs):
        raise ConnectionError("limit store down")

    monkeypatch.setattr(limiter.strategy, "hit", store_down)
    assert limiter.check("games", "x") is None


@pytest.mark.parametrize("spec", ["3/second", "5/second;8/minute", "1/minute"])
def test_in_process_windows_count_exactly_as_limits_moving_window(spec, monkeypatch):
    """The limiter's own in-process windows refuse and wait exactly as ``limits``' moving window on
    its memory storage, over a random stream of requests from a few clients on one clock."""
    import random

    from limits import parse_many
    from limits.storage import MemoryStorage
    from limits.strategies import MovingWindowRateLimiter

    import game2048.server.limits.rate as rate

    clock = [1_800_000_000.0]
    monkeypatch.setattr(rate.time, "time", lambda: clock[0])  # the one clock of both (time.time)
    ours = RateLimiter(spec)
    assert ours._windows is not None
    theirs = MovingWindowRateLimiter(MemoryStorage())
    items = parse_many(spec)
    rng = random.Random(spec)
    refusals = 0
    for _ in range(3000):
        clock[0] += rng.choice([0.0, 0.001, 0.05, 0.2, 0.5, 1.0, 7.0])
        client = rng.choice(["10.0.0.1", "10.0.0.2", "2001:db8::/64"])
        wait = None
        for item in items:
            if not theirs.hit(item, "moves", client):
                reset = theirs.get_window_stats(item, "moves", client).reset_time
                wait = max(wait or 0.0, reset - clock[0])
        expected = None if wait is None else max(1, math.ceil(wait))
        assert ours.check("moves", client) == expected
        refusals += expected is not None
    assert 100 < refusals < 2900  # both outcomes were compared, many times
