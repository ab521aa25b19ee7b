"""Shared by the terminal tests: a small in-process fake of the ranked-game API (issue 10)."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from game2048 import Game, replay


class FakeRankedServer:
    """POST /api/games, /api/games/{id}/moves and /finish, as the ranked-game API specifies."""

    def __init__(self) -> None:
        self.games: dict[str, dict[str, Any]] = {}
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.drop_next_answer = False

    def new_game(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        gid = f"g{len(self.games) + 1}"
        seed = 5 + len(self.games)  # game 1 opens like Game(4, 5): "right" changes nothing
        self.games[gid] = {"seed": seed, "size": body["size"], "token": f"t-{gid}", "log": "", "answers": {}}
        game = Game(body["size"], seed)
        return 201, {"id": gid, "token": f"t-{gid}", "size": body["size"], "mode": body["mode"], "date": None,
                     **self.public(game), "at": 0}  # fmt: skip

    @staticmethod
    def public(game: Game) -> dict[str, Any]:
        return {"board": game.board, "score": game.score, "over": game.over, "won": game.won,
                "undos_left": game.undos_left, "ranked": game.ranked}  # fmt: skip

    def moves(self, gid: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        g = self.games.get(gid)
        if g is None:
            return 404, {"error": "no such game"}
        if body.get("token") != g["token"]:
            return 403, {"error": "wrong token"}
        at, letters, log = body["at"], body["moves"], g["log"]
        if at > len(log):
            return 409, {"error": "at is ahead of the game"}
        if at < len(log):
            if log[at : at + len(letters)] == letters:
                return 200, g["answers"][at + len(letters)]
            return 409, {"error": "these moves differ from the game's"}
        try:
            game = replay(g["size"], g["seed"], log + letters)
        except ValueError as exc:
            return 422, {"error": str(exc)}
        g["log"] = game.log
        answer = {"at": len(game.log), **self.public(game)}
        g["answers"][len(game.log)] = answer
        return 200, answer

    def finish(self, gid: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        g = self.games[gid]
        if body.get("token") != g["token"]:
            return 403, {"error": "wrong token"}
        game = replay(g["size"], g["seed"], g["log"])
        g["name"] = body["name"]
        return 200, {"verified": True, "ranked": game.ranked, "score": game.score, "max_tile": game.max_tile,
                     "rank": 1 if game.ranked else None, "seed": g["seed"]}  # fmt: skip

    def handle(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        self.requests.append((path, body))
        if path == "/api/games":
            return self.new_game(body)
        m = re.fullmatch(r"/api/games/(\w+)/(moves|finish)", path)
        if not m:
            return 404, {"error": "not found"}
        return self.moves(m.group(1), body) if m.group(2) == "moves" else self.finish(m.group(1), body)


@pytest.fixture
def fake() -> Iterator[tuple[FakeRankedServer, str]]:
    state = FakeRankedServer()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            status, answer = state.handle(self.path, body)
            if state.drop_next_answer:  # applied, but the answer is lost on the way back
                state.drop_next_answer = False
                self.close_connection = True
                return
            data = json.dumps(answer).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state, f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
