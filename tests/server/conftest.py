"""Fixtures for the server tests: an app on a fresh database, SQLite always, PostgreSQL when reachable."""

from __future__ import annotations

import functools
import os
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from game2048 import Game, slide
from game2048.server import Settings, create_app

POSTGRES_URL = os.environ.get("GAME2048_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/postgres")


def in_a_thread_of_its_own(test):  # type: ignore[no-untyped-def]
    """Run ``test`` on a fresh thread: its event loops, its thread's SQLite connection. (Other
    tests of the suite, the browser's, leave an event loop running on the main thread, where
    ``asyncio.run`` refuses to start another.)"""

    @functools.wraps(test)
    def run(*args, **kwargs):  # type: ignore[no-untyped-def]
        with ThreadPoolExecutor(1) as pool:
            return pool.submit(test, *args, **kwargs).result()

    return run


def clear_of_a_minute_edge(seconds: float) -> None:
    """Wait, if the clock's next minute is less than ``seconds`` off, until it has passed. The CPU
    budgets count in windows on the clock's minutes, and the window just begun weighs the one
    before by what is left of it: a budget filled at 23:45:59.99 is no longer full at 23:46:00.03
    (a test once got 200 where it expected 429 so). A test that fills one and expects a refusal
    calls this first, with the seconds it takes from there."""
    left = 60 - time.time() % 60
    if left < seconds:
        time.sleep(left + 0.05)


def postgres_admin_url() -> str | None:
    """The admin URL if a PostgreSQL server answers there, else None."""
    try:
        import psycopg

        with psycopg.connect(POSTGRES_URL, connect_timeout=2):
            return POSTGRES_URL
    except Exception:
        return None


@pytest.fixture(scope="session")
def postgres_database() -> Iterator[str]:
    """A throwaway PostgreSQL database for the session, dropped at the end."""
    admin = postgres_admin_url()
    if admin is None:
        pytest.skip(f"PostgreSQL not reachable at {POSTGRES_URL} (set GAME2048_TEST_POSTGRES to test it)")
    import psycopg

    name = f"game2048_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    base, _, _ = admin.rpartition("/")
    try:
        yield f"{base}/{name}"
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def fresh_postgres_schema(database: str) -> str:
    """An empty schema in the session's database; the URL puts it first on the search path."""
    import psycopg

    schema = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(database, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    return f"{database}?options=-csearch_path%3D{schema}"


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty database: an SQLite file, or a fresh schema in a throwaway PostgreSQL database."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'game2048.sqlite3'}"
    return fresh_postgres_schema(request.getfixturevalue("postgres_database"))


#: The operator's token for /metrics in the tests' apps (the test client is no loopback client).
METRICS_TOKEN = "operator"
METRICS = {"Authorization": f"Bearer {METRICS_TOKEN}"}


@pytest.fixture
def settings(database_url: str) -> Settings:
    from game2048.server.config import normalise_database_url

    return Settings(database_url=normalise_database_url(database_url), secret=None, rate_limit="0",
                    hint_rate_limit="0", board_hint_rate_limit="0", move_rate_limit="0", daily_tries=50,
                    metrics_token=METRICS_TOKEN, engine_check="inline")


@pytest.fixture
def app(settings: Settings):  # type: ignore[no-untyped-def]
    app = create_app(settings)
    yield app
    app.state.engine.dispose()


@pytest.fixture
def client(app) -> Iterator[TestClient]:  # type: ignore[no-untyped-def]
    with TestClient(app) as c:
        yield c


PREFERENCE = ("L", "D", "R", "U")
NAMES = {"L": "left", "D": "down", "R": "right", "U": "up"}


def next_move(board: list[list[int]]) -> str | None:
    """The first letter of L, D, R, U that changes ``board`` (the rules alone: no seed needed)."""
    for letter in PREFERENCE:
        if slide(board, NAMES[letter])[0] != board:
            return letter
    return None


def socket_move(ws, played: Played, letter: str | None = None) -> dict:  # type: ignore[no-untyped-def]
    """Send one move of ``played`` over the play socket ``ws`` (``letter``, else ``next_move``), and
    note it in ``played`` if it was played; the answer."""
    letter = letter or next_move(played.board)
    ws.send_json({"op": "moves", "token": played.issued["token"], "at": played.at, "moves": letter})
    answer = ws.receive_json()
    if "status" not in answer:
        played.log += letter
        played.answers.append(answer)
    return answer


def play(size: int, seed: int, moves: int | None = None) -> Game:
    """A deterministic local game: the first legal move in the order left, down, right, up.

    Plays ``moves`` moves, or to the end when None.
    """
    game = Game(size, seed)
    while not game.over and (moves is None or game.moves < moves):
        legal = game.legal_moves()
        game.move(next(d for d in ("left", "down", "right", "up") if d in legal))
    return game


@dataclass
class Played:
    """A game played through the server, as the client saw it."""

    issued: dict
    log: str = ""
    answers: list[dict] = field(default_factory=list)

    @property
    def last(self) -> dict:
        return self.answers[-1] if self.answers else self.issued

    @property
    def board(self) -> list[list[int]]:
        return self.last["board"]

    @property
    def score(self) -> int:
        return self.last["score"]

    @property
    def at(self) -> int:
        return self.last["at"]

    @property
    def over(self) -> bool:
        return self.last["over"]


class Api:
    """The test's view of the API: start, play and finish games in one line each."""

    play = staticmethod(play)

    def __init__(self, client: TestClient) -> None:
        self.client = client
        #: The name keys this "browser" was given, by name, sent with later finishes as the page does.
        self.name_keys: dict[str, str] = {}

    def start(self, size: int = 4, mode: str = "classic") -> dict:
        r = self.client.post("/api/games", json={"size": size, "mode": mode})
        assert r.status_code == 201, r.text
        return r.json()

    def moves(self, issued: dict, at: int, moves: str, token: str | None = None):
        body = {"token": token or issued["token"], "at": at, "moves": moves}
        return self.client.post(f"/api/games/{issued['id']}/moves", json=body)

    def play_on(self, played: Played, moves: int | None = 60) -> Played:
        """Play up to ``moves`` more moves through the server, each chosen from the last answer's board."""
        count = 0
        while not played.over and (moves is None or count < moves):
            letter = next_move(played.board)
            if letter is None:
                break
            r = self.moves(played.issued, played.at, letter)
            assert r.status_code == 200, r.text
            played.log += letter
            played.answers.append(r.json())
            count += 1
        return played

    def served(self, size: int = 4, moves: int | None = 60, mode: str = "classic") -> Played:
        """Start a game and play it through the server."""
        return self.play_on(Played(self.start(size, mode)), moves)

    def finish(self, issued: dict, *, name: str = "Ada", **fields: object):
        """Finish the game under ``name``, with the name key this client holds for it (unless
        ``name_key`` is given), keeping a key the answer hands out."""
        body: dict[str, object] = {"token": issued["token"], "name": name} | fields
        if "name_key" not in fields and name in self.name_keys:
            body["name_key"] = self.name_keys[name]
        r = self.client.post(f"/api/games/{issued['id']}/finish", json=body)
        if r.status_code == 200 and r.json().get("name_key"):
            self.name_keys[name] = r.json()["name_key"]
        return r

    def honest(self, size: int = 4, moves: int | None = 60, name: str = "Ada", mode: str = "classic"):
        """Start a game, play it through the server, finish it: (issued, played, response)."""
        played = self.served(size, moves, mode)
        return played.issued, played, self.finish(played.issued, name=name)

    def record(self, game: Game, *, name: str = "Ada", **fields: object):
        """Send a local game as a practice record (``POST /api/records``); ``fields`` override."""
        body = {"size": game.size, "seed": game.seed, "log": game.log, "score": game.score,
                "name": name} | fields
        return self.client.post("/api/records", json=body)

    def state(self, issued: dict):
        return self.client.post(f"/api/games/{issued['id']}/state", json={"token": issued["token"]})

    def stored(self, game_id: str) -> dict | None:
        r = self.client.get(f"/api/games/{game_id}")
        return r.json() if r.status_code == 200 else None


@pytest.fixture
def api(client: TestClient) -> Api:
    return Api(client)
