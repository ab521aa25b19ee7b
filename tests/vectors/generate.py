"""Regenerate ``engine.json``: the test vectors both engines (Python and JS) must match.

    python tests/vectors/generate.py > tests/vectors/engine.json

The games are played by a seeded mix of random and greedy players, with undos
sprinkled in, on every board size, with integer seeds (SplitMix64) and with
secret seeds (keyed BLAKE2b); ``test_vectors.py`` checks the committed file
against the Python engine, and ``tests/js`` checks the browser engine.

Secret seeds add their own sections: ``secret_words`` (the raw 64-bit words
of the PRF), ``secret_spawn`` (draws), ``secret_rejections`` (draws under a
rejection limit lowered on purpose, so that the rejection path runs: no real
draw is ever rejected) and ``bad_seeds`` (seeds both engines refuse). They
come from their own random stream, after the integer-seed sections, so those
stay as they were.
"""

from __future__ import annotations

import json
import random
import sys

from game2048 import Game, RecordError, replay, slide, slide_row
from game2048.rules import DIRECTIONS, LETTERS, SIZES
from game2048.spawn import MAX_SEED, game_key, secret_word, spawn_choice

WORKED = [
    [2, 2, 2, 2], [4, 2, 2, 0], [2, 2, 4, 0], [2, 2, 2, 0], [2, 0, 0, 2], [8, 4, 4, 8],
    [2, 4, 2, 4], [4, 4, 4, 4], [4, 4, 4, 0], [0, 0, 0, 0], [0, 0, 2, 2], [65536, 65536, 0, 0],
]


def random_board(rnd: random.Random, n: int, top: int) -> list[list[int]]:
    return [[(1 << rnd.randint(1, top)) if rnd.random() < 0.7 else 0 for _ in range(n)] for _ in range(n)]


def greedy(game: Game, rnd: random.Random) -> str:
    """Prefer the move that leaves the most empty cells; ties broken by a corner order."""
    best, best_key = "down", None
    for rank, d in enumerate(("down", "left", "right", "up")):
        board, points = slide(game.board, d)
        if board == game.board:
            continue
        key = (sum(v == 0 for row in board for v in row), points, -rank)
        if best_key is None or key > best_key:
            best, best_key = d, key
    return best


def _value(board: list[list[int]], depth: int) -> float:
    """Expected empty-cell count after ``depth`` more moves, spawns averaged."""
    moves = [b for b, _ in (slide(board, d) for d in DIRECTIONS) if b != board]
    if not moves:
        return -100.0
    if depth == 0:
        return max(sum(v == 0 for row in b for v in row) for b in moves)
    best = -1e9
    for b in moves:
        cells = [(r, c) for r, row in enumerate(b) for c, v in enumerate(row) if v == 0]
        total = 0.0
        for r, c in cells:
            for tile, p in ((2, 0.9), (4, 0.1)):
                b[r][c] = tile
                total += p * _value(b, depth - 1)
            b[r][c] = 0
        best = max(best, total / len(cells))
    return best


def lookahead(board: list[list[int]]) -> str:
    scored = []
    for d in DIRECTIONS:
        b, _ = slide(board, d)
        if b != board:
            cells = [(r, c) for r, row in enumerate(b) for c, v in enumerate(row) if v == 0]
            total = 0.0
            for r, c in cells:
                for tile, p in ((2, 0.9), (4, 0.1)):
                    b[r][c] = tile
                    total += p * _value(b, 1)
                b[r][c] = 0
            scored.append((total / len(cells), d))
    return max(scored)[1]


def play(size: int, seed: int, rnd: random.Random, style: str, limit: int) -> Game:
    game = Game(size, seed)
    while not game.over and len(game.log) < limit:
        if game.undos_left and game.moves and rnd.random() < 0.01:
            game.undo()
            continue
        d = greedy(game, rnd) if style == "greedy" and rnd.random() < 0.9 else rnd.choice(DIRECTIONS)
        game.move(d)
    return game


def game_case(game: Game) -> dict[str, object]:
    return {
        "size": game.size, "seed": game.seed, "log": game.log, "board": game.board,
        "score": game.score, "over": game.over, "won": game.won, "max_tile": game.max_tile,
        "undos_left": game.undos_left, "ranked": game.ranked,
    }


def secret_seed(rnd: random.Random) -> str:
    return f"{rnd.getrandbits(128):032x}"


def rejected_draw(seed: str, index: int, empty: int, rejections: int) -> dict[str, object] | None:
    """The draw when a limit just low enough rejects the first ``rejections`` attempts, if one does."""
    key = game_key(seed)
    words = [secret_word(key, index, a) for a in range(rejections + 1)]
    limit = min(words[:rejections])
    if words[rejections] >= limit:
        return None
    r = words[rejections] % (10 * empty)
    return {"seed": seed, "index": index, "empty": empty, "limit": str(limit), "rejected": rejections,
            "ordinal": r // 10, "tile": 4 if r % 10 == 0 else 2}


def secret_sections(games: list[dict[str, object]], bad: list[dict[str, object]]) -> dict[str, object]:
    """Everything about secret seeds: its own random stream, games appended to ``games`` and ``bad``."""
    rnd = random.Random(128)
    words = []
    for seed in ["000102030405060708090a0b0c0d0e0f", *(secret_seed(rnd) for _ in range(7))]:
        for index, attempt in ((0, 0), (1, 0), (0, 1), (rnd.randrange(5000), 0), (rnd.randrange(5000), 2)):
            words.append({"seed": seed, "index": index, "attempt": attempt,
                          "word": str(secret_word(game_key(seed), index, attempt))})
    spawns = []
    for _ in range(200):
        seed, index, empty = secret_seed(rnd), rnd.randrange(5000), rnd.randint(1, 36)
        ordinal, exp = spawn_choice(seed, index, empty)
        spawns.append({"seed": seed, "index": index, "empty": empty, "ordinal": ordinal, "tile": 1 << exp})
    rejections: list[dict[str, object]] = []
    while len(rejections) < 6:
        seed, index, empty = secret_seed(rnd), rnd.randrange(5000), rnd.randint(1, 36)
        case = rejected_draw(seed, index, empty, 1 + len(rejections) % 3)
        if case:
            rejections.append(case)
    secret_games = []
    for size in SIZES:
        for k in range(15):
            style = "greedy" if k % 2 else "random"
            limit = rnd.choice([0, 1, 5, 40, 400, 3000])
            secret_games.append(game_case(play(size, secret_seed(rnd), rnd, style, limit)))
    # one 3x3 win: seeds 0 to 18 lose under this lookahead, 19 wins (starting there saves minutes)
    for seed in range(19, 50):
        game = Game(3, f"{seed:032x}")
        while not game.over and not game.won:
            game.move(lookahead(game.board))
        if game.won:
            secret_games.append(game_case(game))
            break
    games.extend(secret_games)
    for case in secret_games[::5]:
        for mutated in [case["log"] + "Q", "Z" + case["log"]]:
            try:
                replay(case["size"], case["seed"], mutated)
            except RecordError as exc:
                bad.append(
                    {"size": case["size"], "seed": case["seed"], "log": mutated, "position": exc.position}
                )
    bad_seeds = ["", "0" * 31, "0" * 33, "0123456789ABCDEF0123456789abcdef", "g" * 32, " " + "0" * 31,
                 "0x" + "0" * 30, -1, MAX_SEED, 1.5, None, True, [0], "12345"]
    return {"secret_words": words, "secret_spawn": spawns, "secret_rejections": rejections,
            "bad_seeds": bad_seeds}


def main() -> None:
    rnd = random.Random(2048)
    spawns = []
    for _ in range(200):
        seed, index, empty = rnd.randrange(MAX_SEED), rnd.randrange(5000), rnd.randint(1, 36)
        ordinal, exp = spawn_choice(seed, index, empty)
        spawns.append({"seed": seed, "index": index, "empty": empty, "ordinal": ordinal, "tile": 1 << exp})
    rows = [list(r) for r in WORKED]
    for _ in range(100):
        n = rnd.choice(SIZES)
        rows.append([rnd.choice([0, 0, 2, 2, 4, 8, 16]) for _ in range(n)])
    slide_rows = [{"line": r, "result": slide_row(r)[0], "points": slide_row(r)[1]} for r in rows]
    slides = []
    for _ in range(60):
        n = rnd.choice(SIZES)
        board = random_board(rnd, n, 5 if n < 6 else 37)
        for d in DIRECTIONS:
            result, points = slide(board, d)
            slides.append({"board": board, "direction": d, "result": result, "points": points})
    games = []
    for size in SIZES:
        for k in range(60):
            seed = rnd.randrange(MAX_SEED) if k % 3 else k
            style = "greedy" if k % 2 else "random"
            limit = rnd.choice([0, 1, 5, 40, 400, 3000])
            games.append(game_case(play(size, seed, rnd, style, limit)))
    # 3x3 wins (256) need some lookahead: a small expectimax finds a few
    wins = 0
    for seed in range(400):
        if wins == 6:
            break
        game = Game(3, seed)
        while not game.over and not (game.won and game.moves % 7 == 0):
            game.move(lookahead(game.board))
        if game.won:
            games.append(game_case(game))
            wins += 1
    bad = []
    for case in games[:: 7]:
        log = case["log"]
        after_over = [log + "L"] if case["over"] else []
        for mutated in [log + "Q", log + "ZZZZ", "Z" + log, *after_over]:
            try:
                replay(case["size"], case["seed"], mutated)
            except RecordError as exc:
                bad.append(
                    {"size": case["size"], "seed": case["seed"], "log": mutated, "position": exc.position}
                )
    json.dump(
        {
            "about": "Shared test vectors for the Python and JavaScript engines; see docs/spawns.md.",
            "letters": LETTERS,
            "spawn": spawns,
            "slide_row": slide_rows,
            "slide": slides,
            "games": games,
            "bad_records": bad,
            **secret_sections(games, bad),
        },
        sys.stdout,
        separators=(",", ":"),
    )
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
