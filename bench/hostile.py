"""What one hostile client can make the server spend, at the default limits.

Starts ``game2048 serve`` (one worker, a fresh SQLite file, the default rate
limits and budgets), puts a long 6×6 game in its database (35,000 moves of
the corner method on seed 103: one finished, for its page, and copies still
in play, as if the client had played them through the server), then:

1. views the long game's page ``--views`` times one after another: wall time
   and server CPU time per view (the first view separately);
2. finishes one long game in play: the server's own replay of 35,000 moves
   (server CPU of that one request);
3. runs four attacks from one address, each for ``--seconds`` with
   ``--threads`` connections: refused practice records of the long game
   (``POST /api/records`` with a claimed score that is off by one more each
   time, so no two are alike), retries of a long game's moves from far back
   (each answer worked out by a replay of ~35,000 letters), views of the
   long game's page, and hints on a crowded 6×6 board. For each it prints
   the server's CPU seconds per minute of wall time and the answers' statuses.

``--src DIR`` runs the server from another checkout's ``src`` (to measure the
code before a change; the retries and records need the dealt-game protocol).
Prints figures; never fails on timing.

    .venv/bin/python bench/hostile.py
    nice -n 15 .venv/bin/python bench/hostile.py --seconds 30
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

from game2048 import Game
from game2048.solver.simulate import STRATEGIES

TICKS = os.sysconf("SC_CLK_TCK")
SEED = 103  # the corner method's longest 6×6 game in data/simulations.json
MOVES = 35_000


def long_game() -> Game:
    game, rng, choose = Game(6, SEED), random.Random(SEED), STRATEGIES["corner"]
    while game.moves < MOVES and (move := choose(game, rng)) is not None:
        game.move(move)
    return game


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def request(port: int, method: str, path: str, body: object | None = None) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    payload = None if body is None else json.dumps(body).encode()
    conn.request(method, path, body=payload, headers={"Content-Type": "application/json"} if payload else {})
    r = conn.getresponse()
    data = r.read()
    conn.close()
    return r.status, data


def start(db: Path, src: str | None) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("GAME2048_")}
    env["GAME2048_WARM_SOLVER"] = "0"
    if src:
        env["PYTHONPATH"] = src
    proc = subprocess.Popen([sys.executable, "-c", "from game2048.cli import app; app()", "serve",
                             "--port", str(port), "--db", f"sqlite:///{db}"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if request(port, "GET", "/api/leaderboard")[0] == 200:
                return proc, port
        except OSError:
            time.sleep(0.3)
    proc.kill()
    raise SystemExit("the server did not start")


def insert(db: Path, game: Game, opened: int) -> tuple[str, list[tuple[str, str]]]:
    """The finished game's id, and (id, token) of ``opened`` copies still in play (log and position
    stored as the server keeps a game it deals)."""
    import json

    from sqlalchemy import create_engine, select
    from sqlalchemy.orm import Session

    from game2048.server.live.seeds import game_token
    from game2048.server.storage.models import GameRow, SecretRow

    engine = create_engine(f"sqlite:///{db}")
    now = datetime.now(UTC)
    with Session(engine) as s:
        secret = s.scalars(select(SecretRow.value).where(SecretRow.name == "signing")).one()
        s.add(GameRow(id="long6x6view", size=6, mode="classic", day=None, seed=SEED, created_at=now,
                      finished_at=now, name="long", log=game.log, score=game.score, max_tile=game.max_tile,
                      moves=game.moves, ranked=True, at=len(game.log), touched_at=now))
        open_ids = [f"long6x6open{i}" for i in range(opened)]
        snapshot = json.dumps(game.snapshot())
        for gid in open_ids:
            s.add(GameRow(id=gid, size=6, mode="classic", day=None, seed=SEED, created_at=now, ranked=False,
                          at=len(game.log), log=game.log, live=snapshot, touched_at=now))
        s.commit()
    engine.dispose()
    return "long6x6view", [(gid, game_token(secret, gid)) for gid in open_ids]


def attack(port: int, pid: int, seconds: float, threads: int, make) -> tuple[float, Counter[int]]:  # type: ignore[no-untyped-def]
    statuses: Counter[int] = Counter()
    stop = time.monotonic() + seconds
    lock = threading.Lock()
    counter = iter(range(10**9))

    def worker() -> None:
        while time.monotonic() < stop:
            with lock:
                i = next(counter)
            method, path, body = make(i)
            try:
                status = request(port, method, path, body)[0]
            except OSError:
                status = 0
            with lock:
                statuses[status] += 1

    before, start = cpu_seconds(pid), time.monotonic()
    pool = [threading.Thread(target=worker) for _ in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    used, wall = cpu_seconds(pid) - before, time.monotonic() - start
    return used / wall * 60, statuses


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--views", type=int, default=10)
    parser.add_argument("--cooldown", type=float, default=61, help="seconds between attacks (budget refill)")
    parser.add_argument("--src", help="run the server from this src folder (another checkout)")
    args = parser.parse_args()

    t = time.process_time()
    game = long_game()
    print(f"long game: 6x6 seed {SEED}, {game.moves} moves, score {game.score} "
          f"({time.process_time() - t:.1f} s to play here)")
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "hostile.sqlite3"
        proc, port = start(db, args.src)
        try:
            view, open_games = insert(db, game, opened=args.threads + 1)
            finishing, open_games = open_games[0], open_games[1:]
            for i in range(args.views + 1):
                c0, w0 = cpu_seconds(proc.pid), time.monotonic()
                status, _ = request(port, "GET", f"/games/{view}")
                c1, w1 = cpu_seconds(proc.pid), time.monotonic()
                if i == 0:
                    print(f"page view 1: status {status}, {1000 * (w1 - w0):.0f} ms wall, "
                          f"{1000 * (c1 - c0):.0f} ms server CPU")
                    total_cpu = total_wall = 0.0
                else:
                    total_cpu += c1 - c0
                    total_wall += w1 - w0
            print(f"page views 2..{args.views + 1}: {1000 * total_wall / args.views:.1f} ms wall, "
                  f"{1000 * total_cpu / args.views:.1f} ms server CPU per view")
            c0, w0 = cpu_seconds(proc.pid), time.monotonic()
            gid, token = finishing
            status, _ = request(port, "POST", f"/api/games/{gid}/finish", {"token": token, "name": "long"})
            wall, cpu = time.monotonic() - w0, cpu_seconds(proc.pid) - c0
            print(f"ranked finish of the long game in play: status {status}, {1000 * wall:.0f} ms wall, "
                  f"{1000 * cpu:.0f} ms server CPU")
            time.sleep(args.cooldown)  # that replay was charged to this address: fresh budget for attacks

            def refused_record(i: int):  # type: ignore[no-untyped-def]
                return "POST", "/api/records", {"size": 6, "seed": SEED, "log": game.log,
                                                "score": game.score + 1 + i, "name": "x"}

            def far_retry(i: int):  # type: ignore[no-untyped-def]
                gid, token = open_games[i % len(open_games)]
                at = len(game.log) - 2 - i % 1000  # already played: answered by a replay up to there
                return "POST", f"/api/games/{gid}/moves", {"token": token, "at": at, "moves": game.log[at]}

            crowded = [[2 << ((r * 6 + c) % 11) for c in range(6)] for r in range(6)]
            crowded[5][5] = 0
            attacks = {
                "refused practice records": refused_record,
                "retries from far back": far_retry,
                "page views": lambda i: ("GET", f"/games/{view}", None),
                "hints": lambda i: ("POST", "/api/hint", {"size": 6, "board": crowded}),
            }
            total = 0.0
            for name, make in attacks.items():
                per_minute, statuses = attack(port, proc.pid, args.seconds, args.threads, make)
                total += per_minute
                print(f"{name}: {per_minute:.1f} s of server CPU per minute; answers {dict(statuses)}")
                time.sleep(args.cooldown)  # each attack starts with a fresh budget, as another client's would
            print(f"all four at once could cost up to {total:.1f} s of CPU per minute "
                  f"(bounded by the cores: {os.cpu_count()} here)")
        finally:
            proc.terminate()
            proc.wait(timeout=15)


if __name__ == "__main__":
    main()
