"""The weights of the solver's heuristic, per board size (the formula is in ``expectimax``).

>>> HEURISTICS[4] == NNEONNEO
True
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Heuristic:
    """The weight of each term of the heuristic (see ``expectimax``)."""

    lost: float = 200000.0
    empty: float = 270.0
    merges: float = 700.0
    monotonicity: float = 47.0
    monotonicity_power: float = 4.0
    sum: float = 11.0
    sum_power: float = 3.5


#: nneonneo/2048-ai's weights, tuned by its authors for 4x4.
NNEONNEO = Heuristic()

#: The weights used on each board size.
HEURISTICS: dict[int, Heuristic] = {3: NNEONNEO, 4: NNEONNEO, 5: NNEONNEO, 6: NNEONNEO}
