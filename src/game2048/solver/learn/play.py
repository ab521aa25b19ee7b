"""The network as a player: its move on a position, seeded games, and their statistics.

Seeded games use the game's real spawns (``ntuple.play_seeded``), so each is
the game ``game2048.Game(4, seed)`` plays with the same moves, and its log
replays with ``game2048.replay``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from ...rules import DIRECTIONS, LETTERS, Direction, exponent
from ...spawn import check_seed, game_key
from . import ntuple
from .train import tables

#: Moves one seeded game has room for (a game is stopped with two 32768s on the board long before).
_LOG = 1 << 18
#: The tiles ``Evaluation.reached`` reports.
REPORTED_TILES = (2048, 4096, 8192, 16384, 32768)


def pack(board: Sequence[Sequence[int]]) -> np.uint64:
    """A 4x4 board of tile values (0 empty) as a bitboard.

    ValueError off 4x4, past 32768, or with two 32768s (4-bit cells could not
    hold their merge, so the moves would not be the game's).
    """
    if len(board) != 4 or any(len(row) != 4 for row in board):
        raise ValueError("the learned evaluator plays 4x4 boards only")
    exps = [exponent(v) for row in board for v in row]
    if max(exps) > 15 or exps.count(15) > 1:
        raise ValueError("the learned evaluator holds tiles up to 32768, and one 32768 at most")
    return np.uint64(sum(e << (4 * i) for i, e in enumerate(exps)))


def best_move(weights: np.ndarray, board: Sequence[Sequence[int]], ply: int = 1) -> Direction | None:
    """The network's move on a 4x4 ``board`` (rows of tile values), or None if no move is legal.

    Ply 1 picks the move with the most points + V(afterstate); ply 2 looks one
    spawn further, ply 3 two (``ntuple.choose``). Ties go to the first of up, down,
    left, right.
    """
    _check_ply(ply)
    slide, points = tables()
    d = int(ntuple.choose(weights, pack(board), ply, slide, points))
    return None if d < 0 else DIRECTIONS[d]


@dataclass(frozen=True)
class SeededGame:
    """One seeded game the network played: its record (4x4, ``seed``, ``log``) and what it came to.

    ``capped``: stopped with two 32768s on the board (the 4-bit board cannot
    merge them); everything up to there is the real game.
    """

    seed: int
    log: str
    score: int
    max_tile: int
    moves: int
    capped: bool
    seconds: float


def _check_ply(ply: int) -> None:
    if ply not in PLIES:
        raise ValueError(f"ply must be one of {', '.join(map(str, PLIES))}, got {ply!r}")


#: The depths the network plays at (``ntuple.choose``).
PLIES = (1, 2, 3)


def play_game(weights: np.ndarray, seed: int, ply: int = 1) -> SeededGame:
    """Play game ``seed`` (4x4, an integer seed: the SplitMix64 spawns) with the network until it is over."""
    if type(seed) is not int:
        raise ValueError(f"seeded games here take an integer seed, 0 <= seed < 2^53, got {seed!r}")
    _check_ply(ply)
    slide, points = tables()
    log = np.zeros(_LOG, dtype=np.int8)
    start = time.perf_counter()
    score, top, moves, capped = ntuple.play_seeded(
        weights, np.uint64(game_key(check_seed(seed))), ply, slide, points, log
    )
    seconds = time.perf_counter() - start
    letters = "".join(LETTERS[DIRECTIONS[d]] for d in log[:moves].tolist())
    return SeededGame(seed, letters, int(score), 1 << int(top), int(moves), bool(capped), seconds)


def wilson(hits: int, games: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval (95 % by default) for a share of ``hits`` in ``games``.

    >>> lo, hi = wilson(45, 50)
    >>> round(lo, 3), round(hi, 3)
    (0.786, 0.957)
    """
    if games == 0:
        return 0.0, 1.0
    p = hits / games
    centre = p + z * z / (2 * games)
    spread = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games))
    scale = 1 + z * z / games
    return max(0.0, (centre - spread) / scale), min(1.0, (centre + spread) / scale)


@dataclass(frozen=True)
class Evaluation:
    """The statistics of ``games`` seeded games (seeds ``seed`` on) at ``ply``."""

    games: int
    seed: int
    ply: int
    moves: int
    mean_score: float
    reached: dict[int, float]
    capped: int
    us_per_move: float

    def interval(self, tile: int) -> tuple[float, float]:
        """The 95 % interval of the share reaching ``tile``."""
        return wilson(round(self.reached[tile] * self.games), self.games)

    def as_dict(self) -> dict[str, object]:
        return {
            "games": self.games,
            "seed": self.seed,
            "ply": self.ply,
            "moves": self.moves,
            "mean_score": self.mean_score,
            "reached": {str(t): s for t, s in self.reached.items()},
            "interval95": {str(t): self.interval(t) for t in self.reached},
            "capped": self.capped,
            "us_per_move": self.us_per_move,
        }


def evaluate(weights: np.ndarray, games: int, seed: int = 0, ply: int = 1, threads: int = 1) -> Evaluation:
    """Play games ``seed`` to ``seed + games - 1`` and sum them up (the same for any ``threads``).

    ``us_per_move`` is the time of a move in one thread, spawn included.
    """
    seeds = range(seed, seed + games)
    if threads > 1:
        with ThreadPoolExecutor(threads) as pool:
            played = list(pool.map(lambda s: play_game(weights, s, ply), seeds))
    else:
        played = [play_game(weights, s, ply) for s in seeds]
    moves = sum(g.moves for g in played)
    busy = sum(g.seconds for g in played)
    return Evaluation(
        games=games,
        seed=seed,
        ply=ply,
        moves=moves,
        mean_score=float(np.mean([g.score for g in played])),
        reached={t: sum(g.max_tile >= t for g in played) / games for t in REPORTED_TILES},
        capped=sum(g.capped for g in played),
        us_per_move=1e6 * busy / moves if moves else 0.0,
    )
