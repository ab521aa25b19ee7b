"""Do reviews slow down moves and finishes? Finish latency with and without reviews being made.

    python bench/review_server.py [--finishes 200] [--reviews 4] [--review-moves 3000]

Starts ``game2048 serve`` (one worker, a fresh SQLite file, the default review
settings: one review process at niceness 10) on a free loopback port. Then:

1. sends ``--finishes`` finishes of 4x4 games one after another (each a
   300-move replay and a committed row) and records their latency;
2. asks for the reviews of ``--reviews`` 4x4 games of ``--review-moves``
   moves each (played by the ``fast`` solver), and while the review process
   works, sends the same number of finishes again;
3. waits for the reviews and prints both latency distributions and how
   long the reviews took.

Prints figures; never fails on timing.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

from game2048 import Game
from game2048.solver import play_game


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def call(base: str, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def play_first_legal(size: int, seed: int, moves: int) -> Game:
    game = Game(size, seed)
    while not game.over and game.moves < moves:
        legal = game.legal_moves()
        game.move(next(d for d in ("left", "down", "right", "up") if d in legal))
    return game


def finish_one(base: str, moves: int) -> float:
    """Start and finish one game; the seconds the finish took."""
    _, issued = call(base, "POST", "/api/games", {"size": 4})
    game = play_first_legal(4, issued["seed"], moves)
    start = time.perf_counter()
    status, _ = call(base, "POST", f"/api/games/{issued['id']}/finish",
                     {"token": issued["token"], "log": game.log, "score": game.score, "name": "bench"})
    assert status == 200
    return time.perf_counter() - start


def solver_game(base: str, moves: int, seed: int) -> str:
    """A finished 4x4 game of ``moves`` moves whose seed the server issued; its id."""
    _, issued = call(base, "POST", "/api/games", {"size": 4})
    game = play_game(4, issued["seed"], "fast", max_moves=moves)
    status, _ = call(base, "POST", f"/api/games/{issued['id']}/finish",
                     {"token": issued["token"], "log": game.log, "score": game.score, "name": f"r{seed}"})
    assert status == 200
    return issued["id"]


def describe(name: str, seconds: list[float]) -> str:
    ms = sorted(1000 * s for s in seconds)
    p99 = ms[min(len(ms) - 1, int(0.99 * len(ms)))]
    return f"| {name} | {len(ms)} | {statistics.median(ms):.1f} | {p99:.1f} | {max(ms):.1f} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--finishes", type=int, default=200)
    parser.add_argument("--finish-moves", type=int, default=300)
    parser.add_argument("--reviews", type=int, default=4)
    parser.add_argument("--review-moves", type=int, default=3000)
    args = parser.parse_args()
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "GAME2048_RATE_LIMIT": "0", "GAME2048_REVIEW_PER_CLIENT": str(args.reviews)}
        command = Path(sys.executable).with_name("game2048")
        server = subprocess.Popen([str(command), "serve", "--port", str(port), "--db",
                                   f"sqlite:///{tmp}/bench.sqlite3"], env=env,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            for _ in range(300):
                try:
                    urllib.request.urlopen(base + "/api/leaderboard?limit=1", timeout=1)
                    break
                except OSError:
                    time.sleep(0.1)
            load = os.getloadavg()[0]
            print(f"load average {load:.1f} at the start")
            quiet = [finish_one(base, args.finish_moves) for _ in range(args.finishes)]
            games = [solver_game(base, args.review_moves, i) for i in range(args.reviews)]
            asked = time.perf_counter()
            for game_id in games:
                assert call(base, "GET", f"/api/games/{game_id}/review")[0] == 202
            busy = []
            while len(busy) < args.finishes:
                busy.append(finish_one(base, args.finish_moves))
            reviewing = sum(call(base, "GET", f"/api/games/{g}/review")[0] == 202 for g in games)
            while any(call(base, "GET", f"/api/games/{g}/review")[0] == 202 for g in games):
                time.sleep(0.5)
            made = time.perf_counter() - asked
        finally:
            server.terminate()
            server.wait(timeout=30)
    print(f"{args.reviews} reviews of {args.review_moves} moves made in {made:.1f} s "
          f"({reviewing} still being made when the second round of finishes ended)")
    print(f"finishes of {args.finish_moves}-move games, one at a time:")
    print("| while | finishes | p50 ms | p99 ms | max ms |")
    print("|---|---|---|---|---|")
    print(describe("no review running", quiet))
    print(describe("reviews being made", busy))
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
