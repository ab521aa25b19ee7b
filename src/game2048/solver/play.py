"""Whole games played by the solver, for simulations and the ``solve`` command."""

from __future__ import annotations

from ..game import Game
from .search import analyse


def play_game(size: int = 4, seed: int = 0, preset: str = "fast", max_moves: int | None = None) -> Game:
    """Play game ``seed`` on a ``size`` board with the solver until it is over.

    Stops early after ``max_moves`` moves if given. The game is marked
    ``helped`` (unranked). Same arguments, same game.
    """
    game = Game(size, seed)
    game.helped = True
    while max_moves is None or game.moves < max_moves:
        move, _ = analyse(game.board, preset=preset)
        if move is None:
            break
        game.move(move)
    return game
