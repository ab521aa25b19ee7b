"""The trained weights of game2048's learned 4x4 evaluator, shipped apart from the game.

``path()`` is the weights file, written by ``game2048 learn-export``; the
patches of later training lie beside it (``network.patch-1``, ...).
``game2048.solver.learn.shipped`` reads them. A checkout where no stage has
been committed yet has the package without the file.
"""

from importlib.resources import files
from pathlib import Path

#: The file's name in this package (``game2048.solver.learn.shipped.FILE_NAME``).
FILE_NAME = "network.weights"


def path() -> Path:
    """Where the weights file is (or would be) in this installed package."""
    return Path(str(files(__name__) / FILE_NAME))
