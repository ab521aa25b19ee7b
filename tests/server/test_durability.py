"""SIGKILL during a burst of finishes: every acknowledged score is there after a restart.

Runs the real server (``game2048 serve``) in a subprocess on the test's database.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from game2048 import Game

GAMES = 60
#: Finishes in flight at once when the server is killed.
CLIENTS = 20


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """``game2048 serve`` in a subprocess."""

    def __init__(self, db: str, log: Path) -> None:
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {**os.environ, "GAME2048_RATE_LIMIT": "0", "GAME2048_SECRET": "durability"}
        self.proc = subprocess.Popen(
            [sys.executable, "-c", "from game2048.cli import app; app()", "serve",
             "--host", "127.0.0.1", "--port", str(self.port), "--db", db],
            env=env, stdout=log.open("ab"), stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server exited: {log.read_text()[-2000:]}")
            try:
                if httpx.get(f"{self.url}/api/leaderboard", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.1)
        self.kill()
        raise RuntimeError("the server did not start in 30 s")

    def kill(self) -> None:
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)


def _play(size: int, seed: int, moves: int) -> Game:
    game = Game(size, seed)
    while not game.over and game.moves < moves:
        legal = game.legal_moves()
        game.move(next(d for d in ("left", "down", "right", "up") if d in legal))
    return game


def test_acknowledged_scores_survive_sigkill(database_url: str, tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    server = Server(database_url, log)
    acked: dict[str, int] = {}
    try:
        with httpx.Client(base_url=server.url, timeout=10) as http:
            issued = [http.post("/api/games", json={"size": 4}).json() for _ in range(GAMES)]
        played = {i["id"]: _play(4, i["seed"], 60 + n % 40) for n, i in enumerate(issued)}
        lock = threading.Lock()
        enough = threading.Event()

        def finish(game: dict) -> None:
            g = played[game["id"]]
            body = {"token": game["token"], "log": g.log, "score": g.score, "name": "durable"}
            try:
                r = http.post(f"/api/games/{game['id']}/finish", json=body)
            except httpx.HTTPError:
                return  # the server died before answering: not acknowledged
            if r.status_code == 200:
                with lock:
                    acked[game["id"]] = r.json()["score"]
                    if len(acked) >= GAMES // 3:
                        enough.set()

        limits = httpx.Limits(max_connections=CLIENTS)
        with httpx.Client(base_url=server.url, timeout=10, limits=limits) as http, \
                ThreadPoolExecutor(CLIENTS) as pool:
            for game in issued:
                pool.submit(finish, game)
            assert enough.wait(60), "too few finishes were acknowledged"
            server.kill()  # SIGKILL in the middle of the burst
    finally:
        server.kill()

    assert GAMES // 3 <= len(acked) < GAMES, "the kill should land during the burst"
    restarted = Server(database_url, log)
    try:
        with httpx.Client(base_url=restarted.url, timeout=10) as http:
            for game_id, score in acked.items():
                r = http.get(f"/api/games/{game_id}")
                assert r.status_code == 200, (game_id, r.text)
                assert r.json()["score"] == score and r.json()["log"] == played[game_id].log
            board = http.get("/api/leaderboard", params={"size": 4, "limit": 100}).json()["entries"]
            ids = [e["game_id"] for e in board]
            assert len(ids) == len(set(ids)) and set(acked) <= set(ids)
    finally:
        restarted.kill()
