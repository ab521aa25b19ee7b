"""Seeded games played by simple strategies and by the solver: the measurements behind the pages.

Game ``i`` of a run is ``Game(size, seed=i)`` (from ``first_seed`` on), so every
figure on the strategy, boards and solver pages can be reproduced exactly:

>>> row = play("corner", 4, 7)
>>> row == play("corner", 4, 7)
True
>>> row[0], row[2] >= 8
(7, True)

A result row is ``[seed, score, max_tile, moves, over, board]``: ``over`` is 1
when the game ended by the rules (0 when a ``max_moves`` cap stopped it) and
``board`` the final board as one character per cell (``.`` empty, else the
tile's exponent in base 36 plus the letters after ``z`` for 36 and 37).
In the data file each row also carries the ``id`` of the run (the command)
that played it, so the file lists exactly the commands its games come from.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..game import Game
from ..rules import slide

#: Where the committed measurements live, and what the pages read.
DATA_FILE = Path(__file__).resolve().parent.parent / "data" / "simulations.json"
FORMAT = 1

_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"
_EXTRA = "!?"  # exponents 36 and 37 (6x6 only)

#: Corner play pushes everything toward the bottom-left corner.
CORNER_ORDER = ("down", "left", "right", "up")

#: Below this many free cells ``corner-rush`` stops weighing its moves.
CAREFUL_BELOW = 4

Strategy = Callable[[Game, random.Random], str | None]


def _first_legal(game: Game, order: Iterable[str]) -> str | None:
    legal = set(game.legal_moves())
    return next((d for d in order if d in legal), None)


def _random(game: Game, rng: random.Random) -> str | None:
    """Any legal move, each equally likely."""
    legal = game.legal_moves()
    return rng.choice(legal) if legal else None


def _greedy(game: Game, rng: random.Random) -> str | None:
    """Whichever of all four directions scores the most points now; a tie is settled at random."""
    order = list(CORNER_ORDER)
    rng.shuffle(order)
    return _most_points(game, order)


def _most_points(game: Game, order: Iterable[str]) -> str | None:
    """The first direction in ``order`` among those that score the most points now."""
    board = game.board
    best, best_points = None, -1
    for d in order:
        after, points = slide(board, d)  # type: ignore[arg-type]
        if after != board and points > best_points:
            best, best_points = d, points
    return best


def _corner_greedy(game: Game, rng: random.Random) -> str | None:
    """Down, left or right, whichever merges for the most points now; up only when forced."""
    return _most_points(game, CORNER_ORDER[:3]) or _first_legal(game, ("up",))


def _empty(board: list[list[int]]) -> int:
    return sum(v == 0 for row in board for v in row)


def _ordered_edges(board: list[list[int]]) -> int:
    """Neighbour pairs in order along the bottom row (falling rightward) and left column (rising downward)."""
    n = len(board)
    bottom = board[n - 1]
    left = [board[r][0] for r in range(n)]
    return sum(bottom[i] >= bottom[i + 1] for i in range(n - 1)) + sum(
        left[i] <= left[i + 1] for i in range(n - 1)
    )


def _corner(game: Game, rng: random.Random) -> str | None:
    """The corner method: down, left or right, chosen by what each leaves; up only when forced.

    A move is worth more when the largest tile stays in the bottom-left corner,
    then when the bottom row and left column stay in order and cells stay free,
    then when it scores more.
    """
    board = game.board
    n = len(board)
    best, best_key = None, None
    for d in CORNER_ORDER[:3]:
        after, points = slide(board, d)  # type: ignore[arg-type]
        if after == board:
            continue
        top = max(v for row in after for v in row)
        key = (after[n - 1][0] == top, _ordered_edges(after) + _empty(after), points)
        if best_key is None or key > best_key:
            best, best_key = d, key
    return best or _first_legal(game, ("up",))


def _corner_rush(game: Game, rng: random.Random) -> str | None:
    """The corner method, except that with fewer than ``CAREFUL_BELOW`` free cells it stops looking.

    Nearly full, it takes the first of down, left, right, up that moves at all.
    """
    if _empty(game.board) < CAREFUL_BELOW:
        return _first_legal(game, CORNER_ORDER)
    return _corner(game, rng)


def _solver(preset: str) -> Strategy:
    def choose(game: Game, rng: random.Random) -> str | None:
        from . import best_move

        return best_move(game.board, preset=preset)

    choose.__doc__ = f"The built-in solver's {preset!r} preset."
    return choose


STRATEGIES: dict[str, Strategy] = {
    "random": _random,
    "greedy": _greedy,
    "corner-greedy": _corner_greedy,
    "corner-rush": _corner_rush,
    "corner": _corner,
    "solver-fast": _solver("fast"),
    "solver-learned": _solver("learned"),
}

#: Strategies that play only some sizes: the trained network is a 4x4 player (``solver.learned``),
#: and elsewhere its preset would be the heuristic's ``strong`` under another name.
ONLY_SIZES: dict[str, tuple[int, ...]] = {"solver-learned": (4,)}


def unplayable(strategy: str, size: int) -> str | None:
    """Why ``strategy`` cannot give true figures on ``size`` here (None: it can).

    ``solver-learned`` needs 4x4 and the trained weights installed (``pip install ./weights``):
    without them its preset plays the heuristic, which would be measured under the network's name.
    """
    sizes = ONLY_SIZES.get(strategy)
    if sizes is not None and size not in sizes:
        return f"{strategy} plays only {', '.join(f'{n}x{n}' for n in sizes)}"
    if strategy == "solver-learned":
        from .learned import network

        if network() is None:
            return "solver-learned needs the trained weights: pip install ./weights"
    return None


def weights_games() -> int | None:
    """The training games of the installed weights, which ``solver-learned`` plays (a run's
    ``weights_games``); None without weights."""
    from .learn import shipped

    try:
        return int(shipped.read_header(shipped.installed_chain()[-1])["run"]["games"])
    except (shipped.NotInstalled, OSError, ValueError, KeyError, TypeError):
        return None


def encode_board(board: list[list[int]]) -> str:
    """One character per cell, row by row: ``.`` for empty, else the exponent.

    >>> encode_board([[0, 2], [1024, 2**37]])
    '.1a?'
    """
    out = []
    for row in board:
        for v in row:
            e = v.bit_length() - 1 if v else 0
            out.append("." if not v else _DIGITS[e] if e < 36 else _EXTRA[e - 36])
    return "".join(out)


def decode_board(text: str) -> list[list[int]]:
    """The inverse of ``encode_board``.

    >>> decode_board('.1a?')
    [[0, 2], [1024, 137438953472]]
    """
    n = round(len(text) ** 0.5)
    values = [
        0 if ch == "." else 1 << (_DIGITS.index(ch) if ch in _DIGITS else 36 + _EXTRA.index(ch))
        for ch in text
    ]
    return [values[r * n : (r + 1) * n] for r in range(n)]


def play(strategy: str, size: int, seed: int, max_moves: int | None = None) -> list[Any]:
    """Play game ``seed`` on a ``size`` board with ``strategy``; the result row."""
    choose = STRATEGIES[strategy]
    if strategy.startswith("solver-"):
        from . import play_game

        game = play_game(size, seed, strategy.removeprefix("solver-"), max_moves=max_moves)
    else:
        game = Game(size, seed)
        rng = random.Random(seed)
        while max_moves is None or game.moves < max_moves:
            move = choose(game, rng)
            if move is None:
                break
            game.move(move)
    return [seed, game.score, game.max_tile, game.moves, int(game.over), encode_board(game.board)]


def _play_task(task: tuple[str, int, int, int | None]) -> tuple[str, int, list[Any]]:
    strategy, size, seed, max_moves = task
    return strategy, size, play(strategy, size, seed, max_moves)


def run(
    strategies: Iterable[str],
    sizes: Iterable[int],
    games: int,
    *,
    first_seed: int = 0,
    jobs: int = 1,
    max_moves: int | None = None,
) -> Iterator[tuple[str, int, list[Any]]]:
    """Play every (strategy, size, seed) and yield ``(strategy, size, row)`` as games finish.

    With ``jobs > 1`` the games are spread over that many processes; the rows
    are the same either way, only their order differs.
    """
    tasks = [
        (s, n, seed, max_moves)
        for n in sizes
        for s in strategies
        for seed in range(first_seed, first_seed + games)
    ]
    if jobs <= 1:
        yield from map(_play_task, tasks)
        return
    import multiprocessing

    with multiprocessing.get_context("spawn").Pool(jobs) as pool:
        yield from pool.imap_unordered(_play_task, tasks, chunksize=1)


def empty_data() -> dict[str, Any]:
    return {"format": FORMAT, "runs": [], "results": {}}


def load(path: Path | str = DATA_FILE) -> dict[str, Any]:
    """The data file, or an empty one when it does not exist yet."""
    path = Path(path)
    if not path.exists():
        return empty_data()
    data = json.loads(path.read_text(encoding="utf-8"))
    if data.get("format") != FORMAT:
        raise ValueError(f"{path.name}: unknown format {data.get('format')!r}")
    _adopt_rows_without_run(data)
    return data


def _option(command: str, name: str) -> str:
    words = command.split()
    return words[words.index(name) + 1] if name in words else ""


def _adopt_rows_without_run(data: dict[str, Any]) -> None:
    """Give runs an ``id`` and rows their run: the last run whose command covers the row.

    Files written before rows carried their run are read this way.
    """
    runs = data.setdefault("runs", [])
    for i, run in enumerate(runs, start=1):
        run.setdefault("id", i)
    for size, by_strategy in data.get("results", {}).items():
        for strategy, rows in by_strategy.items():
            for row in rows:
                if len(row) > 6:
                    continue
                owner = 0
                for run in runs:
                    c = run["command"]
                    first = int(_option(c, "--first-seed") or 0)
                    if (
                        size in _option(c, "--sizes").split(",")
                        and strategy in _option(c, "--strategies").split(",")
                        and first <= row[0] < first + int(_option(c, "--games") or 0)
                    ):
                        owner = run["id"]
                row.append(owner)


def merge(
    data: dict[str, Any],
    rows: Iterable[tuple[str, int, list[Any]]],
    command: str,
    run: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Add result rows to ``data``; a row replaces an earlier one for the same seed.

    Rows are kept sorted by seed under ``results[size][strategy]``, each
    tagged with its run's ``id``. The command is added to ``runs`` (pass the
    ``run`` entry of an earlier merge to save one run in parts); each run's
    ``games`` counts the rows still in the file, and a run left with none is
    dropped.
    """
    runs = data.setdefault("runs", [])
    if run is None:
        run = {"id": max((r["id"] for r in runs), default=0) + 1, "command": command, "games": 0}
        runs.append(run)
    results = data.setdefault("results", {})
    for strategy, size, row in rows:
        bucket = results.setdefault(str(size), {}).setdefault(strategy, [])
        bucket[:] = [r for r in bucket if r[0] != row[0]]
        bucket.append([*row[:6], run["id"]])
    counts: dict[int, int] = {}
    for by_strategy in results.values():
        for bucket in by_strategy.values():
            bucket.sort(key=lambda r: r[0])
            for r in bucket:
                counts[r[6]] = counts.get(r[6], 0) + 1
    run["finished"] = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    for r in runs:
        r["games"] = counts.get(r["id"], 0)
    runs[:] = [r for r in runs if r["games"] or r is run]
    return data


def save(data: dict[str, Any], path: Path | str = DATA_FILE) -> None:
    """Write the data file: one result row per line, so diffs stay readable."""
    lines = ["{", f'  "format": {data["format"]},', '  "runs": [']
    runs = data.get("runs", [])
    lines += [
        f"    {json.dumps(r, ensure_ascii=False)}{',' if i < len(runs) - 1 else ''}"
        for i, r in enumerate(runs)
    ]
    lines += ["  ],", '  "results": {']
    sizes = sorted(data.get("results", {}), key=int)
    for si, size in enumerate(sizes):
        lines.append(f'    "{size}": {{')
        by_strategy = data["results"][size]
        names = sorted(by_strategy)
        for ni, name in enumerate(names):
            rows = by_strategy[name]
            lines.append(f"      {json.dumps(name)}: [")
            lines += [
                f"        {json.dumps(r)}{',' if i < len(rows) - 1 else ''}" for i, r in enumerate(rows)
            ]
            lines.append(f"      ]{',' if ni < len(names) - 1 else ''}")
        lines.append(f"    }}{',' if si < len(sizes) - 1 else ''}")
    lines += ["  }", "}", ""]
    text = "\n".join(lines)
    json.loads(text)  # never write a file the pages could not read
    path = Path(path)
    partial = path.with_name(path.name + ".part")
    partial.write_text(text, encoding="utf-8")
    partial.replace(path)  # readers see the old file or the new one, never half of one
