"""SIGKILL during a burst of moves and finishes: every acknowledged move and score is there after a
restart, and every game in play goes on from its last acknowledged move.

Runs the real server (``game2048 serve --workers 2``) in a subprocess on the test's database.
"""

from __future__ import annotations

import threading
import time
import zlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from game2048 import replay

from ..conftest import next_move
from ..serving import Server, fresh_post

GAMES = 8
FINISHED = 12


def name_of(game_id: str) -> str:
    """A name of each game's own: a name belongs to the first finish under it (its name key)."""
    return f"d{zlib.crc32(game_id.encode())}"


def test_acknowledged_moves_and_finishes_survive_sigkill(database_url: str, tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    server = Server(database_url, log, workers=2)
    acked: dict[str, list[dict]] = {}  # game id -> answers acknowledged, in order
    sent: dict[str, str] = {}  # game id -> letters sent (the last one may be unacknowledged)
    scores: dict[str, dict] = {}  # finished game id -> the finish answer
    stop = threading.Event()
    lock = threading.Lock()
    try:
        with httpx.Client(base_url=server.url, timeout=20) as http:
            games = [http.post("/api/games", json={"size": 4}).json() for _ in range(GAMES + FINISHED)]
            to_finish = games[GAMES:]
            for issued in to_finish:  # a few moves each, then finished in the burst below
                r = http.post(f"/api/games/{issued['id']}/moves",
                              json={"token": issued["token"], "at": 0, "moves": next_move(issued["board"])})
                assert r.status_code == 200, r.text
        games = games[:GAMES]

        def mover(issued: dict) -> None:
            acked[issued["id"]], sent[issued["id"]] = [], ""
            board, at = issued["board"], 0
            while not stop.is_set():
                letter = next_move(board)
                if letter is None:
                    return
                sent[issued["id"]] += letter
                try:
                    r = fresh_post(server.url, f"/api/games/{issued['id']}/moves",
                                   {"token": issued["token"], "at": at, "moves": letter})
                except httpx.HTTPError:
                    return  # the server died before answering: not acknowledged
                if r.status_code != 200:
                    return
                with lock:
                    acked[issued["id"]].append(r.json())
                board, at = r.json()["board"], r.json()["at"]

        def finisher(issued: dict) -> None:
            try:
                r = fresh_post(server.url, f"/api/games/{issued['id']}/finish",
                               {"token": issued["token"], "name": name_of(issued["id"])})
            except httpx.HTTPError:
                return
            if r.status_code == 200:
                with lock:
                    scores[issued["id"]] = r.json()

        with ThreadPoolExecutor(GAMES + 4) as pool:
            for issued in games:
                pool.submit(mover, issued)
            deadline = time.monotonic() + 60
            while sum(len(a) for a in acked.values()) < 20 * GAMES and time.monotonic() < deadline:
                time.sleep(0.05)
            for issued in to_finish:
                pool.submit(finisher, issued)
            while len(scores) < FINISHED // 3 and time.monotonic() < deadline:
                time.sleep(0.01)
            server.kill()  # SIGKILL in the middle of the burst
            stop.set()
    finally:
        server.kill()

    assert sum(len(a) for a in acked.values()) >= 20 * GAMES, "too few moves were acknowledged"
    assert scores, "no finish was acknowledged before the kill"
    restarted = Server(database_url, log, workers=2)
    try:
        for issued in games:
            answers = acked[issued["id"]]
            last = answers[-1]
            token = issued["token"]
            state = fresh_post(restarted.url, f"/api/games/{issued['id']}/state", {"token": token}).json()
            # the acknowledged moves are there; at most the one in flight was applied without an answer
            assert state["log"][:last["at"]] == sent[issued["id"]][:last["at"]]
            assert last["at"] <= state["at"] <= last["at"] + 1
            # the client goes on from its last acknowledged answer: resending the letter in flight
            # is a retry or a new move, either way the game continues
            letter = sent[issued["id"]][last["at"]] if len(sent[issued["id"]]) > last["at"] else next_move(
                last["board"])
            r = fresh_post(restarted.url, f"/api/games/{issued['id']}/moves",
                           {"token": token, "at": last["at"], "moves": letter})
            assert r.status_code == 200, r.text
            answers.append(r.json())
            done = fresh_post(restarted.url, f"/api/games/{issued['id']}/finish",
                              {"token": token, "name": name_of(issued["id"])})
            assert done.status_code == 200, done.text
            # the revealed record replays to every board the client was dealt
            boards = {a["at"]: a["board"] for a in answers}
            game = replay(4, done.json()["seed"], "")
            for i, played in enumerate(state["log"][:last["at"]] + letter):
                game.move(played)
                assert boards.get(i + 1, game.board) == game.board
        with httpx.Client(base_url=restarted.url, timeout=10) as http:
            for game_id, answer in scores.items():
                r = http.get(f"/api/games/{game_id}")
                assert r.status_code == 200, (game_id, r.text)
                assert r.json()["score"] == answer["score"] and r.json()["seed"] == answer["seed"]
                again = fresh_post(restarted.url, f"/api/games/{game_id}/finish",
                                   {"token": next(g["token"] for g in to_finish if g["id"] == game_id),
                                    "name": name_of(game_id)})
                assert again.status_code == 200 and again.json() == answer
    finally:
        restarted.kill()


def test_moves_can_be_made_to_survive_a_power_cut(tmp_path):  # type: ignore[no-untyped-def]
    """GAME2048_MOVE_DURABILITY=disk: a move's commit is flushed to disk before it is answered
    (SQLite's synchronous=FULL on the connection moves are written on); anything else is refused."""
    import pytest
    from fastapi.testclient import TestClient

    from game2048.server import Settings, create_app

    env = {"GAME2048_MOVE_DURABILITY": "disk", "GAME2048_RATE_LIMIT": "0", "GAME2048_WARM_SOLVER": "0"}
    settings = Settings.from_env(f"sqlite:///{tmp_path}/disk.sqlite", env=env)
    assert settings.move_durability == "disk"
    app = create_app(settings)
    with TestClient(app) as client:
        issued = client.post("/api/games", json={"size": 4}).json()
        for letter in "LRLRUD":
            body = {"token": issued["token"], "at": 0, "moves": letter}
            r = client.post(f"/api/games/{issued['id']}/moves", json=body)
            if r.status_code == 200:
                break
        assert r.status_code == 200
        store = app.state.store
        with store._connection() as conn:
            assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    with pytest.raises(ValueError, match="GAME2048_MOVE_DURABILITY"):
        Settings.from_env("sqlite://", env={"GAME2048_MOVE_DURABILITY": "sometimes"})
