"""What the single and the vector environment both promise: spaces, encodings, rewards, seeds, pictures."""

from __future__ import annotations

import math

import numpy as np
from gymnasium import spaces

from ..rules import DIRECTIONS, check_size, max_tile_for
from ..spawn import MAX_SEED, check_seed

#: Action i moves toward DIRECTIONS[i]: 0 up, 1 down, 2 left, 3 right.
ACTIONS = DIRECTIONS


#: Observation encodings: tile exponents on the board, or one 0/1 plane per exponent.
OBSERVATIONS = ("exponents", "onehot")
#: Rewards: the points scored, the merges made, 1 for every legal move, or log2(1 + points).
REWARDS = ("score", "merges", "survival", "log_score")


def check_choice(name: str, value: object, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}, got {value!r}")
    return value  # type: ignore[return-value]


def planes(size: int) -> int:
    """One-hot planes of a board: plane k marks the cells holding 2^k, plane 0 the empty cells."""
    return max_tile_for(size).bit_length()


def observation_space(size: int, observation: str = "exponents") -> spaces.Box:
    """``exponents``: (size, size) uint8 up to the largest exponent the board can hold;
    ``onehot``: (planes, size, size) uint8 of 0 and 1."""
    top = max_tile_for(check_size(size)).bit_length() - 1
    if check_choice("observation", observation, OBSERVATIONS) == "onehot":
        return spaces.Box(low=0, high=1, shape=(top + 1, size, size), dtype=np.uint8)
    return spaces.Box(low=0, high=top, shape=(size, size), dtype=np.uint8)


def encode(exponents: np.ndarray, size: int, observation: str) -> np.ndarray:
    """Exponent boards (..., size, size) in the ``observation`` encoding, as a new array."""
    if observation == "exponents":
        return exponents.copy()
    levels = np.arange(planes(size), dtype=np.uint8).reshape(-1, 1, 1)
    return (exponents[..., None, :, :] == levels).astype(np.uint8)


def reward_value(reward: str, points: int, merges: int) -> float:
    """``reward_of`` for one legal move."""
    if reward == "score":
        return float(points)
    if reward == "merges":
        return float(merges)
    if reward == "survival":
        return 1.0
    return math.log2(1.0 + points)


def reward_of(reward: str, points: np.ndarray, merges: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """The reward of each move from its points, merges and legality (illegal moves earn 0)."""
    if reward == "score":
        out = points.astype(np.float64)
    elif reward == "merges":
        out = merges.astype(np.float64)
    elif reward == "survival":
        out = np.ones(points.shape, dtype=np.float64)
    else:
        out = np.log2(1.0 + points.astype(np.float64))
    return np.where(legal, out, 0.0)


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
