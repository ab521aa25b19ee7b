"""Deterministic tile spawns: where tile number ``index`` of a game appears.

A pure function of (seed, spawn index, number of empty cells). Integer
arithmetic only, so that the browser engine (BigInt) draws the very same
tiles; the algorithm is written out in ``docs/spawns.md``.

>>> spawn_choice(12345, 0, 16)
(2, 1)
"""

from __future__ import annotations

from .rules import FOUR_IN, SPAWN_OUT_OF

MASK64 = (1 << 64) - 1
GAMMA = 0x9E3779B97F4A7C15
MAX_SEED = 1 << 53
#: Attempts available to one spawn; a rejection has probability < 2^-57.
ATTEMPTS = 1 << 16


def mix64(x: int) -> int:
    """The SplitMix64 finaliser: a bijection on 64-bit integers that scrambles bits."""
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK64
    return x ^ (x >> 31)


def check_seed(seed: object) -> int:
    """Return ``seed`` if it is an integer in [0, 2^53), else raise ValueError."""
    if type(seed) is not int or not 0 <= seed < MAX_SEED:
        raise ValueError(f"seed must be an integer with 0 <= seed < 2^53, got {seed!r}")
    return seed


def game_key(seed: int) -> int:
    """The per-game key every draw of that game starts from."""
    return mix64(seed)


def spawn_choice(seed: int, index: int, empty: int, key: int | None = None) -> tuple[int, int]:
    """Spawn ``index`` of game ``seed`` on a board with ``empty`` empty cells.

    Returns ``(ordinal, exponent)``: the tile goes on the ``ordinal``-th empty
    cell counted in row-major order from 0, and is 2^exponent (1 for a 2, 2
    for a 4). ``key`` may pass ``game_key(seed)`` precomputed.
    """
    if empty <= 0:
        raise ValueError("no empty cell to spawn on")
    if key is None:
        key = mix64(seed)
    m = SPAWN_OUT_OF * empty
    limit = (1 << 64) - ((1 << 64) % m)
    counter = index * ATTEMPTS
    for _ in range(ATTEMPTS):
        counter += 1
        # mix64 written out: this runs once per move on the server's replay path
        z = (key + counter * GAMMA) & MASK64
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        z ^= z >> 31
        if z < limit:
            ordinal, kind = divmod(z % m, SPAWN_OUT_OF)
            return ordinal, 2 if kind < FOUR_IN else 1
    raise AssertionError("unreachable: every attempt rejected")  # pragma: no cover
