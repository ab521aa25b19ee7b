"""Ranked games against the real ``game2048 serve --workers 2``, every request on a fresh connection,
so consecutive moves of one game reach either worker: the server deals fair, and never forgets.
"""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from game2048 import replay

from ..conftest import next_move
from ..serving import Server, fresh_post
from .test_live import new_tiles

GAMES = 8
MOVES = 40


@pytest.fixture
def server(database_url: str, tmp_path: Path):  # type: ignore[no-untyped-def]
    running = Server(database_url, tmp_path / "server.log", workers=2)
    yield running
    running.kill()


def _play_fairly(url: str, size: int, name: str = "fair") -> tuple[int, float]:
    """One game over fresh connections, checked at every step; (moves, seconds). Each game finishes
    under a name of its own: a name belongs to the first finish under it."""
    r = fresh_post(url, "/api/games", {"size": size})
    assert r.status_code == 201, r.text
    issued, bodies = r.json(), [r.text]
    board, at, log = issued["board"], 0, ""
    answers = {0: board}
    started = time.perf_counter()
    while at < MOVES:
        letter = next_move(board)
        if letter is None:
            break
        r = fresh_post(url, f"/api/games/{issued['id']}/moves", {"token": issued["token"], "at": at,
                                                                  "moves": letter})
        assert r.status_code == 200, r.text
        bodies.append(r.text)
        answer = r.json()
        assert new_tiles(board, letter, answer["board"]) in ([2], [4])  # the slide plus one new tile
        board, at, log = answer["board"], answer["at"], log + letter
        answers[at] = board
    elapsed = time.perf_counter() - started
    done = fresh_post(url, f"/api/games/{issued['id']}/finish", {"token": issued["token"], "name": name})
    assert done.status_code == 200, done.text
    seed = done.json()["seed"]
    assert not any(str(seed) in body for body in bodies)  # never shown before the finish
    record = json.loads(fresh_post(url, f"/api/games/{issued['id']}/finish",
                                   {"token": issued["token"], "name": name}).text)
    assert record == done.json()
    game = replay(size, seed, "")
    assert game.board == answers[0]
    for i, letter in enumerate(log):  # the revealed record replays to the dealt game
        game.move(letter)
        assert game.board == answers[i + 1]
    return at, elapsed


def test_eight_concurrent_games_over_fresh_connections_are_dealt_fairly(server: Server) -> None:
    started = time.perf_counter()
    with ThreadPoolExecutor(GAMES) as pool:
        results = list(pool.map(lambda i: _play_fairly(server.url, 3 + i % 4, f"fair{'abcdefgh'[i]}"),
                                range(GAMES)))
    elapsed = time.perf_counter() - started
    moves = sum(m for m, _ in results)
    assert moves >= GAMES * 10
    # a figure to read, never a pass mark: each move is a new TCP connection here
    print(f"\n{GAMES} concurrent games, {moves} moves over fresh connections in {elapsed:.2f} s: "
          f"{moves / elapsed:.0f} moves/s")


def test_retries_forks_and_undo_across_workers(server: Server) -> None:
    issued = fresh_post(server.url, "/api/games", {"size": 4}).json()
    token, path = issued["token"], f"/api/games/{issued['id']}/moves"
    board, at, log = issued["board"], 0, ""
    for _ in range(6):
        letter = next_move(board)
        answer = fresh_post(server.url, path, {"token": token, "at": at, "moves": letter}).json()
        board, at, log = answer["board"], answer["at"], log + letter
    for _ in range(4):  # the same retry, wherever it lands, gets the same answer
        assert fresh_post(server.url, path, {"token": token, "at": at - 1, "moves": log[-1]}).json() == answer
    fork = next(x for x in "LDRU" if x != log[2])
    assert fresh_post(server.url, path, {"token": token, "at": 2, "moves": fork}).status_code == 409
    undone = fresh_post(server.url, path, {"token": token, "at": at, "moves": "ZZZ"}).json()
    assert undone["undos_left"] == 0 and undone["ranked"] is False
    fourth = fresh_post(server.url, path, {"token": token, "at": at + 3, "moves": "Z"})
    assert fourth.status_code == 422 and "fourth undo" in fourth.json()["error"]


def test_a_game_played_over_the_websocket_of_the_real_server(server: Server) -> None:
    from websockets.sync.client import connect

    issued = fresh_post(server.url, "/api/games", {"size": 4}).json()
    board, at = issued["board"], 0
    with connect(f"ws://127.0.0.1:{server.port}/api/games/{issued['id']}/play") as ws:
        for _ in range(20):
            letter = next_move(board)
            ws.send(json.dumps({"op": "moves", "token": issued["token"], "at": at, "moves": letter}))
            answer = json.loads(ws.recv(timeout=20))
            assert new_tiles(board, letter, answer["board"]) in ([2], [4])
            board, at = answer["board"], answer["at"]
        ws.send("not json")
        assert json.loads(ws.recv(timeout=20))["status"] == 422
        ws.send(json.dumps({"op": "finish", "token": issued["token"], "name": "ws"}))
        done = json.loads(ws.recv(timeout=20))
    assert done["op"] == "finish" and done["verified"]
    import httpx

    record = httpx.get(f"{server.url}/api/games/{issued['id']}", timeout=20).json()
    assert record["seed"] == done["seed"] and replay(4, record["seed"], record["log"]).board == board
