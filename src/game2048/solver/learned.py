"""The ``learned`` preset: the trained network's 3-ply search on 4x4, the heuristic elsewhere.

``analyse(board, preset="learned")`` plays the n-tuple network of the shipped
weights (``pip install ./weights``, or the ``learned`` extra) at ``PLY``: every
move, every spawn, every move, every spawn, then the best move's points plus
the network's value of its afterstate. A direction's value is in points (the
expected score to come), comparable only within one call, as the heuristic's
are. Where the network cannot play (the weights are not installed, a board
other than 4x4, a tile past 32768 or a second 32768) the same call is the
heuristic's ``strong``. The answer is a pure function of the board and the
weights: no clock, no threads.

The weights are mapped read-only from the cache once per process
(``learn.shipped.open_mapped``), so server workers share one copy.
"""

from __future__ import annotations

import logging
import math
import threading
from collections.abc import Sequence

import numpy as np

from ..rules import DIRECTIONS, Direction

#: The preset's name, beside the heuristic's (``search.PRESETS``).
LEARNED = "learned"
#: The depth the network searches (``learn.ntuple.choose``): at 4x4 about 250 us a move, against
#: ``strong``'s 50 ms on one thread (docs/solver.md).
PLY = 3
#: The preset that plays where the network cannot.
FALLBACK = "strong"

log = logging.getLogger(__name__)
_lock = threading.Lock()
_weights: np.ndarray | None = None
_looked = False  # whether the installed weights were looked for yet


def use_network(weights: np.ndarray | None) -> None:
    """Play with ``weights`` (a run's, say) instead of the installed ones; None: the installed again."""
    global _weights, _looked
    with _lock:
        _weights, _looked = weights, weights is not None


def network() -> np.ndarray | None:
    """The weights the preset plays with: the installed ones, mapped once; None without them."""
    global _weights, _looked
    with _lock:
        if not _looked:
            _looked = True
            from .learn import shipped

            try:
                _weights = shipped.open_mapped().weights
            except shipped.NotInstalled:
                _weights = None
            except (shipped.Corrupt, OSError) as exc:  # a damaged file: say so, play the heuristic
                log.warning("the learned preset plays the heuristic: %s", exc)
                _weights = None
        return _weights


def analyse(board: Sequence[Sequence[int]],
            ply: int = PLY) -> tuple[Direction | None, dict[str, float]] | None:
    """The network's direction and each legal direction's value at ``ply`` (1 to 3; the preset
    plays ``PLY``), or None where it cannot play."""
    if len(board) != 4:
        return None
    weights = network()
    if weights is None:
        return None
    from .learn import ntuple
    from .learn.play import pack
    from .learn.train import tables

    try:
        b = pack(board)
    except ValueError:  # past 32768, or two 32768s: 4-bit cells cannot hold the game on
        return None
    slide, points = tables()
    out = np.empty(4, dtype=np.float64)
    ntuple.move_values(weights, b, ply, slide, points, out)
    scores = {DIRECTIONS[d]: float(v) for d, v in enumerate(out) if v > -math.inf}
    if not scores:
        return None, {}
    best = max(scores, key=lambda name: scores[name])  # ties: the first of up, down, left, right
    return best, scores  # type: ignore[return-value]
