"""Load the server with ranked play: moves/s and p50/p99 latency, over the WebSocket and over HTTP.

Starts ``game2048 serve`` (``--workers``, a fresh SQLite file or ``--db URL``)
on a loopback port, opens ``--games`` games at once and plays each move by
move, every move waiting for its answer (the next move is chosen from the
board the server dealt): first ``--seconds`` over one WebSocket per game,
then as long over one keep-alive HTTP connection per game. A game that ends
is finished and replaced. Prints the rate, the latency quantiles and the
server's CPU time per move; never fails on timing. The load generator runs on
the same machine, so it takes its share of the cores.

    .venv/bin/python bench/moves.py --workers 2                      # SQLite
    .venv/bin/python bench/moves.py --workers 2 --db postgresql://postgres@127.0.0.1:5432/bench
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

from game2048 import slide
from load import Connection, server_cpu_seconds, start_server

ORDER = (("L", "left"), ("D", "down"), ("R", "right"), ("U", "up"))


def next_move(board: list[list[int]], turn: int) -> str | None:
    """A legal move, rotating the preference so games last a while."""
    for k in range(4):
        letter, name = ORDER[(turn + k) % 4 if turn % 7 == 0 else k]
        if slide(board, name)[0] != board:
            return letter
    return None


class Tally:
    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.failures = 0
        self.games = 0

    def report(self, name: str, elapsed: float, cpu: float | None, client_cpu: float) -> None:
        n = len(self.latencies)
        if n < 2:
            print(f"{name:<22} {n} moves: too few to measure", flush=True)
            return
        q = statistics.quantiles(self.latencies, n=100, method="inclusive")
        line = (f"{name:<22} {n:>7} moves in {elapsed:5.1f} s  {n / elapsed:8.1f}/s  "
                f"p50 {q[49] * 1000:5.1f} ms  p99 {q[98] * 1000:6.1f} ms  failures {self.failures}  "
                f"games {self.games}")
        if cpu:
            line += f"  server CPU {cpu / n * 1000:.2f} ms/move"
        line += f"  bench client CPU {client_cpu / n * 1000:.2f} ms/move"
        print(line, flush=True)


async def new_game(conn: Connection, size: int) -> dict:
    status, body = await conn.request("POST", "/api/games", {"size": size})
    if status != 201:
        raise SystemExit(f"could not start a game: {status} {body[:200]!r}")
    return json.loads(body)


async def http_player(host: str, port: int, size: int, until: float, tally: Tally) -> None:
    conn = await Connection.open(host, port)
    game = await new_game(conn, size)
    board, at, turn = game["board"], 0, 0
    while time.perf_counter() < until:
        letter = next_move(board, turn)
        turn += 1
        if letter is None:
            await conn.request("POST", f"/api/games/{game['id']}/finish",
                               {"token": game["token"], "name": "b"})
            tally.games += 1
            game = await new_game(conn, size)
            board, at = game["board"], 0
            continue
        t0 = time.perf_counter()
        status, body = await conn.request("POST", f"/api/games/{game['id']}/moves",
                                          {"token": game["token"], "at": at, "moves": letter})
        tally.latencies.append(time.perf_counter() - t0)
        if status != 200:
            tally.failures += 1
            continue
        answer = json.loads(body)
        board, at = answer["board"], answer["at"]
    conn.close()


async def ws_player(host: str, port: int, size: int, until: float, tally: Tally) -> None:
    from websockets.asyncio.client import connect

    while time.perf_counter() < until:
        conn = await Connection.open(host, port)  # an idle keep-alive connection is closed after 5 s
        game = await new_game(conn, size)
        conn.close()
        board, at, turn = game["board"], 0, 0
        async with connect(f"ws://{host}:{port}/api/games/{game['id']}/play", compression=None) as ws:
            while time.perf_counter() < until:
                letter = next_move(board, turn)
                turn += 1
                if letter is None:
                    await ws.send(json.dumps({"op": "finish", "token": game["token"], "name": "b"}))
                    await ws.recv()
                    tally.games += 1
                    break
                t0 = time.perf_counter()
                await ws.send(json.dumps({"op": "moves", "token": game["token"], "at": at, "moves": letter}))
                answer = json.loads(await ws.recv())
                tally.latencies.append(time.perf_counter() - t0)
                if "error" in answer:
                    tally.failures += 1
                    continue
                board, at = answer["board"], answer["at"]


async def phase(name: str, player, url: str, pid: int | None, args: argparse.Namespace) -> None:  # type: ignore[no-untyped-def]
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    tally = Tally()
    cpu0 = server_cpu_seconds(pid) if pid else None
    client0 = time.process_time()
    started = time.perf_counter()
    until = started + args.seconds
    await asyncio.gather(*(player(host, port, args.size, until, tally) for _ in range(args.games)))
    elapsed = time.perf_counter() - started
    cpu = server_cpu_seconds(pid) - cpu0 if pid and cpu0 is not None else None
    tally.report(name, elapsed, cpu, time.process_time() - client0)


async def main_async(args: argparse.Namespace, url: str, pid: int | None) -> None:
    if "ws" in args.phases:
        await phase(f"WebSocket, {args.games} games", ws_player, url, pid, args)
    if "http" in args.phases:
        await phase(f"HTTP, {args.games} games", http_player, url, pid, args)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", help="an already running server (else one is started)")
    parser.add_argument("--db", help="database URL for the started server (default: a fresh SQLite file)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--games", type=int, default=32, help="games played at once")
    parser.add_argument("--seconds", type=float, default=10.0, help="length of each phase")
    parser.add_argument("--size", type=int, default=4)
    parser.add_argument("--phases", default="ws,http", help="ws, http or both")
    parser.add_argument("--redis", help="REDIS_URL for the started server: games in play kept in Redis")
    args = parser.parse_args()
    proc = None
    if args.redis:
        os.environ["REDIS_URL"] = args.redis
    with tempfile.TemporaryDirectory() as tmp:
        url = args.url
        if url is None:
            db = args.db or f"sqlite:///{Path(tmp) / 'bench.sqlite3'}"
            proc, url = start_server(db, args.workers, True)
            print(f"server: {args.workers} worker(s) on {db.split('://')[0]}"
                  f"{', games in play in Redis' if args.redis else ''}; {os.cpu_count()} CPUs, "
                  f"load average {os.getloadavg()[0]:.1f}", flush=True)
        try:
            asyncio.run(main_async(args, url, proc.pid if proc else None))
        finally:
            if proc is not None:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()
        print(f"load average after: {os.getloadavg()[0]:.1f}", flush=True)


if __name__ == "__main__":
    main()
