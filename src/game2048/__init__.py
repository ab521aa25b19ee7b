"""game2048: the rules of 2048 on boards 3x3 to 6x6, seeded games, undo and replay.

>>> from game2048 import Game, replay
>>> g = Game(size=4, seed=1)
>>> _ = g.move("left") or g.move("right") or g.move("up")
>>> replay(g.size, g.seed, g.log).board == g.board
True
"""

from .game import Game
from .record import RecordError, replay
from .rules import DIRECTIONS, MAX_UNDOS, SIZES, TARGETS, max_tile_for, slide, slide_row
from .svg import svg  # the function; the module stays importable as game2048.svg's contents

__all__ = [
    "DIRECTIONS",
    "MAX_UNDOS",
    "SIZES",
    "TARGETS",
    "Game",
    "RecordError",
    "max_tile_for",
    "replay",
    "slide",
    "slide_row",
    "svg",
]
__version__ = "0.1.0"
