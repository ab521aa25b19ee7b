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

from ..conftest import Api, next_move

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
            socket_ = client.websocket_connect(f"/api/games/{played.issued['id']}/play")
            ws = socket_.__enter__()
            ws.send_json({"op": "state", "token": played.issued["token"]})
            assert ws.receive_json()["at"] == played.at
            redis.stop()
            ws.send_json({"op": "moves", "token": played.issued["token"], "at": played.at,
                          "moves": next_move(played.board)})
            answer = ws.receive_json()
            assert (answer["status"], answer["code"], answer["retry_after"]) == (503, "store_unavailable", 5)
            socket_.__exit__(None, None, None)
            assert api.finish(played.issued).status_code == 503
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


PG_BIN = next(iter(sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)), None) \
    if Path("/usr/lib/postgresql").is_dir() else None


class OwnPostgres:
    """A PostgreSQL cluster of the test's own (initdb in a fresh folder, a free port), run as the
    ``postgres`` user when the tests run as root (PostgreSQL refuses to run as root)."""

    def __init__(self) -> None:
        import os
        import tempfile

        self.folder = Path(tempfile.mkdtemp(prefix="game2048-pg-"))
        self.port, self.proc = _free_port(), None
        self.as_user = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        if self.as_user:
            shutil.chown(self.folder, "postgres", "postgres")
        subprocess.run([*self.as_user, str(PG_BIN / "initdb"), "-D", str(self.folder / "data"), "-A", "trust",
                        "-U", "postgres"], check=True, capture_output=True)

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [*self.as_user, str(PG_BIN / "postgres"), "-D", str(self.folder / "data"), "-p", str(self.port),
             "-k", str(self.folder), "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                import psycopg

                psycopg.connect(f"host=127.0.0.1 port={self.port} user=postgres", connect_timeout=1).close()
                return
            except Exception:
                time.sleep(0.2)
        raise AssertionError("postgres did not start")

    def stop(self) -> None:
        if self.proc is not None:  # fast shutdown: clients are cut off
            subprocess.run([*self.as_user, str(PG_BIN / "pg_ctl"), "-D", str(self.folder / "data"), "stop",
                            "-m", "fast", "-w"], capture_output=True, timeout=60)
            self.proc.wait(timeout=30)
            self.proc = None

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)


@pytest.fixture
def postgres() -> Iterator[OwnPostgres]:
    if PG_BIN is None or not (PG_BIN / "initdb").exists():
        pytest.skip("PostgreSQL's initdb and postgres are not installed (apt-get install postgresql)")
    own = OwnPostgres()
    own.start()
    try:
        yield own
    finally:
        own.remove()


def test_postgres_down_in_the_middle_of_play_answers_503_then_everything_acknowledged_is_there(
        settings, postgres):
    app = create_app(replace(settings, database_url=postgres.url))
    try:
        with TestClient(app) as client:
            api = Api(client)
            kept, _, done = api.honest(4, moves=15, name="Before")
            assert done.status_code == 200
            played = api.served(4, 20)
            acked = (played.at, played.board)
            postgres.stop()
            began = time.monotonic()
            while time.monotonic() - began < DOWN:
                start = time.monotonic()
                r = api.moves(played.issued, played.at, next_move(played.board))
                assert time.monotonic() - start < 8, "an answer within seconds, never a hang"
                assert r.status_code == 503, r.text
                assert r.json()["code"] == "store_unavailable" and int(r.headers["retry-after"]) > 0
                assert api.finish(played.issued).status_code == 503
                assert client.get("/readyz").status_code == 503
                time.sleep(1)
            postgres.start()
            deadline = time.monotonic() + 10
            while client.get("/readyz").status_code != 200:
                assert time.monotonic() < deadline, "ready again once the database is back"
                time.sleep(0.2)
            state = api.state(played.issued).json()
            assert (state["at"], state["board"]) == acked  # every acknowledged move is there
            assert client.get(f"/api/games/{kept['id']}").status_code == 200  # and the finish
            api.play_on(played, 10)
            finished = api.finish(played.issued)
            assert finished.status_code == 200 and finished.json()["verified"]
    finally:
        app.state.engine.dispose()


# -- a store that goes away in the middle of a burst of moves and finishes ------------------------

PLAYERS = 4


def _burst_through_an_outage(client: TestClient, stop_store, start_store) -> None:
    """Four players move as fast as the answers come while the store stops, stays down for
    ``DOWN`` seconds and comes back; one of them finishes in the middle of it. Every answer is a
    200 or a 503 with Retry-After, within seconds; afterwards every game holds exactly the moves
    its player saw acknowledged, and the finish that was refused lands."""
    import threading

    api = Api(client)
    games = [api.served(4, 5) for _ in range(PLAYERS)]
    outage = threading.Event()
    done = threading.Event()
    statuses: list[int] = []
    slowest = [0.0]
    finishes: list[int] = []
    wrong: list[str] = []

    def player(i: int) -> None:
        played = games[i]
        while not done.is_set():
            if i == 0 and outage.is_set() and not finishes:  # a finish sent while the store is down
                finishes.append(api.finish(played.issued, name="Outage").status_code)
            if played.over:  # (on a fast machine a game can end before the outage: its finish waits)
                if i == 0 and not finishes:
                    time.sleep(0.05)
                    continue
                return
            letter = next_move(played.board)
            began = time.monotonic()
            r = api.moves(played.issued, played.at, letter)
            slowest[0] = max(slowest[0], time.monotonic() - began)
            statuses.append(r.status_code)
            if r.status_code == 200:
                played.log += letter
                played.answers.append(r.json())
            else:  # (a thread's own assert would go unseen: what is wrong is kept for the test)
                if not (r.status_code == 503 and r.json().get("code") == "store_unavailable"
                        and int(r.headers.get("retry-after", "0")) > 0):
                    wrong.append(f"{r.status_code} {r.headers.get('retry-after')} {r.text}")
                time.sleep(0.2)

    threads = [threading.Thread(target=player, args=(i,)) for i in range(PLAYERS)]
    for t in threads:
        t.start()
    try:
        time.sleep(1.0)
        stop_store()
        outage.set()
        time.sleep(DOWN)
        start_store()
        deadline = time.monotonic() + 15
        while client.get("/readyz").status_code != 200:
            assert time.monotonic() < deadline, "ready again once the store is back"
            time.sleep(0.2)
        time.sleep(2.0)  # the burst goes on against the store that came back
    finally:
        done.set()
        for t in threads:
            t.join(timeout=30)
    assert wrong == [] and set(statuses) == {200, 503}, (wrong[:3], sorted(set(statuses)))
    assert not any(t.is_alive() for t in threads)
    assert slowest[0] < 8, f"an answer within seconds, never a hang ({slowest[0]:.1f} s)"
    assert finishes == [503]
    for played in games:  # exactly what each player saw acknowledged, nothing lost or added
        state = api.state(played.issued).json()
        assert (state["at"], state["log"], state["board"]) == (played.at, played.log, played.board)
    done_game = api.finish(games[0].issued, name="Outage")
    assert done_game.status_code == 200 and done_game.json()["verified"]


def test_a_burst_of_moves_and_a_finish_through_a_redis_outage(settings, redis):
    app = create_app(replace(settings, redis_url=f"redis://127.0.0.1:{redis.port}/0"))
    try:
        with TestClient(app) as client:
            _burst_through_an_outage(client, redis.stop, redis.start)
    finally:
        app.state.engine.dispose()


def test_a_burst_of_moves_and_a_finish_through_a_postgres_outage(settings, postgres):
    app = create_app(replace(settings, database_url=postgres.url))
    try:
        with TestClient(app) as client:
            _burst_through_an_outage(client, postgres.stop, postgres.start)
    finally:
        app.state.engine.dispose()
