"""The built-in solver: the best move for any position on boards 3x3 to 6x6.

``analyse`` (move and per-direction values), ``best_move`` (with a heuristic
preset of ``PRESETS``, or ``learned``: the trained network), ``hint`` (what the
web game's Hint and Autoplay play), ``play_game`` (a
whole seeded game), ``review`` (grade every move of a game,
``docs/review.md``), ``warm_up`` (pay the start-up cost early). How it works
and how strong it is: ``docs/solver.md``.

>>> move, scores = analyse([[2, 2, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]])
>>> move in scores
True
"""

from .play import play_game
from .review import review
from .search import PLAYERS, PRESETS, analyse, best_move, hint, warm_up

__all__ = ["PLAYERS", "PRESETS", "analyse", "best_move", "hint", "play_game", "review", "warm_up"]
