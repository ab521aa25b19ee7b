"""Stores may fail: Redis (our own redis-server on a free port, never the machine's) stops in the
middle of play and refuses connections for a while: players get a 503 with Retry-After at once,
never a hang or a wrong answer; /readyz says not ready; once it is back, every acknowledged move is
there and the game goes on to its finish."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketDenialResponse

from game2048.server.app import create_app

from .conftest import Api, next_move

REDIS = shutil.which("redis-server")
DOWN = 10  # seconds the store refuses connections


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class OwnRedis:
    """A redis-server of the test's own, with an append-only file that flushes every write."""

    def __init__(self, folder: Path) -> None:
        self.folder, self.port, self.proc = folder, _free_port(), None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [REDIS, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.folder),
             "--appendonly", "yes", "--appendfsync", "always", "--save", ""],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.05)
        raise AssertionError("redis-server did not start")

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(timeout=10)
            self.proc = None


@pytest.fixture
def redis(tmp_path: Path) -> Iterator[OwnRedis]:
    if REDIS is None:
        pytest.skip("redis-server is not installed (apt-get install redis-server)")
    own = OwnRedis(tmp_path)
    own.start()
    try:
        yield own
    finally:
        own.stop()


def test_redis_down_in_the_middle_of_play_answers_503_then_the_game_goes_on(settings, redis):
    app = create_app(replace(settings, redis_url=f"redis://127.0.0.1:{redis.port}/0"))
    try:
        with TestClient(app) as client:
            api = Api(client)
            played = api.served(4, 20)
            acked = (played.at, played.board)
            redis.stop()
            began = time.monotonic()
            refused = []
            while time.monotonic() - began < DOWN:  # refused connections for DOWN seconds
                start = time.monotonic()
                r = api.moves(played.issued, played.at, next_move(played.board))
                assert time.monotonic() - start < 5, "an answer within seconds, never a hang"
                assert r.status_code == 503, r.text
                assert r.json()["code"] == "store_unavailable" and int(r.headers["retry-after"]) > 0
                refused.append(r)
                ready = client.get("/readyz")
                assert ready.status_code == 503 and ready.json()["status"] == "redis unavailable"
                with pytest.raises(WebSocketDenialResponse) as door:  # cannot tell the game exists
                    client.websocket_connect(f"/api/games/{played.issued['id']}/play").__enter__()
                assert door.value.status_code == 503, door.value.status_code
                time.sleep(1)
            assert refused
            redis.start()  # back, from its append-only file
            assert client.get("/readyz").status_code == 200
            state = api.state(played.issued).json()
            assert (state["at"], state["board"]) == acked  # every acknowledged move is there
            assert len(state["log"]) == played.at
            api.play_on(played, 10)
            assert played.at == acked[0] + 10
            done = api.finish(played.issued)
            assert done.status_code == 200 and done.json()["verified"]
    finally:
        app.state.engine.dispose()
