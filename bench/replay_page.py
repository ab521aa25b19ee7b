"""What a view of a finished game's page costs the server, and what it weighs over the wire.

In-process (the app under Starlette's test client, an SQLite file): a practice record of a
35,000-move 6×6 game of the corner method, and one of 3,000 moves (the longest whose page carries
every frame), each viewed 20 times with ``Accept-Encoding: gzip`` after a first view. CPU is
``time.process_time`` of the whole process (client included, so an upper bound for the server).

    .venv/bin/python bench/replay_page.py
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

from fastapi.testclient import TestClient

sys.path.insert(0, str(Path(__file__).resolve().parent))

from game2048 import Game
from game2048.server.app import create_app
from game2048.server.config import Settings
from hostile import long_game

VIEWS = 20


def record(client: TestClient, game: Game) -> str:
    r = client.post("/api/records", json={"size": game.size, "seed": game.seed, "log": game.log,
                                          "score": game.score, "name": "bench"})
    assert r.status_code == 201, r.text
    return r.json()["id"]


def views(client: TestClient, game_id: str) -> tuple[float, int, int, float]:
    first = time.process_time()
    page = client.get(f"/games/{game_id}", headers={"accept-encoding": "gzip"})
    first = time.process_time() - first
    assert page.status_code == 200
    costs = []
    for _ in range(VIEWS):
        start = time.process_time()
        r = client.get(f"/games/{game_id}", headers={"accept-encoding": "gzip"})
        costs.append(time.process_time() - start)
        assert r.status_code == 200
    wire = int(r.headers["content-length"])
    return first, wire, len(r.content), statistics.median(costs)


def main() -> None:
    long = long_game()
    short = Game(6, 7)
    import random

    from game2048.solver.simulate import STRATEGIES

    rng, choose = random.Random(7), STRATEGIES["corner"]
    while short.moves < 3000 and (move := choose(short, rng)) is not None:
        short.move(move)
    with tempfile.TemporaryDirectory() as folder:
        app = create_app(Settings(database_url=f"sqlite:///{folder}/bench.sqlite3", rate_limit="0",
                                  cpu_budget="0", hint_cpu_budget="0"))
        with TestClient(app) as client:
            for game in (short, long):
                first, wire, size, view = views(client, record(client, game))
                print(f"{game.size}x{game.size}, {len(game.log):,} moves: "
                      f"first view {first * 1000:.1f} ms CPU; "
                      f"then {view * 1000:.2f} ms CPU a view (median of {VIEWS}); "
                      f"{wire / 1024:.1f} KiB over the wire, {size / 1024:.1f} KiB unpacked")
        app.state.engine.dispose()


if __name__ == "__main__":
    main()
