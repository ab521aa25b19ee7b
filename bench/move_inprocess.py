"""A WebSocket move's cost inside the app alone: no network, no uvicorn, no other process.

Builds the app on a fresh SQLite file (limits off, no solver warm-up), starts
4x4 games over ASGI and drives each one's play socket with ASGI messages
handed straight to the app, one move at a time (the first direction, in
left/down/right/up order, that changes the board), and prints the time from a
message handed to the app to its answer: the median, and the mean of the
fastest 95 %. The event loop runs nothing else, so this is the app's own work
for a move (parse, checks, rules, store, answer); ``bench/move_cost.py``
measures the whole server against an echo. Run two versions in turn to compare
them (``PYTHONPATH=<other checkout>/src``). Prints figures; never fails on timing.

    .venv/bin/python bench/move_inprocess.py --moves 3000
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import statistics
import tempfile
import time

from game2048 import slide

ORDER = ("left", "down", "right", "up")
LETTERS = {"up": "U", "down": "D", "left": "L", "right": "R"}


def choose(board: list[list[int]]) -> str | None:
    for direction in ORDER:
        if slide(board, direction)[0] != board:
            return direction
    return None


async def run(moves: int) -> list[float]:
    import httpx

    from game2048.server.app import create_app
    from game2048.server.config import Settings

    folder = tempfile.mkdtemp()
    settings = Settings.from_env(f"sqlite:///{folder}/bench.sqlite", env={
        "GAME2048_RATE_LIMIT": "0", "GAME2048_MOVE_RATE_LIMIT": "0", "GAME2048_WARM_SOLVER": "0"})
    app = create_app(settings)
    logging.getLogger("game2048.requests").setLevel(logging.WARNING)  # a line per game otherwise
    times: list[float] = []
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://bench") as client:
        while len(times) < moves:
            game = (await client.post("/api/games", json={"size": 4, "mode": "classic"})).json()
            inbox: asyncio.Queue[dict[str, object]] = asyncio.Queue()
            outbox: asyncio.Queue[dict[str, object]] = asyncio.Queue()
            await inbox.put({"type": "websocket.connect"})
            path = f"/api/games/{game['id']}/play"
            scope = {"type": "websocket", "asgi": {"version": "3.0"}, "path": path, "raw_path": path.encode(),
                     "root_path": "", "query_string": b"", "headers": [(b"host", b"bench")],
                     "client": ("127.0.0.1", 5000), "server": ("127.0.0.1", 80), "scheme": "ws",
                     "subprotocols": [], "extensions": {"websocket.http.response": {}}, "state": {}}
            socket = asyncio.create_task(app(scope, inbox.get, outbox.put))
            accepted = await outbox.get()
            assert accepted["type"] == "websocket.accept", accepted
            board, at = game["board"], 0
            while len(times) < moves and (direction := choose(board)) is not None:
                message = json.dumps({"op": "moves", "token": game["token"], "at": at,
                                      "moves": LETTERS[direction]})
                start = time.perf_counter()
                await inbox.put({"type": "websocket.receive", "text": message})
                answer = await outbox.get()
                times.append(time.perf_counter() - start)
                played = json.loads(answer["text"])  # type: ignore[arg-type]
                board, at = played["board"], played["at"]
            await inbox.put({"type": "websocket.disconnect", "code": 1000})
            await socket
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--moves", type=int, default=3000)
    args = parser.parse_args()
    times = sorted(asyncio.run(run(args.moves)))
    fastest = times[:int(len(times) * 0.95)]
    print(f"{len(times)} moves in the app: median {statistics.median(times) * 1e6:.1f} us, "
          f"mean of the fastest 95 % {statistics.fmean(fastest) * 1e6:.1f} us")


if __name__ == "__main__":
    main()
