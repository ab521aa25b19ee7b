"""How long does a player's game wait for its engine-like check while one name floods the queue?

    python bench/check_queue.py [--flood 60] [--others 10] [--moves 120]

In one process, an app with the background checker (its check run in a thread of this
process, so its CPU time is measured here): the name ``Flood`` finishes ``--flood`` 4x4
games of ``--moves`` moves, and ``--others`` other names finish one game each, spread
through the flood. Then the checker works through the queue (``EngineChecks.work_once``,
the server's own turn-taking between names) and the bench notes, for every game, after how
many checks and how many CPU seconds of the checker it was checked. The same games under
oldest-first (the order before the turns) are worked out from the measured cost of each
check: a game waits for every game finished before it. Prints the other names' waits, p50
and p99 (the nearest-rank percentile), in checks and in the checker's CPU seconds. Never
fails on timing.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from fastapi.testclient import TestClient
from sqlalchemy import select

from game2048 import slide
from game2048.server import create_app
from game2048.server.config import Settings
from game2048.server.reviews.checks import EngineChecks
from game2048.server.storage.models import GameRow

NAMES = {"L": "left", "D": "down", "R": "right", "U": "up"}


KEYS: dict[str, str] = {}  # the name keys the first finishes answered


def play(client: TestClient, name: str, moves: int) -> str:
    issued = client.post("/api/games", json={"size": 4}).json()
    board, at = issued["board"], 0
    for _ in range(moves):
        letter = next((m for m in "LDRU" if slide(board, NAMES[m])[0] != board), None)
        if letter is None:
            break
        answer = client.post(f"/api/games/{issued['id']}/moves",
                             json={"token": issued["token"], "at": at, "moves": letter}).json()
        board, at = answer["board"], answer["at"]
    body = {"token": issued["token"], "name": name, "name_key": KEYS.get(name)}
    done = client.post(f"/api/games/{issued['id']}/finish", json=body)
    assert done.json()["standing"] == "checking", done.text
    KEYS.setdefault(name, done.json()["name_key"])
    return issued["id"]


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, round(share * len(ordered) + 0.5) - 1))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--flood", type=int, default=60)
    parser.add_argument("--others", type=int, default=10)
    parser.add_argument("--moves", type=int, default=120)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        settings = Settings(database_url=f"sqlite:///{Path(folder) / 'bench.sqlite3'}", secret="bench",
                            rate_limit="0", move_rate_limit="0", engine_check="background")
        app = create_app(settings)
        app.state.checks = EngineChecks(app.state.sessions, {}, pool=ThreadPoolExecutor(1))
        client = TestClient(app)
        every = max(1, args.flood // max(1, args.others))
        order: list[tuple[str, str]] = []  # (name, game) in finishing order
        for i in range(args.flood):
            order.append(("Flood", play(client, "Flood", args.moves)))
            if i % every == every - 1 and sum(n != "Flood" for n, _ in order) < args.others:
                name = f"Other {len(order)}"
                order.append((name, play(client, name, args.moves)))
        checked: dict[str, tuple[int, float]] = {}  # game -> (checks so far, checker CPU seconds so far)
        cost: dict[str, float] = {}

        def waiting() -> set[str]:
            with app.state.sessions() as session:
                return set(session.scalars(select(GameRow.id).where(GameRow.standing == "checking")))

        cpu, before = 0.0, waiting()
        while True:
            start = time.process_time()  # the check runs in the pool's thread; this one only waits
            if not app.state.checks.work_once():
                break
            spent, after = time.process_time() - start, waiting()
            [game] = before - after
            cost[game], before = spent, after
            cpu += spent
            checked[game] = (len(checked) + 1, cpu)
        app.state.checks.stop()
        app.state.engine.dispose()
    others = [g for name, g in order if name != "Flood"]
    # oldest first: a game waits for every game finished before it (costs as measured above)
    oldest: dict[str, tuple[int, float]] = {}
    total = 0.0
    for i, (_, game) in enumerate(order, start=1):
        total += cost[game]
        oldest[game] = (i, total)
    print(f"{len(order)} games ({args.flood} by one name, {len(others)} by others), {args.moves} moves each; "
          f"checker CPU per check: median {statistics.median(cost.values()) * 1000:.0f} ms")
    for title, waits in (("turns between names", checked), ("oldest first", oldest)):
        n = [waits[g][0] for g in others]
        s = [waits[g][1] for g in others]
        print(f"{title:>20}: other names' games checked after p50 {percentile(n, .5):.0f} / p99 "
              f"{percentile(n, .99):.0f} checks, {percentile(s, .5):.2f} / {percentile(s, .99):.2f} s of "
              f"the checker's CPU")


if __name__ == "__main__":
    main()
