"""What the single and the vector environment both promise: spaces, seeds, the text picture."""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from ..rules import DIRECTIONS, check_size, max_tile_for
from ..spawn import MAX_SEED, check_seed

#: Action i moves toward DIRECTIONS[i]: 0 up, 1 down, 2 left, 3 right.
ACTIONS = DIRECTIONS


def observation_space(size: int) -> spaces.Box:
    """Tile exponents, (size, size) uint8, up to the largest tile the board can hold."""
    top = max_tile_for(check_size(size)).bit_length() - 1
    return spaces.Box(low=0, high=top, shape=(size, size), dtype=np.uint8)


def action_space() -> spaces.Discrete:
    return spaces.Discrete(len(ACTIONS))


def check_reset_seed(seed: int) -> int:
    """A seed given to ``reset``: an integer game seed (0 <= seed < 2^53).

    The compiled kernels draw integer seeds' tiles only: a secret seed (a
    string) is refused here, as anything else is.
    """
    if isinstance(seed, np.integer):
        seed = int(seed)
    if type(seed) is not int:
        shown = repr(seed)[:60]
        raise ValueError(f"an environment's seed must be an integer with 0 <= seed < 2^53, got {shown}")
    return check_seed(seed)  # type: ignore[return-value]


def next_game_seed(rng: np.random.Generator) -> int:
    """The seed of a game opened by ``reset()`` without a seed: drawn from the env's ``np_random``."""
    return int(rng.integers(MAX_SEED))


def text(exponents: np.ndarray, score: int) -> str:
    """The board as text, tiles right-aligned, ``.`` for empty, then the score."""
    values = [[str(1 << int(e)) if e else "." for e in row] for row in exponents]
    width = max(len(v) for row in values for v in row)
    lines = [" ".join(v.rjust(width) for v in row) for row in values]
    return "\n".join([*lines, f"score: {score}"]) + "\n"
