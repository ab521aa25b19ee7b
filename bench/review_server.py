"""Do reviews slow down moves and finishes? Their latency with and without reviews being made.

    python bench/review_server.py [--finishes 60] [--finish-moves 300] [--reviews 3] [--review-moves 3000]

Starts ``game2048 serve`` (one worker, a fresh SQLite file, the default review
settings: one review process at niceness 10) on a free loopback port. Then:

1. after two games not measured (the server warming up), plays
   ``--finishes`` 4x4 games one after another, each ``--finish-moves``
   moves sent one at a time over a keep-alive HTTP connection (the next
   move chosen from the board the server dealt), then finished (a replay
   of the server's log and a committed row), and records each move's and
   each finish's latency;
2. sends ``--reviews`` practice records of ``--review-moves`` moves each
   (4x4 games played here by the ``fast`` solver), asks for their reviews,
   and while the review process works, plays and finishes the same number
   of games again;
3. waits for the reviews and prints both latency distributions, how many
   of the second round's games ended while reviews were still being made,
   and how long the reviews took.

Prints figures; never fails on timing.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from game2048 import slide
from game2048.solver import play_game

ORDER = (("L", "left"), ("D", "down"), ("R", "right"), ("U", "up"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Client:
    """One keep-alive HTTP connection to the server."""

    def __init__(self, port: int) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

    def call(self, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
        data = json.dumps(body).encode() if body is not None else None
        try:
            self.conn.request(method, path, body=data, headers={"Content-Type": "application/json"})
            answer = self.conn.getresponse()
        except (BrokenPipeError, ConnectionResetError, http.client.RemoteDisconnected):
            # the server closes a connection idle for its keep-alive time (5 s), as a busy machine's
            # solver game between two calls can take: once more, on a new connection
            self.conn.close()
            self.conn.request(method, path, body=data, headers={"Content-Type": "application/json"})
            answer = self.conn.getresponse()
        return answer.status, json.loads(answer.read() or b"{}")


def first_legal(board: list[list[int]]) -> str | None:
    return next((letter for letter, name in ORDER if slide(board, name)[0] != board), None)


def play_and_finish(client: Client, moves: int, moves_taken: list[float]) -> float:
    """Start a game, play up to ``moves`` moves through the server, finish it: the seconds the
    finish took (each move's seconds go to ``moves_taken``)."""
    status, issued = client.call("POST", "/api/games", {"size": 4})
    assert status == 201, issued
    board, at = issued["board"], 0
    for _ in range(moves):
        letter = first_legal(board)
        if letter is None:
            break
        start = time.perf_counter()
        status, answer = client.call("POST", f"/api/games/{issued['id']}/moves",
                                     {"token": issued["token"], "at": at, "moves": letter})
        moves_taken.append(time.perf_counter() - start)
        assert status == 200, answer
        board, at = answer["board"], answer["at"]
    start = time.perf_counter()
    status, answer = client.call("POST", f"/api/games/{issued['id']}/finish",
                                 {"token": issued["token"], "name": f"bench {issued['id'][:8]}"})
    assert status == 200, answer
    return time.perf_counter() - start


def solver_record(client: Client, moves: int, seed: int) -> str:
    """A 4x4 game of ``moves`` moves played here by the ``fast`` solver, kept as a practice record; its id."""
    game = play_game(4, seed, "fast", max_moves=moves)
    status, kept = client.call("POST", "/api/records", {"size": 4, "seed": seed, "log": game.log,
                                                        "score": game.score, "name": f"r{seed}"})
    assert status == 201, kept
    return kept["id"]


def describe(name: str, seconds: list[float]) -> str:
    ms = sorted(1000 * s for s in seconds)
    p99 = ms[min(len(ms) - 1, int(0.99 * len(ms)))]
    return f"| {name} | {len(ms)} | {statistics.median(ms):.1f} | {p99:.1f} | {max(ms):.1f} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--finishes", type=int, default=60)
    parser.add_argument("--finish-moves", type=int, default=300)
    parser.add_argument("--reviews", type=int, default=3)
    parser.add_argument("--review-moves", type=int, default=3000)
    args = parser.parse_args()
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "GAME2048_RATE_LIMIT": "0", "GAME2048_REVIEW_PER_CLIENT": str(args.reviews)}
        command = Path(sys.executable).with_name("game2048")
        server = subprocess.Popen([str(command), "serve", "--port", str(port), "--db",
                                   f"sqlite:///{tmp}/bench.sqlite3"], env=env,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            for _ in range(300):
                try:
                    Client(port).call("GET", "/api/leaderboard?limit=1")
                    break
                except OSError:
                    time.sleep(0.1)
            print(f"load average {os.getloadavg()[0]:.1f} at the start")
            client = Client(port)
            for _ in range(2):  # not measured: the server's first requests load code and warm caches
                play_and_finish(client, args.finish_moves, [])
            quiet_moves: list[float] = []
            quiet = [play_and_finish(client, args.finish_moves, quiet_moves) for _ in range(args.finishes)]
            games = [solver_record(client, args.review_moves, i) for i in range(args.reviews)]
            asked = time.perf_counter()
            for game_id in games:
                assert client.call("GET", f"/api/games/{game_id}/review")[0] == 202

            def reviewing() -> int:
                return sum(client.call("GET", f"/api/games/{g}/review")[0] == 202 for g in games)

            busy_moves: list[float] = []
            busy: list[float] = []
            during = 0
            while len(busy) < args.finishes:
                busy.append(play_and_finish(client, args.finish_moves, busy_moves))
                during += reviewing() > 0
            while reviewing():
                time.sleep(0.5)
            made = time.perf_counter() - asked
        finally:
            server.terminate()
            server.wait(timeout=30)
    print(f"{args.reviews} reviews of {args.review_moves} moves made in {made:.1f} s; "
          f"{during} of the second round's {len(busy)} games ended while they were being made")
    print(f"moves, one at a time, and finishes of {args.finish_moves}-move games:")
    print("| while | moves | p50 ms | p99 ms | max ms |")
    print("|---|---|---|---|---|")
    print(describe("no review running", quiet_moves))
    print(describe("reviews being made", busy_moves))
    print()
    print("| while | finishes | p50 ms | p99 ms | max ms |")
    print("|---|---|---|---|---|")
    print(describe("no review running", quiet))
    print(describe("reviews being made", busy))
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
