"""What a server-dealt move costs the server, against the stack's own floor, in one run.

Two servers on loopback ports, one after the other, each a single uvicorn
worker with the same WebSocket settings: a bare Starlette WebSocket that
echoes every message (the floor: uvicorn, the socket, one JSON message in and
out), and ``game2048 serve`` (``--db``: a fresh SQLite file by default, or a
PostgreSQL URL; ``--redis URL`` for the Redis store). The same number of
sockets send the same number of move-sized messages, each waiting for its
answer. The figure is the server process's CPU time (user + system) per
message, and the ratio of the two; the store's own CPU (PostgreSQL's or
Redis's processes, when ``--store-pid`` names one) is printed beside it.

``--long N`` then plays one 6x6 game over one socket to N letters with the
built-in solver choosing (the client's CPU, not the server's) and prints the
server's CPU per move and the bytes the database file grew by per move, over
the first and the last thousand moves: a move must cost the same at letter
20,000 as at letter 0. Prints figures; never fails on timing.

    .venv/bin/python bench/move_cost.py                         # SQLite, 8 sockets x 500 moves
    .venv/bin/python bench/move_cost.py --long 20000            # and the flat check on 6x6
    .venv/bin/python bench/move_cost.py --db postgresql://postgres@127.0.0.1:5432/bench
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from game2048 import slide
from load import Connection, _settle, free_port, server_cpu_seconds

ORDER = (("L", "left"), ("D", "down"), ("R", "right"), ("U", "up"))


def echo_app():  # type: ignore[no-untyped-def]
    """The floor: a Starlette WebSocket that sends every text message back."""
    from starlette.applications import Starlette
    from starlette.routing import WebSocketRoute

    async def echo(websocket):  # type: ignore[no-untyped-def]
        await websocket.accept()
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                return
            await websocket.send_text(message["text"])

    return Starlette(routes=[WebSocketRoute("/echo", echo)])


def _wait_listening(proc: subprocess.Popen[bytes], port: int) -> None:
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit("the server exited")
        try:
            asyncio.run(_probe(port))
            _settle(proc.pid, deadline)
            return
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit("the server did not start")


async def _probe(port: int) -> None:
    conn = await Connection.open("127.0.0.1", port)
    await conn.request("GET", "/healthz")
    conn.close()


def start_echo() -> tuple[subprocess.Popen[bytes], int]:
    from game2048.server.config import UVICORN_LIMITS

    port = free_port()
    ws = {k: v for k, v in UVICORN_LIMITS.items() if k.startswith("ws_")}
    code = (f"import sys, uvicorn; sys.path.insert(0, {str(Path(__file__).parent)!r}); import move_cost; "
            f"uvicorn.run(move_cost.echo_app(), host='127.0.0.1', port={port}, log_level='warning', "
            f"ws='websockets', **{ws!r})")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    _wait_listening(proc, port)
    return proc, port


def start_game_server(db: str, redis: str | None,
                      move_limit: str | None = None) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    env = {**os.environ, "GAME2048_RATE_LIMIT": "0", "GAME2048_MOVE_RATE_LIMIT": "0"}
    if move_limit:  # the limits on, high enough never to refuse: what counting costs
        env |= {"GAME2048_RATE_LIMIT": "100000/minute", "GAME2048_MOVE_RATE_LIMIT": move_limit}
    if redis:
        env["REDIS_URL"] = redis
    cmd = [sys.executable, "-c", "from game2048.cli import app; app()", "serve", "--host", "127.0.0.1",
           "--port", str(port), "--db", db, "--workers", "1"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _wait_listening(proc, port)
    return proc, port


def next_move(board: list[list[int]], turn: int) -> str | None:
    for k in range(4):
        letter, direction = ORDER[(turn + k) % 4]
        if slide(board, direction)[0] != board:
            return letter
    return None


async def echo_socket(port: int, moves: int) -> None:
    from websockets.asyncio.client import connect

    message = json.dumps({"op": "moves", "token": "0" * 36, "at": 123, "moves": "L"})
    async with connect(f"ws://127.0.0.1:{port}/echo", compression=None) as ws:
        for _ in range(moves):
            await ws.send(message)
            await ws.recv()


async def new_game(port: int, size: int) -> dict:  # type: ignore[type-arg]
    conn = await Connection.open("127.0.0.1", port)
    status, body = await conn.request("POST", "/api/games", {"size": size, "mode": "classic"})
    conn.close()
    if status != 201:
        raise SystemExit(f"could not start a game: {status} {body[:200]!r}")
    return json.loads(body)


async def game_socket(port: int, moves: int) -> int:
    """Play ``moves`` moves over one socket (new games as games end); the moves answered."""
    from websockets.asyncio.client import connect

    done = 0
    while done < moves:
        game = await new_game(port, 4)
        board, at, turn = game["board"], 0, 0
        async with connect(f"ws://127.0.0.1:{port}/api/games/{game['id']}/play", compression=None) as ws:
            while done < moves:
                letter = next_move(board, turn)
                turn += 1
                if letter is None:
                    break
                await ws.send(json.dumps({"op": "moves", "token": game["token"], "at": at, "moves": letter}))
                answer = json.loads(await ws.recv())
                if "error" in answer:
                    raise SystemExit(f"a move was refused: {answer}")
                board, at = answer["board"], answer["at"]
                done += 1
    return done


def measure(pid: int, work, sockets: int) -> float:  # type: ignore[no-untyped-def]
    """Server CPU seconds that ``sockets`` runs of the coroutine function ``work`` made it spend."""

    async def all_of() -> None:
        await asyncio.gather(*(work() for _ in range(sockets)))

    before = server_cpu_seconds(pid)
    asyncio.run(all_of())
    time.sleep(0.3)  # the last answers' bookkeeping
    return server_cpu_seconds(pid) - before


def store_cpu(pid: int | None) -> float:
    return server_cpu_seconds(pid) if pid else 0.0


async def long_game(port: int, letters: int, window: int, pid: int, db_file: Path | None) -> None:
    from websockets.asyncio.client import connect

    from game2048.solver import best_move

    game = await new_game(port, 6)
    board, at = game["board"], 0
    marks: dict[int, tuple[float, int]] = {}
    wanted = {0, window, letters - window, letters}
    names = {"up": "U", "down": "D", "left": "L", "right": "R"}
    think = 0.0  # the solver's time is the client's, left out of nothing the server counts
    async with connect(f"ws://127.0.0.1:{port}/api/games/{game['id']}/play", compression=None) as ws:
        while at < letters:
            if at in wanted:
                marks[at] = _mark(pid, db_file)
            t = time.process_time()
            direction = best_move(board, preset="fast")
            think += time.process_time() - t
            if direction is None:
                print(f"the game ended at letter {at}: fewer than --long letters were played")
                break
            await ws.send(json.dumps({"op": "moves", "token": game["token"], "at": at,
                                      "moves": names[direction]}))
            answer = json.loads(await ws.recv())
            if "error" in answer:
                raise SystemExit(f"a move was refused: {answer}")
            board, at = answer["board"], answer["at"]
        marks[at] = _mark(pid, db_file)
    if {0, window} <= set(marks) and {letters - window, letters} <= set(marks):
        first = [(marks[window][i] - marks[0][i]) / window for i in (0, 1)]
        last = [(marks[letters][i] - marks[letters - window][i]) / window for i in (0, 1)]
        print(f"6x6 game to {letters} letters, server CPU per move: first {window} {first[0] * 1e6:.0f} us, "
              f"last {window} {last[0] * 1e6:.0f} us (ratio {last[0] / first[0]:.2f})")
        if db_file:
            print(f"  database growth per move: first {first[1]:.0f} B, last {last[1]:.0f} B")


def _mark(pid: int, db_file: Path | None) -> tuple[float, int]:
    """The server's CPU seconds so far and the bytes of its database file and WAL."""
    time.sleep(0.3)  # the last answer's bookkeeping
    return server_cpu_seconds(pid), (db_file.stat().st_size + _wal(db_file)) if db_file else 0


def _wal(db_file: Path) -> int:
    wal = db_file.with_name(db_file.name + "-wal")
    return wal.stat().st_size if wal.exists() else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sockets", type=int, default=8)
    parser.add_argument("--moves", type=int, default=500, help="messages per socket")
    parser.add_argument("--db", help="database URL (default: a fresh SQLite file)")
    parser.add_argument("--redis", help="REDIS_URL for the Redis store")
    parser.add_argument("--store-pid", type=int, help="the store's server process, to report its CPU")
    parser.add_argument("--long", type=int, default=0, help="letters of the 6x6 flat check (0: skip)")
    parser.add_argument("--window", type=int, default=1000)
    parser.add_argument("--move-limit", help="rate limits on, with this move limit (e.g. 100000/minute); "
                                             "default: limits off")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        db_file = None if args.db else Path(tmp) / "bench.sqlite"
        db = args.db or f"sqlite:///{db_file}"
        total = args.sockets * args.moves
        proc, port = start_echo()
        try:
            echo = measure(proc.pid, lambda: echo_socket(port, args.moves), args.sockets)
        finally:
            proc.terminate()
            proc.wait()
        proc, port = start_game_server(db, args.redis, args.move_limit)
        try:
            store0 = store_cpu(args.store_pid)
            served = measure(proc.pid, lambda: game_socket(port, args.moves), args.sockets)
            store = store_cpu(args.store_pid) - store0
            store_name = "Redis" if args.redis else ("PostgreSQL" if args.db else "SQLite")
            print(f"{total} messages over {args.sockets} sockets, server CPU per message:")
            print(f"  Starlette echo      {echo / total * 1e6:8.1f} us")
            own = f"; the store's own CPU {store / total * 1e6:.1f} us" if args.store_pid else ""
            ratio = served / echo
            print(f"  game2048 ({store_name:10}) {served / total * 1e6:8.1f} us = {ratio:.2f}x the echo{own}")
            if args.long:
                asyncio.run(long_game(port, args.long, min(args.window, args.long // 2), proc.pid, db_file))
        finally:
            proc.terminate()
            proc.wait()


if __name__ == "__main__":
    main()
