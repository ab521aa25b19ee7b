"""Load the server: leaderboard reads/s and verified records/s, with p50/p99 latency.

Starts ``game2048 serve`` on a loopback port with a fresh SQLite file (or
``--db URL``, or uses ``--url`` of a running server), prepares a record of
exactly 1,000 moves, then runs two phases of a fixed number of requests over
keep-alive connections: the record sent again and again to ``POST
/api/records`` (each one a full replay and a row committed to disk, the same
work a ranked game's finish does with the server's own log), then
leaderboard reads. Besides wall-clock rates it reports the server's own CPU
time per request, which says what a core can do even on a busy machine.
Prints figures; never fails on timing. Ranked play (moves over the WebSocket
and HTTP) has its own bench, ``bench/moves.py``.

    .venv/bin/python bench/load.py                  # 3000 reads, 300 records, 1 worker
    .venv/bin/python bench/load.py --workers 2
    .venv/bin/python bench/load.py --workers 2 --db postgresql://user@127.0.0.1:5432/game2048
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

from game2048 import Game

MOVES = 1000
PREFERENCE = ("left", "down", "right", "up")
TICKS = os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(db: str, workers: int, cache: bool) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    # the load generator is one address standing for many players: no per-address caps
    env = {**os.environ, "GAME2048_RATE_LIMIT": "0", "GAME2048_MAX_SOCKETS": "0",
           "GAME2048_MAX_CONNECTIONS": "0"}
    if not cache:
        env["GAME2048_LEADERBOARD_TTL"] = "0"
    cmd = [sys.executable, "-c", "from game2048.cli import app; app()", "serve", "--host", "127.0.0.1",
           "--port", str(port), "--db", db, "--workers", str(workers)]
    # a file, not a pipe: the server logs a line per request, and a pipe nobody reads fills up
    # and stops the server
    errors = tempfile.TemporaryFile()  # noqa: SIM115 - open as long as the server runs
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=errors)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            errors.seek(0)
            raise SystemExit(f"server exited: {errors.read().decode()[-2000:]}")
        try:
            status, _ = asyncio.run(_once("127.0.0.1", port, "GET", "/api/leaderboard"))
            if status == 200:
                _settle(proc.pid, deadline)
                return proc, f"http://127.0.0.1:{port}"
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit("server did not start within 60 s")


def _settle(pid: int, deadline: float) -> None:
    """Wait until the server is idle: the first worker answers before the others have loaded
    (each loads the solver before it takes connections), and a measurement should not
    start while they still do."""
    quiet, last = 0, server_cpu_seconds(pid)
    while quiet < 3 and time.monotonic() < deadline:
        time.sleep(0.2)
        now = server_cpu_seconds(pid)
        quiet = quiet + 1 if now - last < 0.02 else 0
        last = now


def server_cpu_seconds(pid: int) -> float:
    """CPU time (user + system) of ``pid`` and its children (the uvicorn workers) since they started,
    to the nanosecond: the sum of each thread's run time (``/proc/<pid>/task/<tid>/schedstat``).

    ``/proc/<pid>/stat`` counts in clock ticks (10 ms): a round of a few thousand moves at tens of
    microseconds each spends a few hundred milliseconds, so a tick either way moved a ratio by
    several per cent. A thread's time is counted from what it had when this was last called, so
    a thread that ends (an idle worker thread let go) takes nothing back from the total; the time
    such a thread ran after the last call is the only time missed. Where the kernel keeps no
    schedstat, the ticks of ``/proc/<pid>/stat`` (every thread's, ended ones too)."""
    total = 0.0
    pids = [pid]
    while pids:
        p = pids.pop()
        try:
            tasks = list(Path(f"/proc/{p}/task").iterdir())
            for task in tasks:
                pids.extend(int(c) for c in (task / "children").read_text().split())
            total += _run_time(p, tasks)
        except (OSError, IndexError, ValueError):
            continue
    return total


#: Per process (its id and start time, as an id may be given again to a later process): the run
#: time counted so far (s), and each thread's run time when last read (ns).
_COUNTED: dict[tuple[int, int], tuple[float, dict[int, int]]] = {}


def _run_time(pid: int, tasks: list[Path]) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    if not Path(f"/proc/{pid}/schedstat").exists():  # a kernel without schedstat: ticks
        return (int(fields[11]) + int(fields[12])) / TICKS
    now = {}
    for task in tasks:
        with contextlib.suppress(OSError, IndexError, ValueError):  # a thread that ended meanwhile
            now[int(task.name)] = int((task / "schedstat").read_text().split()[0])
    key = (pid, int(fields[19]))  # the start time, in ticks since boot
    counted, last = _COUNTED.get(key, (0.0, {}))
    for tid, ns in now.items():
        before = last.get(tid, 0)
        counted += (ns - before if ns >= before else ns) / 1e9  # smaller: a new thread with an old id
    _COUNTED[key] = (counted, now)
    return counted


class Connection:
    """One keep-alive HTTP/1.1 connection: a client light enough not to be the bottleneck."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, host: str) -> None:
        self.reader, self.writer, self.host = reader, writer, host

    @classmethod
    async def open(cls, host: str, port: int) -> Connection:
        reader, writer = await asyncio.open_connection(host, port)
        return cls(reader, writer, host)

    async def request(self, method: str, path: str, body: object = None) -> tuple[int, bytes]:
        payload = b"" if body is None else json.dumps(body).encode()
        head = f"{method} {path} HTTP/1.1\r\nHost: {self.host}\r\nContent-Length: {len(payload)}\r\n"
        if body is not None:
            head += "Content-Type: application/json\r\n"
        self.writer.write(head.encode() + b"\r\n" + payload)
        status_line = await self.reader.readline()
        length = 0
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode().partition(":")
            if name.lower() == "content-length":
                length = int(value)
        return int(status_line.split()[1]), await self.reader.readexactly(length)

    def close(self) -> None:
        self.writer.close()


async def _once(host: str, port: int, method: str, path: str, body: object = None) -> tuple[int, bytes]:
    conn = await Connection.open(host, port)
    try:
        return await conn.request(method, path, body)
    finally:
        conn.close()


def long_game(size: int, seed: int) -> Game:
    """A game of MOVES moves (or fewer, if it ends): a fixed-preference player,
    helped by the solver where that player would lose too soon."""
    from game2048.solver import best_move

    for preset in ("fast", "normal", "strong"):
        game = Game(size, seed)
        while game.moves < MOVES and not game.over:
            legal = game.legal_moves()
            if size <= 4 or game.moves % 50 == 0:
                game.move(best_move(game.board, preset=preset) or legal[0])
            else:
                game.move(next(d for d in PREFERENCE if d in legal))
        if game.moves == MOVES:
            break
    return game


async def run_phase(name: str, url: str, pid: int | None, count: int, concurrency: int,
                    make_request) -> None:  # type: ignore[no-untyped-def]
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    conns = [await Connection.open(host, port) for _ in range(concurrency)]
    latencies: list[float] = []
    failures = 0
    todo = iter(range(count))

    async def worker(conn: Connection) -> None:
        nonlocal failures
        for i in todo:
            t0 = time.perf_counter()
            ok = await make_request(conn, i)
            latencies.append(time.perf_counter() - t0)
            failures += not ok

    cpu0 = server_cpu_seconds(pid) if pid else None
    started = time.perf_counter()
    await asyncio.gather(*(worker(c) for c in conns))
    elapsed = time.perf_counter() - started
    cpu = server_cpu_seconds(pid) - cpu0 if pid and cpu0 is not None else None
    for c in conns:
        c.close()
    q = statistics.quantiles(latencies, n=100, method="inclusive")
    line = (f"{name:<18} {count:>6} in {elapsed:6.2f} s  {count / elapsed:8.1f}/s  "
            f"p50 {q[49] * 1000:6.1f} ms  p99 {q[98] * 1000:6.1f} ms  failures {failures}")
    if cpu:
        line += f"  server CPU {cpu / count * 1000:.2f} ms/request (~{count / cpu:.0f}/s per busy core)"
    print(line, flush=True)


async def main_async(args: argparse.Namespace, url: str, pid: int | None) -> None:
    print(f"preparing a record of exactly {MOVES} moves on {args.size}x{args.size} ...", flush=True)
    game = long_game(args.size, args.seed)
    if game.moves < MOVES:
        raise SystemExit(f"the bench player ended after {game.moves} moves on seed {args.seed}")
    record = {"size": args.size, "seed": args.seed, "log": game.log, "score": game.score}

    async def finish(c: Connection, i: int) -> bool:
        status, answer = await c.request("POST", "/api/records", {**record, "name": f"bench {i % 97}"})
        return status == 201 and json.loads(answer)["verified"]

    async def read(c: Connection, i: int) -> bool:
        status, _ = await c.request("GET", f"/api/leaderboard?size={args.size}&limit=20")
        return status == 200

    await run_phase("verified records", url, pid, args.finishes, args.concurrency, finish)
    await run_phase("leaderboard reads", url, pid, args.reads, args.concurrency, read)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--url", help="an already running server (else one is started)")
    parser.add_argument("--db", help="database URL for the started server (default: a fresh SQLite file)")
    parser.add_argument("--workers", type=int, default=1, help="uvicorn workers of the started server")
    parser.add_argument("--reads", type=int, default=3000)
    parser.add_argument("--finishes", type=int, default=300, help="records sent (each one replayed)")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--size", type=int, default=4, help="board size of the bench games")
    parser.add_argument("--seed", type=int, default=2048, help="seed of the bench record")
    parser.add_argument("--uncached", action="store_true",
                        help="turn off the started server's one-second leaderboard cache")
    args = parser.parse_args()
    proc = None
    with tempfile.TemporaryDirectory() as tmp:
        url = args.url
        if url is None:
            db = args.db or f"sqlite:///{Path(tmp) / 'bench.sqlite3'}"
            proc, url = start_server(db, args.workers, not args.uncached)
            print(f"server: {args.workers} worker(s) on {db.split('://')[0]}"
                  f"{', no leaderboard cache' if args.uncached else ''}; {os.cpu_count()} CPUs, "
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


if __name__ == "__main__":
    main()
