"""The built-in solver: the best move for any position on boards 3x3 to 6x6.

>>> move, scores = analyse([[2, 2, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]])
>>> move in scores
True
"""

from .play import play_game
from .search import PRESETS, analyse, best_move

__all__ = ["PRESETS", "analyse", "best_move", "play_game"]
