"""Deterministic tile spawns: where tile number ``index`` of a game appears.

A pure function of (seed, spawn index, number of empty cells). Integer
arithmetic only, so that the browser engine (BigInt) draws the very same
tiles; the algorithm is written out in ``docs/spawns.md``.

>>> spawn_choice(12345, 0, 16)
(2, 1)
"""

from __future__ import annotations

from .rules import FOUR_IN, SIZES, SPAWN_OUT_OF

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
    if not 0 < empty <= MAX_CELLS:
        raise ValueError(f"a spawn needs 1 to {MAX_CELLS} empty cells, got {empty}")
    return draw(mix64(seed) if key is None else key, index, empty)


#: 6x6, the largest board, has 36 cells.
MAX_CELLS = max(SIZES) ** 2
#: ``LIMITS[e]``: the largest multiple of ``10 * e`` not above 2^64; draws at
#: or above it are rejected (0 for e = 0, where nothing can spawn).
LIMITS = tuple((1 << 64) - (1 << 64) % (SPAWN_OUT_OF * e) if e else 0 for e in range(MAX_CELLS + 1))
#: ``OUTCOMES[e][r]``: (ordinal, exponent) for ``r = z mod 10e`` on a board with e empty cells.
OUTCOMES = tuple(
    tuple((r // SPAWN_OUT_OF, 2 if r % SPAWN_OUT_OF < FOUR_IN else 1) for r in range(SPAWN_OUT_OF * e))
    for e in range(MAX_CELLS + 1)
)
#: How far one spawn index moves the counter, times GAMMA.
_INDEX_STEP = ATTEMPTS * GAMMA


def draw(key: int, index: int, empty: int) -> tuple[int, int]:
    """``spawn_choice`` for a game whose key is known: the engine's hot path.

    The first attempt is written out (it is the only one in all but 2^-57 of
    draws), with the rejection limit and the outcome of ``z mod 10e`` read from
    tables; ``empty`` must be 1 to 36.
    """
    # attempt 1 of spawn `index` uses counter index * ATTEMPTS + 1
    z = (key + index * _INDEX_STEP + GAMMA) & MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    z ^= z >> 31
    if z < LIMITS[empty]:
        outcomes = OUTCOMES[empty]
        return outcomes[z % len(outcomes)]
    return _draw_again(key, index, empty)


def _draw_again(key: int, index: int, empty: int) -> tuple[int, int]:
    """Attempts 2, 3, ... of a spawn whose first attempt was rejected."""
    m, limit = SPAWN_OUT_OF * empty, LIMITS[empty]
    counter = index * ATTEMPTS + 1
    for _ in range(ATTEMPTS - 1):
        counter += 1
        z = mix64((key + counter * GAMMA) & MASK64)
        if z < limit:
            return OUTCOMES[empty][z % m]
    raise AssertionError("unreachable: every attempt rejected")  # pragma: no cover
