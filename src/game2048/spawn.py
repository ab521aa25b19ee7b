"""Deterministic tile spawns: where tile number ``index`` of a game appears.

A pure function of (seed, spawn index, number of empty cells), from one of two
generators, chosen by the seed's type:

- an integer seed ``0 <= seed < 2^53`` (practice and local games, and every
  record made before secret seeds) draws through SplitMix64;
- a *secret seed*, a string of 32 lowercase hex digits (128 bits, what the
  server deals ranked games from), draws through keyed BLAKE2b, a PRF: no tile
  can be computed from the tiles already dealt without the seed.

Both are written out in ``docs/spawns.md``, and the browser engine draws the
very same tiles.

>>> spawn_choice(12345, 0, 16)
(2, 1)
>>> spawn_choice("000102030405060708090a0b0c0d0e0f", 0, 16)
(9, 1)
"""

from __future__ import annotations

import hashlib
import secrets
import struct
from collections.abc import Callable
from typing import Any

from .rules import FOUR_IN, SIZES, SPAWN_OUT_OF

#: What a game is seeded with: an integer (SplitMix64) or a secret seed (BLAKE2b).
Seed = int | str
#: ``draw(key, index, empty) -> (ordinal, exponent)``: one generator's hot path.
Draw = Callable[[Any, int, int], tuple[int, int]]

MASK64 = (1 << 64) - 1
GAMMA = 0x9E3779B97F4A7C15
MAX_SEED = 1 << 53
#: Attempts available to one spawn; a rejection has probability < 2^-55.
ATTEMPTS = 1 << 16


def mix64(x: int) -> int:
    """The SplitMix64 finaliser: a bijection on 64-bit integers that scrambles bits."""
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK64
    return x ^ (x >> 31)


#: A secret seed has this many bits, written as 32 lowercase hex digits.
SECRET_SEED_BITS = 128
_SECRET_SEED_DIGITS = SECRET_SEED_BITS // 4
_HEX_DIGITS = frozenset("0123456789abcdef")


def check_seed(seed: object) -> Seed:
    """Return ``seed`` if it is one: an integer in [0, 2^53) or a secret seed; else raise ValueError.

    >>> check_seed("00112233445566778899aabbccddeeff")
    '00112233445566778899aabbccddeeff'
    """
    if type(seed) is str:
        if len(seed) == _SECRET_SEED_DIGITS and _HEX_DIGITS.issuperset(seed):
            return seed
        raise ValueError(
            f"a secret seed is {_SECRET_SEED_DIGITS} lowercase hex digits ({SECRET_SEED_BITS} bits), "
            f"got {_shown(seed)}"
        )
    if type(seed) is not int or not 0 <= seed < MAX_SEED:
        raise ValueError(
            "seed must be an integer with 0 <= seed < 2^53 or a secret seed of "
            f"{_SECRET_SEED_DIGITS} lowercase hex digits, got {_shown(seed)}"
        )
    return seed


def seed_from_text(text: str | int) -> Seed:
    """A seed as a store or a database hands it back (text, or an integer column's int).

    A secret seed has exactly 32 hex digits and an integer seed at most 16, so
    the two never meet.

    >>> seed_from_text("12345"), seed_from_text("00112233445566778899aabbccddeeff")
    (12345, '00112233445566778899aabbccddeeff')
    """
    if type(text) is str and len(text) == _SECRET_SEED_DIGITS:
        return check_seed(text)
    return check_seed(int(text))


def _shown(value: object) -> str:
    """``repr(value)``, cut short: a bad seed may be anything a client sent."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def secret_seed() -> str:
    """A fresh secret seed: 128 bits from ``secrets``, as 32 lowercase hex digits.

    What the server deals a ranked game from; it reveals the seed when the game
    is finished, and ``replay(size, seed, log)`` rebuilds the game from it.
    """
    return secrets.token_hex(SECRET_SEED_BITS // 8)


def game_key(seed: Seed) -> Any:
    """The per-game key every draw of that game starts from (``seed`` must be checked).

    For an integer seed, ``mix64(seed)``; for a secret seed, a BLAKE2b hasher
    keyed with its 16 bytes, which each draw copies.
    """
    if type(seed) is str:
        return hashlib.blake2b(key=bytes.fromhex(seed), digest_size=8)
    return mix64(seed)  # type: ignore[arg-type]


def generator(seed: Seed) -> tuple[Any, Draw]:
    """``(key, draw)`` for game ``seed``: spawn ``i`` with ``e`` empty cells is ``draw(key, i, e)``.

    ValueError if ``seed`` is not a seed. The seed's type chooses the generator.
    """
    draw_with = _draw_for(seed)
    return game_key(seed), draw_with


def _draw_for(seed: object) -> Draw:
    return draw_secret if type(check_seed(seed)) is str else draw


def spawn_choice(seed: Seed, index: int, empty: int, key: Any = None) -> tuple[int, int]:
    """Spawn ``index`` of game ``seed`` on a board with ``empty`` empty cells.

    Returns ``(ordinal, exponent)``: the tile goes on the ``ordinal``-th empty
    cell counted in row-major order from 0, and is 2^exponent (1 for a 2, 2
    for a 4). ``key`` may pass ``game_key(seed)`` precomputed.
    """
    if not 0 < empty <= MAX_CELLS:
        raise ValueError(f"a spawn needs 1 to {MAX_CELLS} empty cells, got {empty}")
    draw_with = _draw_for(seed)
    return draw_with(game_key(seed) if key is None else key, index, empty)


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

    The first attempt is written out (it is the only one in all but 2^-55 of
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


# -- secret seeds: keyed BLAKE2b ---------------------------------------------

#: The 16-byte message of one attempt: spawn index, then attempt number, both little-endian.
_MESSAGE = struct.Struct("<QQ").pack
_FROM_BYTES = int.from_bytes


def secret_word(key: Any, index: int, attempt: int) -> int:
    """Attempt ``attempt`` (0, 1, ...) of spawn ``index``: BLAKE2b-64 of its 16-byte message, an integer."""
    h = key.copy()
    h.update(_MESSAGE(index, attempt))
    return _FROM_BYTES(h.digest(), "little")


def draw_secret(key: Any, index: int, empty: int) -> tuple[int, int]:
    """``draw`` for a secret seed, whose ``key`` is ``game_key(seed)``: the engine's hot path."""
    h = key.copy()
    h.update(_MESSAGE(index, 0))
    z = _FROM_BYTES(h.digest(), "little")
    if z < LIMITS[empty]:
        outcomes = OUTCOMES[empty]
        return outcomes[z % len(outcomes)]
    return _draw_secret_again(key, index, empty)


def _draw_secret_again(key: Any, index: int, empty: int) -> tuple[int, int]:
    """Attempts 1, 2, ... of a spawn whose first attempt was rejected."""
    m, limit = SPAWN_OUT_OF * empty, LIMITS[empty]
    for attempt in range(1, ATTEMPTS):
        z = secret_word(key, index, attempt)
        if z < limit:
            return OUTCOMES[empty][z % m]
    raise AssertionError("unreachable: every attempt rejected")  # pragma: no cover
