"""Long solver strength runs, game by game, that can stop and go on later.

    python bench/solver_games.py 4:strong --seeds 19-30 --until 32768 --jobs 2 --out strong4.jsonl
    python bench/solver_games.py --out strong4.jsonl          # only print the table

Plays ``game2048 solve``'s games (the same seeds give the same moves: one
search thread per game by default, and the moves do not depend on threads)
and appends one JSON line per finished game to ``--out``: seed, score,
largest tile, moves, whether it ended with no move left, seconds, the move
at which each tile from the size's target up first appeared, and the whole record (size,
seed, log) for ``game2048 replay``. Seeds already in the file are skipped, so
a run cut short goes on with the next command. Then prints a markdown row per
game and the share of games reaching each tile. Long runs belong here, not in
tests.
"""

from __future__ import annotations

import argparse
import json
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

from game2048.game import Game
from game2048.rules import TARGETS
from game2048.solver.command import _worker_init
from game2048.solver.play import play_game


def first_moves(size: int, seed: int, log: str) -> dict[str, int]:
    """The move (1-based) at which each tile from the size's target up first appeared."""
    game = Game(size, seed)
    first: dict[str, int] = {}
    for letter in log:
        game.move(letter)
        if game.max_tile >= TARGETS[size] and str(game.max_tile) not in first:
            first[str(game.max_tile)] = game.moves
    return first


def play_one(size: int, preset: str, seed: int, until: int | None, threads: int) -> dict[str, Any]:
    """Play one game, as ``game2048 solve`` does, and describe it as one JSON object."""
    start = time.perf_counter()
    game = play_game(size, seed, preset, until=until, threads=threads)
    return {
        "size": size,
        "preset": preset,
        "seed": seed,
        "until": until,
        "score": game.score,
        "max_tile": game.max_tile,
        "moves": game.moves,
        "over": game.over,
        "seconds": round(time.perf_counter() - start, 1),
        "first": first_moves(size, seed, game.log),
        "log": game.log,
    }


def parse_seeds(text: str) -> list[int]:
    """``"19-30,40"`` -> 19, 20, ..., 30, 40."""
    seeds: list[int] = []
    for part in text.split(","):
        low, _, high = part.partition("-")
        seeds.extend(range(int(low), int(high or low) + 1))
    return seeds


def read(out: Path) -> list[dict[str, Any]]:
    if not out.exists():
        return []
    return [json.loads(line) for line in out.read_text().splitlines() if line.strip()]


def table(games: list[dict[str, Any]]) -> str:
    rows = ["| seed | largest tile | moves | score | ended | tiles first made at move | minutes |",
            "|---|---|---|---|---|---|---|"]
    for g in sorted(games, key=lambda g: g["seed"]):
        first: dict[str, int] = g["first"]
        ended = "no move left" if g["over"] else f"stopped at {g['until']}"
        rows.append(
            f"| {g['seed']} | {g['max_tile']:,} | {g['moves']:,} | {g['score']:,} | {ended} | "
            + ", ".join(f"{int(t):,}: {m:,}" for t, m in first.items())
            + f" | {float(g['seconds']) / 60:.1f} |"
        )
    tiles = sorted({int(t) for g in games for t in g["first"]})
    shares = []
    for t in tiles:  # over the games that could show t: those not stopped below it
        could = [g for g in games if g["until"] is None or int(g["until"]) >= t]
        made = sum(1 for g in could if int(g["max_tile"]) >= t)
        shares.append(f"{t}: {made} of {len(could)}")
    return "\n".join(rows) + "\n\nreached: " + ", ".join(shares)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", nargs="?", help="SIZE:PRESET, e.g. 4:strong")
    parser.add_argument("--seeds", default="0-49", help="seeds, e.g. 0-18,38-49 (default 0-49)")
    parser.add_argument("--until", type=int, help="end each game once it makes this tile")
    parser.add_argument("--threads", type=int, default=1, help="search threads per game (default 1)")
    parser.add_argument("--jobs", type=int, default=1, help="games played at once")
    parser.add_argument("--out", type=Path, required=True, help="JSON lines file, appended to")
    args = parser.parse_args()
    if args.run:
        size_s, preset = args.run.split(":")
        size = int(size_s)
        done = {(g["size"], g["preset"], g["seed"], g["until"]) for g in read(args.out)}
        todo = [s for s in parse_seeds(args.seeds) if (size, preset, s, args.until) not in done]
        with ProcessPoolExecutor(max_workers=args.jobs, initializer=_worker_init) as pool:
            futures = [pool.submit(play_one, size, preset, s, args.until, args.threads) for s in todo]
            for future in as_completed(futures):
                game = future.result()
                with args.out.open("a") as out:
                    out.write(json.dumps(game) + "\n")
                print(f"seed {game['seed']}: {game['max_tile']} in {game['moves']} moves", flush=True)
    print(table(read(args.out)))


if __name__ == "__main__":
    main()
