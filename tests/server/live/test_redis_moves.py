"""A move on the Redis store costs one round trip to Redis, its rate-limit count included, and the
limits allow and refuse exactly what they did when the count was a round trip of its own.

Against the real Redis on 127.0.0.1:6379 (database 15, keys of this run only).
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import replace

import pytest
import redis.asyncio.connection
from fastapi.testclient import TestClient

from game2048.server import create_app
from game2048.server.limits.rate import Hit, RateLimiter
from game2048.server.live.stores import RedisStore, redis_lines

from ..conftest import Api, Played, next_move
from ..conftest import socket_move as _socket_move
from .test_stores import REDIS_URL, _redis_reachable

#: TestClient's client address, which the limits count per.
CLIENT = "testclient"


class RoundTrips:
    """Every command (or pipeline) sent to Redis, by a redis-py connection (blocking or asyncio) or
    by the event loop's own (a socket's move saves from the loop, ``redis_lines``): one round trip
    each."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.sent: list[bytes] = []
        self._lock = threading.Lock()
        real = redis.connection.AbstractConnection.send_packed_command
        real_async = redis.asyncio.connection.AbstractConnection.send_packed_command

        def note(command) -> None:  # type: ignore[no-untyped-def]
            first = command if isinstance(command, bytes) else b"".join(command[:1])
            with self._lock:
                self.sent.append(first[:80])

        def send(conn, command, check_health=True):  # type: ignore[no-untyped-def]
            note(command)
            return real(conn, command, check_health)

        async def send_async(conn, command, check_health=True):  # type: ignore[no-untyped-def]
            note(command)
            return await real_async(conn, command, check_health)

        real_line = redis_lines._Line.call

        async def line_call(line, command):  # type: ignore[no-untyped-def]
            note(command)
            return await real_line(line, command)

        monkeypatch.setattr(redis_lines._Line, "call", line_call)
        monkeypatch.setattr(redis.connection.AbstractConnection, "send_packed_command", send)
        monkeypatch.setattr(redis.asyncio.connection.AbstractConnection, "send_packed_command", send_async)

    def during(self, action) -> list[bytes]:  # type: ignore[no-untyped-def]
        start = len(self.sent)
        action()
        return self.sent[start:]


@pytest.fixture
def limited_redis_app(settings) -> Iterator:  # type: ignore[no-untyped-def]
    """An app on the Redis store with the limits in the same Redis; the move limit is set per test."""
    if not _redis_reachable():
        pytest.skip("Redis not reachable at 127.0.0.1:6379 (the Redis store needs a real Redis)")
    apps = []

    def make(move_limit: str):  # type: ignore[no-untyped-def]
        app = create_app(replace(settings, redis_url=REDIS_URL, move_rate_limit=move_limit))
        store = app.state.store
        assert isinstance(store, RedisStore)
        store.PREFIX = f"game2048-test-{uuid.uuid4().hex[:8]}:"
        # this test's own counts: the limits' keys are per client and limit, and another run may share them
        for key in store.redis.scan_iter(f"LIMITS:LIMITER/moves/{CLIENT}/*"):
            store.redis.delete(key)
        for script in (store._save, store._save_counted, store._load_counted):
            store.redis.script_load(script.script)  # as after a worker's first moves
        apps.append(app)
        return app

    yield make
    for app in apps:
        store = app.state.store
        for key in [*store.redis.scan_iter(f"{store.PREFIX}*"),
                    *store.redis.scan_iter(f"LIMITS:LIMITER/moves/{CLIENT}/*")]:
            store.redis.delete(key)
        app.state.engine.dispose()


def _count_key(limit: str) -> str:
    amount, per = limit.split("/")
    return f"LIMITS:LIMITER/moves/{CLIENT}/{amount}/1/{per}"


def test_a_socket_move_is_one_round_trip_with_its_count(limited_redis_app, monkeypatch):  # type: ignore[no-untyped-def]
    app = limited_redis_app("1000/minute")
    api = Api(TestClient(app))
    played = Played(api.start(4))
    trips = RoundTrips(monkeypatch)
    store = app.state.store
    with api.client.websocket_connect(f"/api/games/{played.issued['id']}/play") as ws:
        def move() -> None:
            letter = next_move(played.board)
            ws.send_json({"op": "moves", "token": played.issued["token"], "at": played.at, "moves": letter})
            answer = ws.receive_json()
            assert "status" not in answer, answer
            played.log += letter
            played.answers.append(answer)

        first = trips.during(move)  # the game is not in this worker's memory yet: a read, then the save
        assert len(first) == 2
        # then saved from the event loop: its first save opens that loop's connection
        second = trips.during(move)
        assert all(any(word in c for word in (b"HELLO", b"CLIENT", b"SELECT")) for c in second[:-1]), second
        for _ in range(10):
            sent = trips.during(move)
            assert len(sent) == 1 and sent[0].startswith(b"*"), sent  # one EVALSHA: the move and its count
    # every move counted once, in the limits' own list (the keys the limiter reads)
    assert store.redis.llen(_count_key("1000/minute")) == 12
    assert api.state(played.issued).json()["log"] == played.log


def test_an_http_move_is_one_round_trip_with_its_count(limited_redis_app, monkeypatch):  # type: ignore[no-untyped-def]
    app = limited_redis_app("1000/minute")
    with TestClient(app) as client:  # one event loop for every request, as in a server's worker
        api = Api(client)
        # the game read from the store (a thread), then its first save from the event loop, which
        # opens that loop's connection
        played = api.play_on(Played(api.start(4)), 2)
        trips = RoundTrips(monkeypatch)
        for _ in range(5):
            assert len(trips.during(lambda: api.play_on(played, 1))) == 1
    assert app.state.store.redis.llen(_count_key("1000/minute")) == 7


def test_without_limits_a_move_is_still_one_round_trip(limited_redis_app, monkeypatch):  # type: ignore[no-untyped-def]
    app = limited_redis_app("0")
    with TestClient(app) as client:
        api = Api(client)
        played = api.play_on(Played(api.start(4)), 2)
        trips = RoundTrips(monkeypatch)
        assert len(trips.during(lambda: api.play_on(played, 3))) == 3


def test_the_limit_refuses_as_before_on_redis(limited_redis_app):  # type: ignore[no-untyped-def]
    """As ``test_ratelimit.test_moves_have_a_limit_of_their_own``, on the Redis store: a refused
    request is a 429 with Retry-After whatever it asked for, over HTTP and the socket, and stores nothing."""
    app = limited_redis_app("3/minute")
    api = Api(TestClient(app))
    issued = api.start(4)
    body = {"token": issued["token"], "at": 0, "moves": "Z"}
    codes = [api.client.post(f"/api/games/{issued['id']}/moves", json=body).status_code for _ in range(4)]
    assert codes == [422, 422, 422, 429]
    refused = api.client.post(f"/api/games/{issued['id']}/moves", json=body)
    assert refused.json()["code"] == "rate_limited" and "too many" in refused.json()["error"]
    # the wait is the minute's, as the limiter answered it: from the first count of the minute
    assert 59 <= int(refused.headers["retry-after"]) == refused.json()["retry_after"] <= 60
    with api.client.websocket_connect(f"/api/games/{issued['id']}/play") as ws:
        ws.send_json({"op": "moves", "token": issued["token"], "at": 0, "moves": next_move(issued["board"])})
        answer = ws.receive_json()
        assert answer["status"] == 429 and answer["code"] == "rate_limited"
        assert 59 <= answer["retry_after"] <= 60
    assert app.state.store.load(issued["id"], log=False).at == 0  # nothing was stored


def test_legal_moves_past_the_limit_store_nothing(limited_redis_app):  # type: ignore[no-untyped-def]
    app = limited_redis_app("4/minute")
    api = Api(TestClient(app))
    played = Played(api.start(4))
    for _ in range(4):
        api.play_on(played, 1)  # the first read and save, then saves from memory: each counted once
    refused = api.moves(played.issued, played.at, next_move(played.board))
    assert refused.status_code == 429 and 1 <= int(refused.headers["retry-after"]) <= 60
    assert app.state.store.load(played.issued["id"], log=False).at == 4
    assert app.state.store.redis.llen(_count_key("4/minute")) == 4


def test_a_count_in_a_move_is_the_limiters_own_count(limited_redis_app):  # type: ignore[no-untyped-def]
    """Counts made in the move's script and counts made by ``RateLimiter.check`` (the ``limits``
    library's moving window) are one count: each sees the other's, and they refuse alike."""
    app = limited_redis_app("2/second;5/minute")
    api = Api(TestClient(app))
    played = Played(api.start(4))
    limiter = app.state.limiters["moves"]
    assert app.state.runner.count_move(CLIENT) is not None  # the store counts moves: it is the limits' Redis
    twin = RateLimiter("2/second;5/minute", REDIS_URL)  # another worker, counting the library's way
    api.play_on(played, 2)  # second 2, minute 2: counted in the moves' scripts
    assert twin.check("moves", CLIENT) is not None  # the second's 2 used up by them (minute 3: each
    time.sleep(1.05)                                # limit that allows counts, as ``check`` does)
    assert twin.check("moves", CLIENT) is None  # second 1, minute 4
    api.play_on(played, 1)  # second 2, minute 5
    assert twin.check("moves", CLIENT) is not None  # refused by both
    time.sleep(1.05)
    refused = api.moves(played.issued, played.at, next_move(played.board))
    assert refused.status_code == 429  # by the minute
    # the wait is the minute's: from its oldest entry, as the library works it out
    expected = twin.check("moves", CLIENT)
    assert expected is not None and 50 < expected <= 60
    assert abs(int(refused.headers["retry-after"]) - expected) <= 1
    assert limiter.redis_url == REDIS_URL


def test_a_hit_counts_once_whoever_counts_it(limited_redis_app):  # type: ignore[no-untyped-def]
    app = limited_redis_app("1000/minute")
    hit = Hit(app.state.limiters["moves"], "moves", CLIENT)
    hit.count()
    hit.count()
    assert hit.counted and app.state.store.redis.llen(_count_key("1000/minute")) == 1



# -- a socket's move on the Redis store is saved from the event loop (``moving.play_kept``) -----------

def test_a_kept_game_is_moved_from_the_event_loop_without_a_thread(limited_redis_app, monkeypatch):  # type: ignore[no-untyped-def]
    from game2048.server.live import runner

    app = limited_redis_app("1000/minute")
    api = Api(TestClient(app))
    played = Played(api.start(4))
    with api.client.websocket_connect(f"/api/games/{played.issued['id']}/play") as ws:
        assert "status" not in _socket_move(ws, played)  # read from the store: in a thread

        def no_thread():  # type: ignore[no-untyped-def]
            raise AssertionError("a kept game's move went to a thread")

        monkeypatch.setattr(runner, "_movers", no_thread)
        for _ in range(8):
            answer = _socket_move(ws, played)
            assert "status" not in answer, answer
    assert app.state.store.redis.llen(_count_key("1000/minute")) == 9  # each move counted once
    assert api.state(played.issued).json()["log"] == played.log


def test_past_the_limit_a_kept_games_socket_move_is_refused_and_stores_nothing(limited_redis_app):  # type: ignore[no-untyped-def]
    app = limited_redis_app("3/minute")
    api = Api(TestClient(app))
    played = Played(api.start(4))
    with api.client.websocket_connect(f"/api/games/{played.issued['id']}/play") as ws:
        for _ in range(3):
            assert "status" not in _socket_move(ws, played)
        refused = _socket_move(ws, played)
        assert refused["status"] == 429 and refused["code"] == "rate_limited"
        assert 1 <= refused["retry_after"] <= 60
    assert app.state.store.load(played.issued["id"], log=False).at == 3
    assert app.state.store.redis.llen(_count_key("3/minute")) == 3


def test_a_move_made_meanwhile_by_another_worker_is_not_overwritten(limited_redis_app):  # type: ignore[no-untyped-def]
    """The socket's worker keeps the game at ``at``; another worker moves it on; the socket's next
    move from ``at`` fails the store's compare-and-set and is answered from the store: a fork."""
    app = limited_redis_app("0")
    other = limited_redis_app("0")
    other.state.store.PREFIX = app.state.store.PREFIX  # one Redis, one game: two workers
    api, elsewhere = Api(TestClient(app)), Api(TestClient(other))
    played = Played(api.start(4))
    with api.client.websocket_connect(f"/api/games/{played.issued['id']}/play") as ws:
        for _ in range(3):
            assert "status" not in _socket_move(ws, played)  # kept in this worker's memory
        theirs = next_move(played.board)
        assert elsewhere.moves(played.issued, played.at, theirs).status_code == 200
        mine = next(x for x in "LDRU" if x != theirs and _legal(played.board, x))
        answer = _socket_move(ws, played, mine)
        assert answer["status"] == 409 and answer["code"] == "forked", answer
    stored = app.state.store.load(played.issued["id"])
    assert stored.at == 4 and stored.log == played.log + theirs


def _legal(board: list[list[int]], letter: str) -> bool:
    from game2048 import slide

    direction = {"U": "up", "D": "down", "L": "left", "R": "right"}[letter]
    return slide(board, direction)[0] != board
