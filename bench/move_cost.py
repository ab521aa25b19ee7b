"""What a server-dealt move costs the server, against the stack's own floor, in one run.

Two servers on loopback ports, each a single uvicorn worker with the same
WebSocket implementation and settings: a bare Starlette WebSocket that echoes
every message (the floor: uvicorn, the socket, one JSON message in and out),
and ``game2048 serve`` (``--db``: a fresh SQLite file by default, or a
PostgreSQL URL; ``--redis URL`` for the Redis store). The same number of
sockets, opened before the count starts, send the same number of move-sized
messages, each waiting for its answer; the two are measured in turn,
``--rounds`` times. The figure is the server process's CPU time (user +
system) per message, and the ratio of the two in each round; the store's own
CPU (PostgreSQL's or Redis's processes, when ``--store-pid`` names one) is
printed beside it. The game's moves are the ``fast`` solver's, so games last
long and the count is of moves, not of games started.

``--unpaced`` sends both servers their messages back to back, each as soon as
the last answer is in: the echo's, and the game's moves chosen by the trained
network at 1-ply (microseconds of the client's CPU; a rule without the
weights), as a script that plays as fast as the server answers would. The
echo costs least so (its wake-ups shared), so the ratio is the harshest.

``--floor`` measures a third server in each round, after the echo and with
its client: ``floor.py``, the least server that stores every move in SQLite
before it answers (no rules, no dealing, no checks), so the figures split
into the store's and the message's part (floor against echo) and the game's
own (game2048 against floor).

``--long N`` then plays one 6x6 game over one socket to N letters with the
built-in solver choosing (the client's CPU, not the server's) and prints the
server's CPU per move and the bytes the database file grew by per move, over
the first and the last thousand moves: a move must cost the same at letter
20,000 as at letter 0. Prints figures; never fails on timing.

    .venv/bin/python bench/move_cost.py                         # SQLite, 8 sockets x 500 moves
    .venv/bin/python bench/move_cost.py --long 20000            # and the flat check on 6x6
    .venv/bin/python bench/move_cost.py --long 20000 --pad-to 200000   # and at 200,000 letters
    .venv/bin/python bench/move_cost.py --db postgresql://postgres@127.0.0.1:5432/bench
    .venv/bin/python bench/move_cost.py --durability disk      # moves that survive a power cut
    .venv/bin/python bench/move_cost.py --unpaced --sockets 1  # one script, as fast as it is answered
    .venv/bin/python bench/move_cost.py --floor --unpaced      # and the floor of a storing server
    .venv/bin/python bench/move_cost.py --before ../old/src    # and another checkout's, in each round
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from load import Connection, _settle, free_port, server_cpu_seconds


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


def start_echo(app: str = "move_cost.echo_app", *args: str) -> tuple[subprocess.Popen[bytes], int]:
    """A bench server of this folder (``app``: its module and factory, called with ``args``; the
    echo by default) on a free port, a single uvicorn worker with the game server's WebSocket
    settings."""
    from game2048.server.config import UVICORN_LIMITS

    port = free_port()
    ws = {k: v for k, v in UVICORN_LIMITS.items() if k.startswith("ws_")}
    module = app.rpartition(".")[0]
    code = (f"import sys, uvicorn; sys.path.insert(0, {str(Path(__file__).parent)!r}); import {module}; "
            f"uvicorn.run({app}(*{args!r}), host='127.0.0.1', port={port}, log_level='warning', "
            f"**{ws!r})")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    _wait_listening(proc, port)
    return proc, port


def start_game_server(db: str, redis: str | None, move_limit: str | None = None,
                      durability: str = "process",
                      src: str | None = None) -> tuple[subprocess.Popen[bytes], int]:
    """``game2048 serve`` on a free port: this checkout's, or with ``src`` the package in that
    folder (another checkout's ``src``, for a before-and-after in one run)."""
    port = free_port()
    env = {**os.environ, "GAME2048_RATE_LIMIT": "0", "GAME2048_MOVE_RATE_LIMIT": "0",
           "GAME2048_MOVE_DURABILITY": durability}
    if src:
        env["PYTHONPATH"] = src
    if move_limit:  # the limits on, high enough never to refuse: what counting costs
        env |= {"GAME2048_RATE_LIMIT": "100000/minute", "GAME2048_MOVE_RATE_LIMIT": move_limit}
    if redis:
        env["REDIS_URL"] = redis
    cmd = [sys.executable, "-c", "from game2048.cli import app; app()", "serve", "--host", "127.0.0.1",
           "--port", str(port), "--db", db, "--workers", "1"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _wait_listening(proc, port)
    return proc, port


MESSAGE = json.dumps({"op": "moves", "token": "0" * 36, "at": 123, "moves": "L"})


class EchoSocket:
    """One socket to the echo, opened (and a first message answered) before the count starts.

    Paced like a game's socket: before each message it chooses a move with the same solver on a
    game of its own, as ``GameSocket`` does on the server's board, so both servers see messages
    arrive at the same rate. A server's CPU per message depends on that rate (a message that
    finds the loop asleep costs it a wake-up; back-to-back messages share one), so an echo sent
    as fast as it answers is a floor no paced client sees. ``UnpacedEchoSocket`` is that one."""

    path = "/echo"

    async def open(self, port: int) -> None:
        from websockets.asyncio.client import connect

        from game2048.solver import best_move

        self.best_move, self.games = best_move, 0
        self.game = self.new_game()
        self.ws = await connect(f"ws://127.0.0.1:{port}{self.path}", compression=None)
        await self.play(1)

    async def play(self, moves: int) -> int:
        for _ in range(moves):
            direction = self.think()
            await self.ws.send(json.dumps({"op": "moves", "token": "0" * 43, "at": 123,
                                           "moves": NAMES[direction]}))
            json.loads(await self.ws.recv())
        return moves

    def new_game(self):  # type: ignore[no-untyped-def]
        from game2048 import Game

        self.games += 1
        return Game(4, self.games)

    def think(self) -> str:
        """The next move of the socket's own game (a new game when it ends), as a player would."""
        direction = self.best_move(self.game.board, preset="fast")
        if direction is None:
            self.game = self.new_game()
            direction = self.best_move(self.game.board, preset="fast")
        self.game.move(direction)
        return direction  # type: ignore[no-any-return]

    async def close(self) -> None:
        await self.ws.close()


class UnpacedEchoSocket(EchoSocket):
    """The echo as fast as it answers: each message sent as soon as the last answer is in."""

    async def open(self, port: int) -> None:
        from websockets.asyncio.client import connect

        self.ws = await connect(f"ws://127.0.0.1:{port}{self.path}", compression=None)
        await self.play(1)

    async def play(self, moves: int) -> int:
        for _ in range(moves):
            await self.ws.send(MESSAGE)
            await self.ws.recv()
        return moves


class FloorSocket(EchoSocket):
    """``EchoSocket``'s messages to the floor of a storing server (``floor.py``)."""

    path = "/floor"


class UnpacedFloorSocket(UnpacedEchoSocket):
    path = "/floor"


class GameSocket:
    """One game's socket, opened (the game started, its first move answered) before the count
    starts. The moves are the ``fast`` solver's (the client's CPU, not the server's), so a game
    lasts long and the count is of moves, not of games started; a game that ends is replaced (a
    start and a socket's opening, counted with the moves)."""

    def __init__(self) -> None:
        from game2048.solver import best_move

        self.best_move = best_move
        self.ws = None

    async def open(self, port: int) -> None:
        self.port = port
        await self._new_game()
        await self.play(1)

    async def _new_game(self) -> None:
        from websockets.asyncio.client import connect

        if self.ws is not None:
            await self.ws.close()
        game = await new_game(self.port, 4)
        self.token, self.board, self.at = game["token"], game["board"], 0
        self.ws = await connect(f"ws://127.0.0.1:{self.port}/api/games/{game['id']}/play", compression=None)

    async def play(self, moves: int) -> int:
        done = 0
        while done < moves:
            direction = self.best_move(self.board, preset="fast")
            if direction is None:
                await self._new_game()
                continue
            await self.ws.send(json.dumps({"op": "moves", "token": self.token, "at": self.at,
                                           "moves": NAMES[direction]}))
            answer = json.loads(await self.ws.recv())
            if "error" in answer:
                raise SystemExit(f"a move was refused: {answer}")
            self.board, self.at = answer["board"], answer["at"]
            done += 1
        return done

    async def close(self) -> None:
        await self.ws.close()


class UnpacedGameSocket(GameSocket):
    """A game's socket as fast as it answers: each move sent as soon as the last answer is in,
    chosen by the trained network at 1-ply (a few microseconds of the client's CPU; games last
    thousands of moves), or without the weights by a rule (down, left, right, up: the first that
    changes the board). Against ``UnpacedEchoSocket``: both servers see messages back to back."""

    def __init__(self) -> None:
        from game2048 import slide
        from game2048.solver import learned

        def best_move(board, preset):  # type: ignore[no-untyped-def]
            answer = learned.analyse(board, ply=1)
            if answer is not None:
                return answer[0]
            return next((d for d in ("down", "left", "right", "up") if slide(board, d)[0] != board), None)

        best_move([[2, 0, 0, 0], [0] * 4, [0] * 4, [0] * 4], "")  # compiled and mapped before a socket opens
        self.best_move = best_move  # type: ignore[assignment]
        self.ws = None


NAMES = {"up": "U", "down": "D", "left": "L", "right": "R"}


async def new_game(port: int, size: int) -> dict:  # type: ignore[type-arg]
    conn = await Connection.open("127.0.0.1", port)
    status, body = await conn.request("POST", "/api/games", {"size": size, "mode": "classic"})
    conn.close()
    if status != 201:
        raise SystemExit(f"could not start a game: {status} {body[:200]!r}")
    return json.loads(body)


def measure(pid: int, kind, port: int, sockets: int, moves: int) -> float:  # type: ignore[no-untyped-def]
    """Server CPU seconds per message of ``moves`` messages on each of ``sockets`` sockets of
    ``kind``, opened before the count starts and closed after it ends."""

    async def run() -> float:
        opened = [kind() for _ in range(sockets)]
        await asyncio.gather(*(s.open(port) for s in opened))
        await asyncio.sleep(0.3)  # the openings' bookkeeping, before the count
        before = server_cpu_seconds(pid)
        await asyncio.gather(*(s.play(moves) for s in opened))
        await asyncio.sleep(0.3)  # the last answers' bookkeeping
        spent = server_cpu_seconds(pid) - before
        await asyncio.gather(*(s.close() for s in opened))
        return spent / (sockets * moves)

    return asyncio.run(run())


def store_cpu(pid: int | None) -> float:
    return server_cpu_seconds(pid) if pid else 0.0


async def long_game(port: int, letters: int, window: int, pid: int, sizer: Sizer, pad_to: int = 0) -> None:
    """One 6x6 game over one socket to ``letters`` letters (the ``fast`` solver choosing), the
    server's CPU and the store's bytes marked over its first ``window`` moves and its last ones
    (at 20,000 letters on the way too). With ``pad_to``, the stored log is then padded to
    ``pad_to - window`` letters and ``window`` more moves are played: the cost at ``pad_to``."""

    from game2048.solver import best_move

    for _ in range(TRIES):  # the solver's 6x6 games vary: one in a few ends before 20,000 letters
        if await _long_game(port, letters, window, pid, sizer, pad_to, best_move):
            return
    print(f"no game of {TRIES} reached {letters} letters")


#: 6x6 games the flat check starts before it gives up on reaching its length.
TRIES = 5


async def _long_game(port: int, letters: int, window: int, pid: int, sizer: Sizer, pad_to: int,
                     best_move) -> bool:  # type: ignore[no-untyped-def]
    from websockets.asyncio.client import connect

    game = await new_game(port, 6)
    board, at = game["board"], 0
    marks: dict[int, tuple[float, int]] = {}
    ends = sorted({e for e in (20_000, letters) if 2 * window <= e <= letters})  # 20,000 on the way
    wanted = {0, window} | {e - window for e in ends} | set(ends)
    async with connect(f"ws://127.0.0.1:{port}/api/games/{game['id']}/play", compression=None) as ws:

        async def play_to(target: int) -> bool:
            nonlocal board, at
            while at < target:
                if at in wanted:
                    marks[at] = _mark(pid, sizer)
                direction = best_move(board, preset="fast")  # the client's CPU, not the server's
                if direction is None:
                    print(f"the game ended at letter {at}, short of {target}")
                    return False
                await ws.send(json.dumps({"op": "moves", "token": game["token"], "at": at,
                                          "moves": NAMES[direction]}))
                answer = json.loads(await ws.recv())
                if "error" in answer:
                    raise SystemExit(f"a move was refused: {answer}")
                board, at = answer["board"], answer["at"]
            marks[at] = _mark(pid, sizer)
            return True

        alive = await play_to(letters)
        if not alive:
            return False
        if pad_to > at + window:
            padded = at
            at = sizer.pad(game["id"], at, pad_to - window)
            ends.append(pad_to)
            wanted |= {at, pad_to}
            if await play_to(pad_to):
                print(f"  (the stored log padded from {padded} to {at} letters, then {window} moves played)")
    first = [(marks[window][i] - marks[0][i]) / window for i in (0, 1)]
    for end in ends:
        if {end - window, end} <= set(marks):
            last = [(marks[end][i] - marks[end - window][i]) / window for i in (0, 1)]
            print(f"6x6 game at {end} letters, server CPU per move: first {window} {first[0] * 1e6:.0f} us, "
                  f"last {window} {last[0] * 1e6:.0f} us (ratio {last[0] / first[0]:.2f}); "
                  f"{sizer.what} per move: first {first[1]:.0f} B, last {last[1]:.0f} B", flush=True)
    return True


def _mark(pid: int, sizer: Sizer) -> tuple[float, int]:
    """The server's CPU seconds so far and the store's bytes so far."""
    time.sleep(0.3)  # the last answer's bookkeeping
    return server_cpu_seconds(pid), sizer.bytes()


class Sizer:
    """What a store has written or keeps, in bytes: what the server process wrote (SQLite's pages
    in its WAL, and the answers on the sockets), PostgreSQL's WAL (all of the database server's,
    so other work on it counts too), Redis's memory."""

    def __init__(self, db_file: Path | None, db: str | None, redis: str | None, pid: int) -> None:
        self.db_file, self.db, self.redis, self.pid = db_file, db, redis, pid
        if redis:
            self.what = "Redis memory growth"
        elif db:
            self.what = "PostgreSQL WAL written"
        else:
            self.what = "bytes the server wrote (SQLite's pages, and the answers)"

    def bytes(self) -> int:
        if self.redis:
            import redis

            return int(redis.Redis.from_url(self.redis).info("memory")["used_memory"])
        if self.db:
            import psycopg

            with psycopg.connect(self.db.replace("postgresql+psycopg://", "postgresql://")) as conn:
                return int(conn.execute("SELECT pg_current_wal_lsn() - '0/0'::pg_lsn").fetchone()[0])
        return written_bytes(self.pid)

    def pad(self, game_id: str, at: int, to: int) -> int:
        """Lengthen the game's stored log from ``at`` to ``to`` letters, as a game played that long
        would have it (rows of letters appended, ``at`` moved on), writing to the store directly:
        the built-in solver's 6x6 games end long before 200,000 letters. A move never reads the
        log, so its cost there is the cost at that length; the game can no longer be finished."""
        filler = "LR" * ((to - at) // 2) + "L" * ((to - at) % 2)
        if self.redis:
            import redis

            client = redis.Redis.from_url(self.redis)
            client.append(f"game2048:log:{{{game_id}}}", filler)
            client.hset(f"game2048:live:{{{game_id}}}", "at", to)
            return to
        sql = ("INSERT INTO game_moves (game_id, at, letters, ms) VALUES ({p}, {p}, {p}, NULL)",
               "UPDATE games SET at = {p} WHERE id = {p}")
        rows = [(game_id, at + i, filler[i:i + 64]) for i in range(0, len(filler), 64)]  # as moves make them
        if self.db:
            import psycopg

            with psycopg.connect(self.db.replace("postgresql+psycopg://", "postgresql://")) as conn:
                conn.cursor().executemany(sql[0].format(p="%s"), rows)
                conn.execute(sql[1].format(p="%s"), (to, game_id))
            return to
        import sqlite3

        from game2048.server.live.stores import caught_up

        conn = sqlite3.connect(str(self.db_file))
        with conn:
            conn.executemany(sql[0].format(p="?"), rows)
            # the row's position, which SQLite writes every few moves only (``live.stores.tail``), at ``at``
            live, live_at, kept = conn.execute("SELECT live, live_at, tail FROM games WHERE id = ?",
                                               (game_id,)).fetchone()
            if live_at is not None:
                now = caught_up(json.loads(live), live_at, at, kept)
                live = json.dumps(now, separators=(",", ":"))
            conn.execute("UPDATE games SET at = ?, live = ?, live_at = NULL WHERE id = ?",
                         (to, live, game_id))
        conn.close()
        return to


def written_bytes(pid: int) -> int:
    """Bytes ``pid`` and its children passed to write calls (``wchar``): a file's pages and, with
    uvloop, the sockets' answers."""
    total, pids = 0, [pid]
    while pids:
        p = pids.pop()
        try:
            for line in Path(f"/proc/{p}/io").read_text().splitlines():
                if line.startswith("wchar:"):
                    total += int(line.split()[1])
            for task in Path(f"/proc/{p}/task").iterdir():
                pids.extend(int(c) for c in (task / "children").read_text().split())
        except (OSError, ValueError):
            continue
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sockets", type=int, default=8)
    parser.add_argument("--moves", type=int, default=500, help="messages per socket")
    parser.add_argument("--rounds", type=int, default=3, help="echo and game2048 in turn, this often")
    parser.add_argument("--db", help="database URL (default: a fresh SQLite file)")
    parser.add_argument("--redis", help="REDIS_URL for the Redis store")
    parser.add_argument("--store-pid", type=int, help="the store's server process, to report its CPU")
    parser.add_argument("--long", type=int, default=0, help="letters of the 6x6 flat check (0: skip)")
    parser.add_argument("--window", type=int, default=1000)
    parser.add_argument("--pad-to", type=int, default=0,
                        help="then pad the stored log to this many letters and play --window more moves")
    parser.add_argument("--durability", choices=("process", "disk"), default="process",
                        help="GAME2048_MOVE_DURABILITY of the game server")
    parser.add_argument("--unpaced-echo", action="store_true",
                        help="send the echo's messages back to back, unpaced (the earlier floor)")
    parser.add_argument("--unpaced", action="store_true",
                        help="both back to back: the echo unpaced, the game's moves chosen by the "
                             "network at 1-ply (microseconds of the client's CPU)")
    parser.add_argument("--move-limit", help="rate limits on, with this move limit (e.g. 100000/minute); "
                                             "default: limits off")
    parser.add_argument("--floor", action="store_true",
                        help="also the floor of a server that stores every move (floor.py), measured in "
                             "each round after the echo, with the echo's client")
    parser.add_argument("--before", metavar="SRC",
                        help="also a server of the package in SRC (another checkout's src folder, on a "
                             "database of its own), measured in each round between the echo and this one")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        db_file = None if args.db else Path(tmp) / "bench.sqlite"
        db = args.db or f"sqlite:///{db_file}"
        echo_proc, echo_port = start_echo()
        floor = start_echo("floor.floor_app", str(Path(tmp) / "floor.sqlite")) if args.floor else None
        proc, port = start_game_server(db, args.redis, args.move_limit, args.durability)
        before = None
        if args.before:
            if args.db or args.redis:
                raise SystemExit("--before runs on SQLite only (a database of its own)")
            before = start_game_server(f"sqlite:///{Path(tmp) / 'before.sqlite'}", None, args.move_limit,
                                       args.durability, args.before)
        store_name = "Redis" if args.redis else ("PostgreSQL" if args.db else "SQLite")
        store_name += ", disk" if args.durability == "disk" else ""
        print(f"{args.sockets} sockets x {args.moves} messages, server CPU per message, "
              f"{args.rounds} rounds (the echo, {'the floor, ' if floor else ''}then game2048, in turn):")
        ratios, earlier, floors, above = [], [], [], []
        try:
            for _ in range(args.rounds):
                unpaced_echo = args.unpaced_echo or args.unpaced
                echo = measure(echo_proc.pid, UnpacedEchoSocket if unpaced_echo else EchoSocket,
                               echo_port, args.sockets, args.moves)
                stored = None
                if floor is not None:
                    stored = measure(floor[0].pid, UnpacedFloorSocket if unpaced_echo else FloorSocket,
                                     floor[1], args.sockets, args.moves)
                    floors.append(stored / echo)
                    print(f"  echo {echo * 1e6:6.1f} us   floor (SQLite)    {stored * 1e6:6.1f} us"
                          f" = {stored / echo:.2f}x", flush=True)
                if before is not None:
                    old = measure(before[0].pid, UnpacedGameSocket if args.unpaced else GameSocket, before[1],
                                  args.sockets, args.moves)
                    earlier.append(old / echo)
                    print(f"  echo {echo * 1e6:6.1f} us   before ({store_name})   {old * 1e6:6.1f} us"
                          f" = {old / echo:.2f}x", flush=True)
                store0 = store_cpu(args.store_pid)
                served = measure(proc.pid, UnpacedGameSocket if args.unpaced else GameSocket, port,
                                 args.sockets, args.moves)
                store = (store_cpu(args.store_pid) - store0) / (args.sockets * args.moves)
                own = f"; the store's own CPU {store * 1e6:.1f} us" if args.store_pid else ""
                ratios.append(served / echo)
                if stored is not None:
                    above.append(served / stored)
                print(f"  echo {echo * 1e6:6.1f} us   game2048 ({store_name}) {served * 1e6:6.1f} us"
                      f" = {served / echo:.2f}x{own}", flush=True)
            print(f"  median ratio {statistics.median(ratios):.2f}x")
            if floors:
                print(f"  median ratio of the floor {statistics.median(floors):.2f}x; game2048 against the "
                      f"floor, per round: {', '.join(f'{r:.2f}' for r in above)}")
            if earlier:
                print(f"  median ratio before {statistics.median(earlier):.2f}x; this checkout against it, "
                      f"per round: {', '.join(f'{r / e:.2f}' for r, e in zip(ratios, earlier, strict=True))}")
            if args.long:
                asyncio.run(long_game(port, args.long, min(args.window, args.long // 2), proc.pid,
                                      Sizer(db_file, args.db, args.redis, proc.pid), args.pad_to))
        finally:
            for p in (echo_proc, proc) + ((before[0],) if before else ()) + ((floor[0],) if floor else ()):
                p.terminate()
                p.wait()


if __name__ == "__main__":
    main()
