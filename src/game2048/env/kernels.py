"""The compiled rules for the environments: move, spawn and legal moves on uint8 boards.

A board is a flat uint8 array of exponents (0 empty, k for the tile 2^k),
cell (r, c) at ``r * n + c``; exponents up to 37 fit, so every board of
every size is exact. Directions are 0 up, 1 down, 2 left, 3 right, as in
``rules.DIRECTIONS``. The spawn is ``docs/spawns.md`` in 64-bit unsigned
arithmetic; ``tests/test_env.py`` proves that these kernels and
``game2048.Game`` play the same games.

Everything numba compiles for the environments lives in this one module,
because numba's on-disk cache (``cache=True``) only watches the file a
function is defined in.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..rules import FOUR_IN, SPAWN_OUT_OF
from ..spawn import ATTEMPTS, GAMMA

_GAMMA = np.uint64(GAMMA)
_ATTEMPTS = np.uint64(ATTEMPTS)
_C1 = np.uint64(0xBF58476D1CE4E5B9)
_C2 = np.uint64(0x94D049BB133111EB)
_ZERO = np.uint64(0)
_ONE = np.uint64(1)


@njit(cache=True, nogil=True)
def mix64(x: np.uint64) -> np.uint64:
    """The SplitMix64 finaliser, wrapping mod 2^64 like ``spawn.mix64``."""
    x = (x ^ (x >> np.uint64(30))) * _C1
    x = (x ^ (x >> np.uint64(27))) * _C2
    return x ^ (x >> np.uint64(31))


@njit(cache=True, nogil=True)
def spawn(board: np.ndarray, key: np.uint64, index: np.int64) -> None:
    """Place spawn ``index`` of the game with ``key`` on ``board`` (which has an empty cell)."""
    empty = 0
    for i in range(board.size):
        if board[i] == 0:
            empty += 1
    m = np.uint64(SPAWN_OUT_OF * empty)
    # 2^64 mod m, then the rejection limit 2^64 - that (no limit when it is 0)
    rest = ((~_ZERO) % m + _ONE) % m
    counter = np.uint64(index) * _ATTEMPTS
    while True:
        counter += _ONE
        z = mix64(key + counter * _GAMMA)
        if rest == _ZERO or z < _ZERO - rest:
            break
    r = np.int64(z % m)
    ordinal = r // SPAWN_OUT_OF
    exp = 2 if r % SPAWN_OUT_OF < FOUR_IN else 1
    for i in range(board.size):
        if board[i] == 0:
            if ordinal == 0:
                board[i] = exp
                return
            ordinal -= 1


@njit(cache=True, nogil=True)
def _line(n: np.int64, d: np.int64, k: np.int64) -> tuple[np.int64, np.int64]:
    """Where line ``k`` of direction ``d`` starts and its step, from the wall it is pushed to."""
    if d == 0:
        return k, n
    if d == 1:
        return (n - 1) * n + k, -n
    if d == 2:
        return k * n, 1
    return k * n + n - 1, -1


@njit(cache=True, nogil=True)
def slide(board: np.ndarray, n: np.int64, d: np.int64) -> np.int64:
    """Move ``board`` in place toward direction ``d``; the points, or -1 if nothing moved.

    Pairing starts at the wall, and a merged tile does not merge again.
    """
    points = np.int64(0)
    changed = False
    for k in range(n):
        start, step = _line(n, d, k)
        write = 0  # cells before it, counted from the wall, are final
        last = 0  # the tile at write - 1 while it may still merge, else 0
        for j in range(n):
            cell = start + j * step
            e = board[cell]
            if e == 0:
                continue
            board[cell] = 0
            if e == last:
                board[start + (write - 1) * step] = e + 1
                points += np.int64(1) << np.int64(e + 1)
                last = 0
                changed = True
            else:
                board[start + write * step] = e
                if write != j:
                    changed = True
                last = e
                write += 1
    return points if changed else np.int64(-1)


@njit(cache=True, nogil=True)
def legal(board: np.ndarray, n: np.int64, mask: np.ndarray) -> bool:
    """Fill ``mask[d]`` with whether direction ``d`` changes the board; True if any does."""
    any_legal = False
    for d in range(4):
        ok = False
        for k in range(n):
            start, step = _line(n, d, k)
            for j in range(1, n):
                e = board[start + j * step]
                if e != 0:
                    before = board[start + (j - 1) * step]
                    if before == 0 or before == e:
                        ok = True
                        break
            if ok:
                break
        mask[d] = ok
        any_legal |= ok
    return any_legal


@njit(cache=True, nogil=True)
def open_game(board: np.ndarray, seed: np.uint64) -> np.uint64:
    """Clear ``board`` and place the two opening tiles of game ``seed``; returns the game's key."""
    board[:] = 0
    key = mix64(seed)
    spawn(board, key, 0)
    spawn(board, key, 1)
    return key


@njit(cache=True, nogil=True)
def play(board: np.ndarray, n: np.int64, d: np.int64, key: np.uint64, index: np.int64) -> np.int64:
    """One move and its spawn (spawn ``index``); the points, or -1 if the move is illegal."""
    points = slide(board, n, d)
    if points >= 0:
        spawn(board, key, index)
    return points


@njit(cache=True, nogil=True)
def step_all(
    boards: np.ndarray,
    n: np.int64,
    actions: np.ndarray,
    keys: np.ndarray,
    spawns: np.ndarray,
    scores: np.ndarray,
    opening: np.ndarray,
    seeds: np.ndarray,
    rewards: np.ndarray,
    illegal: np.ndarray,
    over: np.ndarray,
    masks: np.ndarray,
    max_tiles: np.ndarray,
) -> None:
    """Step every board: a board with ``opening[i]`` set opens game ``seeds[i]`` instead of moving.

    Writes the reward, whether the action was illegal, whether the game is
    over, the legal-move mask and the largest tile of every board.
    """
    for i in range(boards.shape[0]):
        board = boards[i]
        if opening[i]:
            keys[i] = open_game(board, seeds[i])
            spawns[i] = 2
            scores[i] = 0
            rewards[i] = 0.0
            illegal[i] = False
        else:
            points = play(board, n, actions[i], keys[i], spawns[i])
            if points < 0:
                rewards[i] = 0.0
                illegal[i] = True
            else:
                spawns[i] += 1
                scores[i] += points
                rewards[i] = points
                illegal[i] = False
        over[i] = not legal(board, n, masks[i])
        top = 0
        for c in range(board.size):
            top = max(top, board[c])
        max_tiles[i] = np.int64(1) << np.int64(top) if top else 0
