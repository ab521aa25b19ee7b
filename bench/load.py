"""Load the server: leaderboard reads/s and verified finishes/s, with p50/p99 latency.

Starts ``game2048 serve`` on a loopback port and a fresh SQLite file (or uses
``--url`` / ``--db``), prepares games of 1,000 moves, then measures two phases
with a fixed number of requests each. Prints figures; never fails on timing.

    .venv/bin/python bench/load.py                      # defaults: 3000 reads, 300 finishes
    .venv/bin/python bench/load.py --workers 2 --db postgresql://user@127.0.0.1/game2048
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from game2048 import Game

MOVES = 1000
PREFERENCE = ("left", "down", "right", "up")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(db: str, workers: int) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = {**os.environ, "GAME2048_RATE_LIMIT": "0"}
    cmd = [sys.executable, "-c", "from game2048.cli import app; app()", "serve", "--host", "127.0.0.1",
           "--port", str(port), "--db", db, "--workers", str(workers)]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"server exited: {proc.stderr.read().decode()[-2000:]}")  # type: ignore[union-attr]
        try:
            if httpx.get(f"{url}/api/leaderboard", timeout=1).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit("server did not start within 60 s")


def long_game(size: int, seed: int) -> Game:
    """A game of exactly MOVES moves, by a simple fixed-preference player (6x6 boards last long enough)."""
    game = Game(size, seed)
    while game.moves < MOVES and not game.over:
        legal = game.legal_moves()
        game.move(next(d for d in PREFERENCE if d in legal))
    return game


def percentiles(latencies: list[float]) -> tuple[float, float]:
    q = statistics.quantiles(latencies, n=100, method="inclusive")
    return q[49] * 1000, q[98] * 1000


async def run_phase(name: str, count: int, concurrency: int, make_request) -> None:  # type: ignore[no-untyped-def]
    latencies: list[float] = []
    failures = 0
    queue: asyncio.Queue[int] = asyncio.Queue()
    for i in range(count):
        queue.put_nowait(i)

    async def worker() -> None:
        nonlocal failures
        while not queue.empty():
            i = queue.get_nowait()
            t0 = time.perf_counter()
            ok = await make_request(i)
            latencies.append(time.perf_counter() - t0)
            failures += not ok

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    elapsed = time.perf_counter() - started
    p50, p99 = percentiles(latencies)
    print(f"{name:<22} {count:>6} requests in {elapsed:6.2f} s  {count / elapsed:8.1f}/s  "
          f"p50 {p50:6.1f} ms  p99 {p99:6.1f} ms  failures {failures}")


async def main_async(args: argparse.Namespace, url: str) -> None:
    limits = httpx.Limits(max_connections=args.concurrency, max_keepalive_connections=args.concurrency)
    async with httpx.AsyncClient(base_url=url, timeout=30, limits=limits) as http:
        print(f"preparing {args.finishes} games of {MOVES} moves ...", flush=True)
        issued = []
        for _ in range(args.finishes):
            r = await http.post("/api/games", json={"size": args.size})
            issued.append(r.json())
        games = []
        for i in issued:
            g = long_game(args.size, i["seed"])
            games.append((i, g))
        short = sum(g.moves < MOVES for _, g in games)
        if short:
            print(f"  note: {short} games ended before {MOVES} moves")

        async def finish(i: int) -> bool:
            issued_game, g = games[i]
            body = {"token": issued_game["token"], "log": g.log, "score": g.score, "name": f"bench{i % 97}"}
            r = await http.post(f"/api/games/{issued_game['id']}/finish", json=body)
            return r.status_code == 200 and r.json()["verified"]

        async def read(i: int) -> bool:
            r = await http.get("/api/leaderboard", params={"size": args.size, "limit": 20})
            return r.status_code == 200

        await run_phase("verified finishes", args.finishes, args.concurrency, finish)
        await run_phase("leaderboard reads", args.reads, args.concurrency, read)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--url", help="an already running server (else one is started)")
    parser.add_argument("--db", help="database URL for the started server (default: a fresh SQLite file)")
    parser.add_argument("--workers", type=int, default=1, help="uvicorn workers of the started server")
    parser.add_argument("--reads", type=int, default=3000)
    parser.add_argument("--finishes", type=int, default=300)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--size", type=int, default=6, help="board size of the bench games")
    args = parser.parse_args()
    proc = None
    with tempfile.TemporaryDirectory() as tmp:
        url = args.url
        if url is None:
            db = args.db or f"sqlite:///{Path(tmp) / 'bench.sqlite3'}"
            proc, url = start_server(db, args.workers)
            print(f"server: {args.workers} worker(s), {db.split('://')[0]}", flush=True)
        try:
            asyncio.run(main_async(args, url))
        finally:
            if proc is not None:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()


if __name__ == "__main__":
    main()
