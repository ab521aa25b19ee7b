"""Whole games played by the solver, and their statistics, for simulations
and the ``solve`` command.

>>> game = play_game(3, seed=1, max_moves=5)
>>> game.moves, game.helped
(5, True)
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass

from ..game import Game
from ..rules import DEFAULT_SIZE
from .search import DEFAULT_PRESET, analyse


def play_game(
    size: int = DEFAULT_SIZE,
    seed: int = 0,
    preset: str = DEFAULT_PRESET,
    *,
    max_moves: int | None = None,
    depth: int | None = None,
    time_limit: float | None = None,
    until: int | None = None,
    threads: int | None = None,
) -> Game:
    """Play game ``seed`` on a ``size`` board with the solver until it is over.

    The spawns are the game's own (``Game(size, seed)``), so the same
    arguments always give the same game. Stops early after ``max_moves``
    moves, or once a tile reaches ``until``, if given. ``depth``,
    ``time_limit`` and ``threads`` are passed to ``analyse`` (the moves do not
    depend on ``threads``). The game is marked ``helped`` (unranked).
    """
    game = Game(size, seed)
    game.helped = True
    while (max_moves is None or game.moves < max_moves) and (until is None or game.max_tile < until):
        move, _ = analyse(game.board, preset=preset, depth=depth, time_limit=time_limit, threads=threads)
        if move is None:
            break
        game.move(move)
    return game


@dataclass(frozen=True)
class GameResult:
    """What one solver game came to."""

    seed: int
    score: int
    max_tile: int
    moves: int
    seconds: float


def play_result(
    size: int,
    seed: int,
    preset: str,
    depth: int | None = None,
    time_limit: float | None = None,
    max_moves: int | None = None,
    until: int | None = None,
    threads: int | None = None,
) -> GameResult:
    """Play one game (as ``play_game``) and time it."""
    start = time.perf_counter()
    game = play_game(
        size,
        seed,
        preset,
        depth=depth,
        time_limit=time_limit,
        max_moves=max_moves,
        until=until,
        threads=threads,
    )
    return GameResult(seed, game.score, game.max_tile, game.moves, time.perf_counter() - start)


def summarise(results: list[GameResult], seconds: float) -> dict[str, object]:
    """The statistics of a run of games that took ``seconds`` of wall-clock time.

    ``reached`` maps each tile, as a string, from 2 up to the largest seen,
    to the fraction of games whose largest tile was at least that.

    >>> s = summarise([GameResult(0, 100, 64, 50, 0.1), GameResult(1, 300, 128, 70, 0.1)], 1.0)
    >>> s["median_score"], s["reached"]["128"], s["moves_per_second"]
    (200.0, 0.5, 120.0)
    """
    games = len(results)
    moves = sum(r.moves for r in results)
    scores = [r.score for r in results]
    top = max((r.max_tile for r in results), default=0)
    reached: dict[str, float] = {}
    tile = 2
    while tile <= top:
        reached[str(tile)] = sum(1 for r in results if r.max_tile >= tile) / games
        tile *= 2
    return {
        "games": games,
        "moves": moves,
        "moves_per_second": moves / seconds if seconds > 0 else 0.0,
        "mean_score": statistics.fmean(scores) if scores else 0.0,
        "median_score": float(statistics.median(scores)) if scores else 0.0,
        "reached": reached,
    }
