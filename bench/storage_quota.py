"""The disk one client address can fill in a day with practice records, at the default quotas.

In-process, an SQLite file: one address sends records of a long 4×4... 6×6 game until the
storage quota refuses (429); prints what was kept and how much the database file grew.

    .venv/bin/python bench/storage_quota.py
"""

from __future__ import annotations

import random
import tempfile
from pathlib import Path

from fastapi.testclient import TestClient

from game2048 import Game
from game2048.server.app import create_app
from game2048.server.config import Settings
from game2048.solver.simulate import STRATEGIES


def game_of(moves: int) -> Game:
    game, rng, choose = Game(6, 11), random.Random(11), STRATEGIES["corner"]
    while game.moves < moves and (move := choose(game, rng)) is not None:
        game.move(move)
    return game


def main() -> None:
    defaults = Settings(database_url="sqlite://")
    for moves in (1_000, defaults.practice_bytes // defaults.practice_records):
        game = game_of(moves)
        with tempfile.TemporaryDirectory() as folder:
            db = Path(folder) / "quota.sqlite3"
            app = create_app(Settings(database_url=f"sqlite:///{db}", cpu_budget="0", rate_limit="0"))
            with TestClient(app) as client:
                before = sum(f.stat().st_size for f in Path(folder).iterdir())
                kept = 0
                while True:
                    r = client.post("/api/records", json={"size": 6, "seed": game.seed, "log": game.log,
                                                          "score": game.score, "name": f"n{kept}"})
                    if r.status_code != 201:
                        assert r.status_code == 429, r.text
                        break
                    kept += 1
                app.state.engine.dispose()
            after = sum(f.stat().st_size for f in Path(folder).iterdir())
            print(f"records of {len(game.log):,} moves: {kept} kept, then 429; "
                  f"{kept * len(game.log) / 1e6:.2f} MB of logs; "
                  f"the database grew {(after - before) / 1e6:.2f} MB")


if __name__ == "__main__":
    main()
