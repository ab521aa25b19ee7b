"""Everything numba compiles for the learned evaluator: the network, its training games, its players.

**Board.** 4x4 only, in the project's bitboard layout (``solver.bitboard``):
cell (r, c) holds its exponent at bit ``4 * (r * 4 + c)`` of one uint64, row
r is bits ``16 r`` to ``16 r + 15``. Four bits hold exponents up to 15 (32768);
the move tables here never merge two 32768s (training clips there; the
seeded players stop a game before two of them are on the board).

**Network.** Four 6-tuples (Yeh et al. 2016, Jaśkowski 2018): cells
``0 1 2 3 4 5``, ``4 5 6 7 8 9``, ``0 1 2 4 5 6`` and ``4 5 6 8 9 10``
(row-major), each looked at in the 8 symmetries of the square, 32 looks in
all. Tuple k owns a float32 table of 16^6 weights indexed by its six
exponents, 4 bits each; the value of a board is the sum of the 32 weights
its looks select. Under each symmetry the four tuples are contiguous bits of
the transformed board, so a look is a shift and a mask. Summing over the
whole symmetry group makes a board and each of its 8 images score the same.

**Stages.** A network may hold more than one set of four tables: ``w``
is ``(4 * stages, 16^6)``, and a board is valued by the set of its stage
(``stage_base``): stage 0 until its first 8192, stage 1 from there, stage 2
from its first 16384 (``STAGE_EXPONENTS``), as far as the network has
stages. Each stage learns only the boards of its part of the game, so the
endings get weights of their own (multi-stage TD, Yeh et al. 2016); a new
stage starts as a copy of the last one (``checkpoint.add_stages``).

**Training** (``train_games``): greedy play on ``reward + V(afterstate)``
with fast spawns (SplitMix64, not the game's seeded spawns), then backward
TD(0) over the game's afterstates, from the last to the first (see
``docs/solver.md``).

**Seeded play** (``play_seeded``): the same network as a player, with the
game's real spawn function (``spawn.draw``, ported below and checked against
``Game`` by the tests), so a seeded game here is the game ``Game(4, seed)``
plays with the same moves.

Everything compiled lives in this one module because numba's on-disk cache
only watches the file a function is defined in.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..expectimax import build_line_tables, weights
from ..heuristic import NNEONNEO

#: Tuples, looks per board, weights per tuple.
TUPLES = 4
SYMMETRIES = 8
FEATURES = TUPLES * SYMMETRIES
TABLE_SIZE = 16**6
#: The tuples' cells, row-major (documentation and tests; the code below has them as bit masks).
TUPLE_CELLS = ((0, 1, 2, 3, 4, 5), (4, 5, 6, 7, 8, 9), (0, 1, 2, 4, 5, 6), (4, 5, 6, 8, 9, 10))
#: Stage k + 1 begins once a board has a tile of 2^STAGE_EXPONENTS[k] or more (8192, then 16384).
STAGE_EXPONENTS = (13, 14)
#: The stages a network may have.
MAX_STAGES = len(STAGE_EXPONENTS) + 1

_M12 = np.uint64(0xFFF)
_M16 = np.uint64(0xFFFF)
_M24 = np.uint64(0xFFFFFF)
_NIBBLE_LOW = np.uint64(0x1111111111111111)
_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
#: ``spawn.ATTEMPTS``: counter values one spawn index may use.
_ATTEMPTS = np.uint64(1 << 16)
#: A draw's top 53 bits times this: uniform in [0, 1).
_UNIT = 1.0 / 9007199254740992.0
#: A fast spawn is a 4 when the low 32 bits of a draw fall below this (0.1 * 2^32).
_FOUR_BELOW = np.uint64(429496730)


# -- boards -------------------------------------------------------------------


@njit(cache=True, nogil=True, inline="always")
def transpose(x: np.uint64) -> np.uint64:
    """Swap rows and columns."""
    a1 = x & np.uint64(0xF0F00F0FF0F00F0F)
    a2 = x & np.uint64(0x0000F0F00000F0F0)
    a3 = x & np.uint64(0x0F0F00000F0F0000)
    a = a1 | (a2 << np.uint64(12)) | (a3 >> np.uint64(12))
    b1 = a & np.uint64(0xFF00FF0000FF00FF)
    b2 = a & np.uint64(0x00FF00FF00000000)
    b3 = a & np.uint64(0x00000000FF00FF00)
    return b1 | (b2 >> np.uint64(24)) | (b3 << np.uint64(24))


@njit(cache=True, nogil=True, inline="always")
def mirror(x: np.uint64) -> np.uint64:
    """Reverse every row (left and right swap)."""
    return (
        ((x & np.uint64(0x000F000F000F000F)) << np.uint64(12))
        | ((x & np.uint64(0x00F000F000F000F0)) << np.uint64(4))
        | ((x >> np.uint64(4)) & np.uint64(0x00F000F000F000F0))
        | ((x >> np.uint64(12)) & np.uint64(0x000F000F000F000F))
    )


@njit(cache=True, nogil=True, inline="always")
def flip(x: np.uint64) -> np.uint64:
    """Reverse the order of the rows (top and bottom swap)."""
    return (
        (x << np.uint64(48))
        | ((x & np.uint64(0xFFFF0000)) << np.uint64(16))
        | ((x >> np.uint64(16)) & np.uint64(0xFFFF0000))
        | (x >> np.uint64(48))
    )


def line_tables() -> tuple[np.ndarray, np.ndarray]:
    """Every 16-bit row slid toward cell 0 (``slide[0]``) and toward cell 3 (``slide[1]``), and its points.

    The heuristic search's slide table (``expectimax.build_line_tables``): pairing starts at the
    wall slid toward and a tile merges once; two 15s (32768s) do not merge (see the module's note).
    """
    slide, _, points = build_line_tables(4, weights(NNEONNEO))
    return slide, points


@njit(cache=True, nogil=True, inline="always")
def _slide_rows(b: np.uint64, side: int, slide: np.ndarray, points: np.ndarray) -> tuple[np.uint64, int]:
    r0 = b & _M16
    r1 = (b >> np.uint64(16)) & _M16
    r2 = (b >> np.uint64(32)) & _M16
    r3 = b >> np.uint64(48)
    moved = (
        np.uint64(slide[side, r0])
        | (np.uint64(slide[side, r1]) << np.uint64(16))
        | (np.uint64(slide[side, r2]) << np.uint64(32))
        | (np.uint64(slide[side, r3]) << np.uint64(48))
    )
    gained = points[side, r0] + points[side, r1] + points[side, r2] + points[side, r3]
    return moved, gained


@njit(cache=True, nogil=True, inline="always")
def move(b: np.uint64, d: int, slide: np.ndarray, points: np.ndarray) -> tuple[np.uint64, int]:
    """Direction d (0 up, 1 down, 2 left, 3 right) without a spawn: (afterstate, points)."""
    if d >= 2:
        return _slide_rows(b, d - 2, slide, points)
    moved, gained = _slide_rows(transpose(b), d, slide, points)
    return transpose(moved), gained


@njit(cache=True, nogil=True, inline="always")
def _move_from(
    b: np.uint64, t: np.uint64, d: int, slide: np.ndarray, points: np.ndarray
) -> tuple[bool, np.uint64, int]:
    """``move`` with the transpose ``t`` of ``b`` worked out once for all four directions: (whether
    the move changes the board, afterstate, points)."""
    if d >= 2:
        after, gained = _slide_rows(b, d - 2, slide, points)
        return after != b, after, gained
    moved, gained = _slide_rows(t, d, slide, points)
    return moved != t, transpose(moved), gained


@njit(cache=True, nogil=True, inline="always")
def count_empty(x: np.uint64) -> int:
    """The number of empty cells."""
    x |= (x >> np.uint64(2)) & np.uint64(0x3333333333333333)
    x |= x >> np.uint64(1)
    x = ~x & np.uint64(0x1111111111111111)
    if x == np.uint64(0x1111111111111111):
        return 16
    return int((x * np.uint64(0x1111111111111111)) >> np.uint64(60))


@njit(cache=True, nogil=True, inline="always")
def max_exponent(b: np.uint64) -> int:
    top = 0
    for i in range(16):
        e = int((b >> np.uint64(4 * i)) & np.uint64(0xF))
        if e > top:
            top = e
    return top


@njit(cache=True, nogil=True, inline="always")
def _put(b: np.uint64, ordinal: int, exp: int) -> np.uint64:
    """``b`` with exponent ``exp`` on its ``ordinal``-th empty cell (row-major, from 0)."""
    k = ordinal
    for i in range(16):
        s = np.uint64(4 * i)
        if (b >> s) & np.uint64(0xF) == 0:
            if k == 0:
                return b | (np.uint64(exp) << s)
            k -= 1
    return b


# -- random numbers -------------------------------------------------------------


@njit(cache=True, nogil=True, inline="always")
def mix64(z: np.uint64) -> np.uint64:
    """SplitMix64's finaliser (``spawn.mix64``)."""
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


@njit(cache=True, nogil=True, inline="always")
def _next(rng: np.ndarray) -> np.uint64:
    """The next draw of a SplitMix64 stream whose state is ``rng[0]``."""
    rng[0] += _GAMMA
    return mix64(rng[0])


@njit(cache=True, nogil=True, inline="always")
def fast_spawn(b: np.uint64, rng: np.ndarray) -> np.uint64:
    """A 2 (0.9) or 4 (0.1) on a uniformly chosen empty cell, for training (needs an empty cell)."""
    z = _next(rng)
    ordinal = int(((z >> np.uint64(32)) * np.uint64(count_empty(b))) >> np.uint64(32))
    exp = 2 if (z & np.uint64(0xFFFFFFFF)) < _FOUR_BELOW else 1
    return _put(b, ordinal, exp)


@njit(cache=True, nogil=True, inline="always")
def game_spawn(b: np.uint64, key: np.uint64, index: int) -> np.uint64:
    """Spawn ``index`` of the game whose key is ``key`` (``spawn.draw``: docs/spawns.md)."""
    empty = np.uint64(count_empty(b))
    m = np.uint64(10) * empty
    # reject draws at or above the largest multiple of m that fits in 64 bits
    limit = np.uint64(0) - ((np.uint64(0xFFFFFFFFFFFFFFFF) % m + np.uint64(1)) % m)
    counter = np.uint64(index) * _ATTEMPTS + np.uint64(1)
    for _ in range(1 << 16):
        z = mix64(key + counter * _GAMMA)
        if z < limit:
            r = z % m
            ordinal = int(r // np.uint64(10))
            exp = 2 if r % np.uint64(10) < np.uint64(1) else 1
            return _put(b, ordinal, exp)
        counter += np.uint64(1)
    return b  # unreachable: every attempt rejected has probability below 2^-57


# -- the network --------------------------------------------------------------------


@njit(cache=True, nogil=True, inline="always")
def stage_base(w: np.ndarray, b: np.uint64) -> int:
    """The first table of the stage ``b`` is valued by: 0 for a network of one stage; else
    ``4 * k``, k the thresholds of ``STAGE_EXPONENTS`` the board's largest tile meets, at most
    the network's last stage."""
    n = w.shape[0]
    if n == TUPLES:
        return 0
    top = (b >> np.uint64(2)) & (b >> np.uint64(3))  # at bit 4i: cell i's bits 3 and 2 (12 or more)
    if n > 2 * TUPLES and top & (b >> np.uint64(1)) & _NIBBLE_LOW != np.uint64(0):  # 14 or more: 16384
        return 2 * TUPLES
    if top & (b | (b >> np.uint64(1))) & _NIBBLE_LOW != np.uint64(0):  # 13 or more: 8192
        return TUPLES
    return 0


@njit(cache=True, nogil=True, inline="always")
def _indices(x: np.uint64) -> tuple[np.uint64, ...]:
    """The four tuples' indices into their tables on one orientation of a board."""
    hi = x >> np.uint64(16)
    return (
        x & _M24,
        hi & _M24,
        (x & _M12) | ((hi & _M12) << np.uint64(12)),
        (hi & _M12) | (((x >> np.uint64(32)) & _M12) << np.uint64(12)),
    )


@njit(cache=True, nogil=True, inline="always")
def _looks(w: np.ndarray, x: np.uint64, k: int) -> float:
    """The four tuples' weights (tables k to k + 3) on one orientation of a board."""
    i0, i1, i2, i3 = _indices(x)
    return w[k, i0] + w[k + 1, i1] + w[k + 2, i2] + w[k + 3, i3]


@njit(cache=True, nogil=True, inline="always")
def _nudge(w: np.ndarray, x: np.uint64, k: int, u: np.float32) -> None:
    """Add ``u`` to the four tuples' weights (tables k to k + 3) on one orientation."""
    for j, i in enumerate(_indices(x)):
        w[k + j, i] += u


@njit(cache=True, nogil=True, inline="always")
def _coherent(w: np.ndarray, tc: np.ndarray, t: int, i: np.uint64, step: np.float32) -> None:
    """Temporal coherence: move weight ``i`` of table ``t`` by ``step`` times its own rate,
    |E| / A (1 before its first step), then add the step to E and its size to A. A weight whose
    steps keep one sign keeps the full rate; one pushed back and forth slows down."""
    moved = tc[t, i, 1]
    rate = abs(tc[t, i, 0]) / moved if moved > 0.0 else np.float32(1.0)
    w[t, i] += step * rate
    tc[t, i, 0] += step
    tc[t, i, 1] += abs(step)


@njit(cache=True, nogil=True, inline="always")
def _nudge_coherent(w: np.ndarray, tc: np.ndarray, x: np.uint64, k: int, u: np.float32) -> None:
    """``_nudge`` with temporal coherence (``_coherent``) on each of the four weights."""
    for j, i in enumerate(_indices(x)):
        _coherent(w, tc, k + j, i, u)


@njit(cache=True, nogil=True, inline="always")
def _images(b: np.uint64) -> tuple[np.uint64, ...]:
    """``b`` under the 8 symmetries of the square: a tuple's 8 looks are its cells on these boards."""
    t = transpose(b)
    fb = flip(b)
    ft = flip(t)
    return b, mirror(b), fb, mirror(fb), t, mirror(t), ft, mirror(ft)


@njit(cache=True, nogil=True)
def value(w: np.ndarray, b: np.uint64) -> float:
    """V(b): the sum of the 32 weights the board's looks select in its stage's tables."""
    k = stage_base(w, b)
    total = np.float32(0.0)  # summed in float32, the weights' type
    for x in _images(b):
        total += _looks(w, x, k)
    return total


@njit(cache=True, nogil=True)
def update(w: np.ndarray, b: np.uint64, u: float) -> float:
    """Add ``u`` to each of the 32 weights of ``b`` in its stage's tables; V(b) afterwards (a weight
    two looks share gets 2u)."""
    k = stage_base(w, b)
    # read back after all 32 writes: a weight two looks share counts its final value twice
    for x in _images(b):
        _nudge(w, x, k, np.float32(u))
    return value(w, b)


@njit(cache=True, nogil=True)
def update_coherent(w: np.ndarray, tc: np.ndarray, b: np.uint64, u: float) -> float:
    """``update`` by temporal coherence: each of the 32 weights moves by ``u`` times its own rate
    (``_coherent``); ``tc`` holds E and A side by side (``tc[..., 0]``, ``tc[..., 1]``, each shaped
    like ``w``: a weight's two share a cache line)."""
    d = np.float32(u)
    k = stage_base(w, b)
    # written out: a loop over the images, as in ``update``, is not unrolled here and cost 5 %
    x0, x1, x2, x3, x4, x5, x6, x7 = _images(b)
    _nudge_coherent(w, tc, x0, k, d)
    _nudge_coherent(w, tc, x1, k, d)
    _nudge_coherent(w, tc, x2, k, d)
    _nudge_coherent(w, tc, x3, k, d)
    _nudge_coherent(w, tc, x4, k, d)
    _nudge_coherent(w, tc, x5, k, d)
    _nudge_coherent(w, tc, x6, k, d)
    _nudge_coherent(w, tc, x7, k, d)
    return value(w, b)


@njit(cache=True, nogil=True, inline="always")
def _greedy(w: np.ndarray, b: np.uint64, slide: np.ndarray, points: np.ndarray) -> tuple[int, np.uint64, int]:
    """The move maximising points + V(afterstate): (direction or -1 if none is legal, afterstate, points)."""
    best = -np.inf
    best_d = -1
    best_after = b
    best_points = 0
    t = transpose(b)
    for d in range(4):
        changed, after, gained = _move_from(b, t, d, slide, points)
        if not changed:
            continue
        v = gained + value(w, after)
        if v > best:
            best = v
            best_d = d
            best_after = after
            best_points = gained
    return best_d, best_after, best_points


# -- training -------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def train_games(
    w: np.ndarray,
    slide: np.ndarray,
    points: np.ndarray,
    rng: np.ndarray,
    alpha: float,
    restart: float,
    path: np.ndarray,
    rewards: np.ndarray,
    scores: np.ndarray,
    tops: np.ndarray,
    lengths: np.ndarray,
    restarted: np.ndarray,
    tc: np.ndarray,
) -> int:
    """Play ``len(scores)`` training games, each followed by its backward TD(0) pass; the moves played.

    A game is played greedily on points + V(afterstate) with fast spawns from
    ``rng`` (a SplitMix64 state, advanced in place); its afterstates and
    points go into ``path`` and ``rewards``. Then, from the last afterstate
    to the first, each moves toward its target by ``alpha / 32`` of the
    error on each of its 32 weights: the last one's target is 0 (nothing
    follows it), every other's is the next move's points plus the next
    afterstate's value as just updated. Game i's score, largest exponent
    and moves go into ``scores[i]``, ``tops[i]``, ``lengths[i]``. A game
    longer than ``path`` stops there (none comes near: 4-bit cells allow fewer).

    *Restarts.* With probability ``restart``, the game after a game that
    began from the empty board begins instead from a late position of it:
    the afterstate of a move drawn uniformly from its second half, then a
    spawn. Endings are one per game and rare in the training games, and
    those restarts play them again from where they were still open. A
    restarted game is marked in ``restarted[i]`` (its score counts only the
    points made after the restart); its moves are trained like any others.
    The first game of every call begins from the empty board, so a call is
    a pure function of the weights and ``rng``.

    *Temporal coherence.* With ``tc`` shaped ``w.shape + (2,)`` (E and A of
    every weight) each weight's step is scaled by its own rate
    (``update_coherent``, Beal and Smith's TC as Jaśkowski applied it to
    2048); any other ``tc`` (say ``np.zeros((1, 1, 2), np.float32)``) is
    plain TD(0).
    """
    coherent = tc.shape[0] == w.shape[0] and tc.shape[1] == w.shape[1]
    u = alpha / FEATURES
    cap = path.shape[0]
    total = 0
    late = np.uint64(0)  # the afterstate the next game may restart from (0: none)
    for g in range(scores.shape[0]):
        again = late != np.uint64(0) and (_next(rng) >> np.uint64(11)) * _UNIT < restart
        b = fast_spawn(late, rng) if again else fast_spawn(fast_spawn(np.uint64(0), rng), rng)
        late = np.uint64(0)
        n = 0
        score = 0
        while n < cap:
            d, after, gained = _greedy(w, b, slide, points)
            if d < 0:
                break
            path[n] = after
            rewards[n] = gained
            n += 1
            score += gained
            b = fast_spawn(after, rng)
        if not again and n >= 2 and restart > 0.0:
            half = n // 2
            late = path[half + np.int64(_next(rng) % np.uint64(n - half))]
        exact = 0.0
        for i in range(n - 1, -1, -1):
            a = path[i]
            step = u * (exact - value(w, a))
            exact = rewards[i] + (update_coherent(w, tc, a, step) if coherent else update(w, a, step))
        scores[g] = score
        tops[g] = max_exponent(b)
        lengths[g] = n
        restarted[g] = 1 if again else 0
        total += n
    return total


# -- seeded play -------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def chance_value(w: np.ndarray, after: np.uint64, slide: np.ndarray, points: np.ndarray) -> float:
    """The expected best points + V of the move after the spawn that follows ``after`` (0 if none is left)."""
    total = 0.0
    empty = 0
    for i in range(16):
        s = np.uint64(4 * i)
        if (after >> s) & np.uint64(0xF) != 0:
            continue
        empty += 1
        for tile in range(1, 3):
            b = after | (np.uint64(tile) << s)
            best = -np.inf
            t = transpose(b)
            for d in range(4):
                changed, a, gained = _move_from(b, t, d, slide, points)
                if not changed:
                    continue
                v = gained + value(w, a)
                if v > best:
                    best = v
            if best == -np.inf:
                best = 0.0
            total += (0.9 if tile == 1 else 0.1) * best
    return total / empty


@njit(cache=True, nogil=True)
def chance_value_2(w: np.ndarray, after: np.uint64, slide: np.ndarray, points: np.ndarray) -> float:
    """``chance_value`` one move and one spawn deeper: the expected best of points plus
    ``chance_value`` of the move after the spawn that follows ``after`` (0 if none is left)."""
    total = 0.0
    empty = 0
    for i in range(16):
        s = np.uint64(4 * i)
        if (after >> s) & np.uint64(0xF) != 0:
            continue
        empty += 1
        for tile in range(1, 3):
            b = after | (np.uint64(tile) << s)
            best = -np.inf
            for d in range(4):
                a, gained = move(b, d, slide, points)
                if a == b:
                    continue
                v = gained + chance_value(w, a, slide, points)
                if v > best:
                    best = v
            if best == -np.inf:
                best = 0.0
            total += (0.9 if tile == 1 else 0.1) * best
    return total / empty


@njit(cache=True, nogil=True)
def choose(w: np.ndarray, b: np.uint64, ply: int, slide: np.ndarray, points: np.ndarray) -> int:
    """The network's move on ``b`` (0 up, 1 down, 2 left, 3 right; -1 if none is legal).

    Ply 1 maximises points + V(afterstate); ply 2 maximises points plus the
    expected best of the next move over the spawn (``chance_value``); ply 3
    looks one move and one spawn further (``chance_value_2``). Ties go to the
    first of up, down, left, right.
    """
    if ply <= 1:
        return _greedy(w, b, slide, points)[0]
    values = np.empty(4)
    move_values(w, b, ply, slide, points, values)
    best = -np.inf
    best_d = -1
    for d in range(4):
        if values[d] > best:
            best = values[d]
            best_d = d
    return best_d


@njit(cache=True, nogil=True)
def move_values(
    w: np.ndarray, b: np.uint64, ply: int, slide: np.ndarray, points: np.ndarray, out: np.ndarray
) -> None:
    """Each direction's value at ``ply`` into ``out`` (up, down, left, right; -inf where the move
    is illegal): what ``choose`` maximises."""
    for d in range(4):
        after, gained = move(b, d, slide, points)
        if after == b:
            out[d] = -np.inf
        elif ply <= 1:
            out[d] = gained + value(w, after)
        elif ply == 2:
            out[d] = gained + chance_value(w, after, slide, points)
        else:
            out[d] = gained + chance_value_2(w, after, slide, points)


@njit(cache=True, nogil=True)
def _two_top_tiles(b: np.uint64) -> bool:
    """True once two 32768s are on the board (4-bit cells cannot hold their merge)."""
    seen = 0
    for i in range(16):
        if (b >> np.uint64(4 * i)) & np.uint64(0xF) == np.uint64(15):
            seen += 1
    return seen >= 2


@njit(cache=True, nogil=True)
def play_seeded(
    w: np.ndarray, key: np.uint64, ply: int, slide: np.ndarray, points: np.ndarray, log: np.ndarray
) -> tuple[int, int, int, bool]:
    """Play the game whose key is ``key`` (``spawn.game_key(seed)``) with the network at ``ply``.

    The spawns are the game's own: spawns 0 and 1 open it, move k brings spawn
    k + 2. Directions go into ``log``. Returns (score, largest exponent, moves,
    capped): ``capped`` if the game was stopped with two 32768s on the board
    (up to there it is the real game) or because ``log`` was full.
    """
    b = game_spawn(game_spawn(np.uint64(0), key, 0), key, 1)
    score = 0
    n = 0
    while True:
        if _two_top_tiles(b) or n == log.shape[0]:
            return score, max_exponent(b), n, True
        d = choose(w, b, ply, slide, points)
        if d < 0:
            return score, max_exponent(b), n, False
        after, gained = move(b, d, slide, points)
        log[n] = d
        n += 1
        score += gained
        b = game_spawn(after, key, n + 1)


# -- the network's expectimax ---------------------------------------------------------------------

#: Entries of a search task's ``state``: chance nodes expanded, the task's node budget, its table
#: generation, the aborted flag, log2 of the table's entries.
NODES, BUDGET, GENERATION, ABORTED, TABLE_BITS = range(5)
STATE_SIZE = 5
#: Levels of the work space: the deepest search, in spawns.
SEARCH_LEVELS = 16


@njit(cache=True, nogil=True, inline="always")
def _first_empty(b: np.uint64, i: int) -> int:
    """The first empty cell of ``b`` from cell ``i`` on (16 if none)."""
    while i < 16 and (b >> np.uint64(4 * i)) & np.uint64(0xF) != 0:
        i += 1
    return i


@njit(cache=True, nogil=True, inline="always")
def _slot(b: np.uint64, state: np.ndarray) -> np.int64:
    return np.int64((b * _GAMMA) >> np.uint64(64 - state[TABLE_BITS]))


@njit(cache=True, nogil=True, inline="always")
def _known(keys: np.ndarray, meta: np.ndarray, vals: np.ndarray, b: np.uint64, depth: int,
           state: np.ndarray) -> float:
    """The table's value of chance node ``b`` if this generation searched it ``depth`` deep or
    deeper, else NaN."""
    slot = _slot(b, state)
    m = meta[slot]
    if keys[slot] == b and (m >> 8) == state[GENERATION] and (m & 255) >= depth:
        return vals[slot]
    return np.nan


@njit(cache=True, nogil=True, inline="always")
def _keep(keys: np.ndarray, meta: np.ndarray, vals: np.ndarray, b: np.uint64, depth: int, v: float,
          state: np.ndarray) -> None:
    slot = _slot(b, state)
    keys[slot] = b
    meta[slot] = (state[GENERATION] << 8) | depth
    vals[slot] = v


@njit(cache=True, nogil=True)
def search_chance(
    w: np.ndarray,
    root: np.uint64,
    depth: int,
    cut: float,
    slide: np.ndarray,
    points: np.ndarray,
    keys: np.ndarray,
    meta: np.ndarray,
    vals: np.ndarray,
    state: np.ndarray,
    stack_boards: np.ndarray,
    stack_ints: np.ndarray,
    stack_floats: np.ndarray,
) -> float:
    """The expected points to come after the chance node ``root`` (a move's afterstate), read
    ``depth`` spawns deep: the expectimax of the heuristic's search (``solver.bitboard``) with the
    network at the leaves and each move's points on the way.

    A chance node averages over every empty cell and both tiles (2 at 0.9, 4 at 0.1) the best of
    the moves that follow, each worth its points plus the value of the chance node it leads to
    (0 if none is legal: the game is over). A chance node with no depth left, or reached with
    probability below ``cut``, is worth ``value`` of its board. Depth 1 with no cut is
    ``chance_value``, depth 2 ``chance_value_2``. Chance nodes are kept in a direct-mapped table
    (``keys``, ``meta``: generation and depth, ``vals``; always replace) and used again by the
    same generation at the same depth or less. ``state`` (``NODES`` ...) counts the chance nodes
    expanded; past its budget the task gives up (``ABORTED``, value 0). Depth-first on an
    explicit stack (numba does not cache recursive functions); nothing is allocated.
    """
    b = np.uint64(root)
    if depth <= 0 or cut > 1.0:
        return value(w, b)
    known = _known(keys, meta, vals, b, depth, state)
    if known == known:
        return known
    state[NODES] += 1
    level = 0
    dep = depth
    cp = 1.0
    empty = count_empty(b)
    i = _first_empty(b, 0)
    tile = 1
    d = 0
    res = 0.0
    best = -np.inf
    while True:
        while i < 16:
            if d == 4:  # this spawn's moves are done
                top = best if best > -np.inf else 0.0
                if tile == 1:
                    res += 0.9 * top
                    tile = 2
                else:
                    res += 0.1 * top
                    tile = 1
                    i = _first_empty(b, i + 1)
                best = -np.inf
                d = 0
                continue
            spawned = b | (np.uint64(tile) << np.uint64(4 * i))
            after, gained = move(spawned, d, slide, points)
            d += 1
            if after == spawned:
                continue
            child_cp = cp * (0.9 if tile == 1 else 0.1) / empty
            if dep == 1 or child_cp < cut:
                v = gained + value(w, after)
            else:
                below = _known(keys, meta, vals, after, dep - 1, state)
                if below == below:
                    v = gained + below
                else:
                    state[NODES] += 1
                    if state[NODES] > state[BUDGET]:
                        state[ABORTED] = 1
                        return 0.0
                    # descend: keep this node on the stack, make the child current
                    stack_boards[level] = b
                    stack_ints[level, 0] = i
                    stack_ints[level, 1] = tile
                    stack_ints[level, 2] = d
                    stack_ints[level, 3] = empty
                    stack_floats[level, 0] = cp
                    stack_floats[level, 1] = res
                    stack_floats[level, 2] = best
                    stack_floats[level, 3] = gained
                    level += 1
                    b = after
                    dep -= 1
                    cp = child_cp
                    empty = count_empty(b)
                    i = _first_empty(b, 0)
                    tile = 1
                    d = 0
                    res = 0.0
                    best = -np.inf
                    continue
            if v > best:
                best = v
        node = res / empty
        _keep(keys, meta, vals, b, dep, node, state)
        if level == 0:
            return node
        level -= 1
        dep += 1
        b = stack_boards[level]
        i = stack_ints[level, 0]
        tile = stack_ints[level, 1]
        d = stack_ints[level, 2]
        empty = stack_ints[level, 3]
        cp = stack_floats[level, 0]
        res = stack_floats[level, 1]
        best = stack_floats[level, 2]
        v = stack_floats[level, 3] + node
        if v > best:
            best = v
