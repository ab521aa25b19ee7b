"""Many boards stepped in one compiled call: the vector entry point of ``game2048/Game2048-v0``.

    envs = gymnasium.make_vec("game2048/Game2048-v0", num_envs=1024,
                              vectorization_mode="vector_entry_point", size=4)

Board i behaves exactly like a single ``Game2048Env`` reset with seed
``seed + i`` (and then with seeds drawn from its own ``np_random``): same
rules, same spawns, same rewards. A finished board opens its next game on
the step after the one that ended it (gymnasium's next-step autoreset): that
step ignores the board's action and returns the new opening with reward 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from ..rules import DEFAULT_SIZE, check_size
from . import kernels
from .contract import (
    OBSERVATIONS,
    REWARDS,
    action_space,
    check_choice,
    check_reset_seed,
    encode,
    next_game_seed,
    observation_space,
    reward_of,
    text,
)


class Game2048VectorEnv(VectorEnv[np.ndarray, np.ndarray, np.ndarray]):
    """``num_envs`` boards of one size; ``step`` moves them all in one numba call."""

    metadata: ClassVar[dict[str, Any]] = {
        "autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": ["ansi", "rgb_array"],
    }

    def __init__(self, num_envs: int = 1, size: int = DEFAULT_SIZE, render_mode: str | None = None, *,
                 observation: str = "exponents", reward: str = "score") -> None:
        if type(num_envs) is not int or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        self.size = n = check_size(size)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None")
        self.render_mode = render_mode
        self.observation = check_choice("observation", observation, OBSERVATIONS)
        self.reward = check_choice("reward", reward, REWARDS)
        self.num_envs = num_envs
        self.single_observation_space = observation_space(n, observation)
        self.single_action_space = action_space()
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._boards = np.zeros((num_envs, n * n), dtype=np.uint8)
        self._keys = np.zeros(num_envs, dtype=np.uint64)
        self._spawns = np.zeros(num_envs, dtype=np.int64)
        self._scores = np.zeros(num_envs, dtype=np.int64)
        self._seeds = np.zeros(num_envs, dtype=np.uint64)
        self._rewards = np.zeros(num_envs, dtype=np.float64)
        self._illegal = np.zeros(num_envs, dtype=np.bool_)
        self._over = np.ones(num_envs, dtype=np.bool_)
        self._masks = np.zeros((num_envs, 4), dtype=np.bool_)
        self._max_tiles = np.zeros(num_envs, dtype=np.int64)
        self._no_actions = np.zeros(num_envs, dtype=np.int64)
        self._rngs: list[np.random.Generator | None] = [None] * num_envs
        self._reset_done = False

    def reset(
        self, *, seed: int | Sequence[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Open a new game on every board.

        ``seed``: an int S gives board i the game ``S + i``; a list gives one
        seed (or None) per board; None draws each board's game seed from its
        own ``np_random``, like ``Game2048Env.reset()``.
        """
        if seed is None or isinstance(seed, int | np.integer):
            super().reset(seed=None if seed is None else check_reset_seed(seed))
            seeds: list[int | None] = (
                [None] * self.num_envs if seed is None else [int(seed) + i for i in range(self.num_envs)]
            )
        else:
            seeds = list(seed)
            if len(seeds) != self.num_envs:
                raise ValueError(f"reset needs {self.num_envs} seeds (one per board), got {len(seeds)}")
        for i, s in enumerate(seeds):
            if s is not None:
                s = check_reset_seed(s)
                self._rngs[i] = seeding.np_random(s)[0]
                self._seeds[i] = s
            else:
                self._seeds[i] = next_game_seed(self._rng(i))
        self._run(self._no_actions, np.ones(self.num_envs, dtype=np.bool_))
        self._reset_done = True
        return self._observations(), self._infos()

    def step(
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        if not self._reset_done:
            raise RuntimeError("call reset() before step()")
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or actions.dtype.kind not in "iu":
            raise ValueError(
                f"actions must be {self.num_envs} integers, got shape {actions.shape} of {actions.dtype}"
            )
        if actions.size and (actions.min() < 0 or actions.max() > 3):
            raise ValueError("every action must be 0 (up), 1 (down), 2 (left) or 3 (right)")
        opening = self._over.copy()
        for i in np.flatnonzero(opening):
            self._seeds[i] = next_game_seed(self._rng(i))
        tiles = np.count_nonzero(self._boards, axis=1) if self.reward == "merges" else None
        self._run(actions.astype(np.int64, copy=False), opening)
        if self.reward == "score":
            rewards = self._rewards.copy()
        else:
            merges = 0 if tiles is None else tiles + 1 - np.count_nonzero(self._boards, axis=1)
            rewards = reward_of(self.reward, self._rewards, merges, ~(self._illegal | opening))
        return (
            self._observations(),
            rewards,
            self._over.copy(),
            np.zeros(self.num_envs, dtype=np.bool_),
            self._infos(),
        )

    def action_masks(self) -> np.ndarray:
        """(num_envs, 4) booleans, which actions the next ``step`` accepts as moves.

        A finished board's next step opens a new game whatever its action, so
        its row is all True (``info["action_mask"]`` shows it as all False).
        """
        masks = self._masks.copy()
        masks[self._over] = True
        return masks

    def open_now(self, boards: np.ndarray) -> None:
        """Open the next game on the finished boards ``boards`` (indices) at once, not on the next step.

        For callers that reset in the step that ends a game (stable-baselines3); the
        games are the ones the next step would have opened.
        """
        for i in boards:
            self._seeds[i] = next_game_seed(self._rng(i))
            board = self._boards[i]
            self._keys[i] = kernels.open_game(board, self._seeds[i])
            self._spawns[i], self._scores[i] = 2, 0
            self._over[i] = not kernels.legal(board, self.size, self._masks[i])
            self._max_tiles[i] = 1 << int(board.max())

    def render(self) -> tuple[str, ...] | tuple[np.ndarray, ...] | None:
        boards = self._exponents()
        if self.render_mode == "ansi":
            return tuple(text(boards[i], int(self._scores[i])) for i in range(self.num_envs))
        if self.render_mode == "rgb_array":
            from .picture import frame

            return tuple(frame(board) for board in boards)
        return None

    def _rng(self, i: int) -> np.random.Generator:
        rng = self._rngs[i]
        if rng is None:
            rng = self._rngs[i] = seeding.np_random()[0]
        return rng

    def _run(self, actions: np.ndarray, opening: np.ndarray) -> None:
        kernels.step_all(
            self._boards, self.size, actions, self._keys, self._spawns, self._scores, opening, self._seeds,
            self._rewards, self._illegal, self._over, self._masks, self._max_tiles,
        )  # fmt: skip

    def _exponents(self) -> np.ndarray:
        return self._boards.reshape(self.num_envs, self.size, self.size).copy()

    def _observations(self) -> np.ndarray:
        return encode(self._boards.reshape(self.num_envs, self.size, self.size), self.size, self.observation)

    def _infos(self) -> dict[str, Any]:
        return {
            "illegal": self._illegal.copy(),
            "action_mask": self._masks.copy(),
            "score": self._scores.copy(),
            "max_tile": self._max_tiles.copy(),
            "seed": self._seeds.astype(np.int64),
        }
