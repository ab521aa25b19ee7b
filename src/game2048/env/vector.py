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
from .contract import action_space, check_reset_seed, next_game_seed, observation_space, text


class Game2048VectorEnv(VectorEnv[np.ndarray, np.ndarray, np.ndarray]):
    """``num_envs`` boards of one size; ``step`` moves them all in one numba call."""

    metadata: ClassVar[dict[str, Any]] = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": ["ansi"]}

    def __init__(self, num_envs: int = 1, size: int = DEFAULT_SIZE, render_mode: str | None = None) -> None:
        if type(num_envs) is not int or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        self.size = n = check_size(size)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None")
        self.render_mode = render_mode
        self.num_envs = num_envs
        self.single_observation_space = observation_space(n)
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
        self._run(actions.astype(np.int64, copy=False), opening)
        return (
            self._observations(),
            self._rewards.copy(),
            self._over.copy(),
            np.zeros(self.num_envs, dtype=np.bool_),
            self._infos(),
        )

    def render(self) -> tuple[str, ...] | None:
        if self.render_mode == "ansi":
            boards = self._observations()
            return tuple(text(boards[i], int(self._scores[i])) for i in range(self.num_envs))
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

    def _observations(self) -> np.ndarray:
        return self._boards.reshape(self.num_envs, self.size, self.size).copy()

    def _infos(self) -> dict[str, Any]:
        return {
            "illegal": self._illegal.copy(),
            "action_mask": self._masks.copy(),
            "score": self._scores.copy(),
            "max_tile": self._max_tiles.copy(),
            "seed": self._seeds.astype(np.int64),
        }
