"""One board as a Gymnasium environment: ``gymnasium.make("game2048/Game2048-v0", size=4)``."""

from __future__ import annotations

from typing import Any, ClassVar

import gymnasium
import numpy as np

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
    reward_value,
    text,
)


class Game2048Env(gymnasium.Env[np.ndarray, np.int64]):
    """2048 on a ``size`` x ``size`` board with the package's rules and spawns.

    ``reset(seed=S)`` opens exactly like ``Game(size, seed=S)``; ``reset()``
    opens a game whose seed is drawn from ``np_random`` (so ``reset(seed=S)``
    followed by ``reset()`` calls gives the same games every time).

    ``observation``: ``"exponents"`` (size x size tile exponents) or
    ``"onehot"`` (one 0/1 plane per exponent, plane 0 the empty cells).
    ``reward``: ``"score"`` (the points of the move), ``"merges"`` (how many
    merges it made), ``"survival"`` (1 for every legal move) or
    ``"log_score"`` (log2(1 + points)); an illegal move earns 0.
    ``render_mode``: ``"ansi"`` (text) or ``"rgb_array"`` (the board in the
    web game's colours, as a uint8 (height, width, 3) frame).
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}

    def __init__(self, size: int = DEFAULT_SIZE, render_mode: str | None = None, *,
                 observation: str = "exponents", reward: str = "score") -> None:
        self.size = check_size(size)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None")
        self.render_mode = render_mode
        self.observation = check_choice("observation", observation, OBSERVATIONS)
        self.reward = check_choice("reward", reward, REWARDS)
        self.observation_space = observation_space(size, observation)
        self.action_space = action_space()
        self._board = np.zeros(size * size, dtype=np.uint8)
        self._mask = np.zeros(4, dtype=np.bool_)
        self._key = np.uint64(0)
        self._spawn = 0
        self.score = 0
        self.game_seed = 0
        self._over = True

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        if seed is not None:
            seed = check_reset_seed(seed)
        super().reset(seed=seed)
        self.game_seed = next_game_seed(self.np_random) if seed is None else seed
        self._key = np.uint64(kernels.open_game(self._board, np.uint64(self.game_seed)))
        self._spawn = 2
        self.score = 0
        self._over = not kernels.legal(self._board, self.size, self._mask)
        info = self._info(False)
        info["seed"] = self.game_seed
        return self._observation(), info

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if not self.action_space.contains(action):
            raise ValueError(f"action must be 0 (up), 1 (down), 2 (left) or 3 (right), got {action!r}")
        tiles = int(np.count_nonzero(self._board))
        points = int(kernels.play(self._board, self.size, int(action), self._key, self._spawn))
        illegal = points < 0
        reward = 0.0
        if not illegal:
            self._spawn += 1
            self.score += points
            self._over = not kernels.legal(self._board, self.size, self._mask)
            # each merge removes a tile, the spawn adds one
            reward = reward_value(self.reward, points, tiles + 1 - int(np.count_nonzero(self._board)))
        return self._observation(), reward, self._over, False, self._info(illegal)

    def action_masks(self) -> np.ndarray:
        """Which actions change the board (4 booleans): sb3-contrib's MaskablePPO reads this."""
        return self._mask.copy()

    def render(self) -> str | np.ndarray | None:
        if self.render_mode == "ansi":
            return text(self._exponents(), self.score)
        if self.render_mode == "rgb_array":
            from .picture import frame

            return frame(self._exponents())
        return None

    @property
    def board(self) -> list[list[int]]:
        """The board as rows of tile values (0 empty), like ``Game.board``."""
        return [[1 << int(e) if e else 0 for e in row] for row in self._exponents()]

    def _exponents(self) -> np.ndarray:
        return self._board.reshape(self.size, self.size).copy()

    def _observation(self) -> np.ndarray:
        return encode(self._board.reshape(self.size, self.size), self.size, self.observation)

    def _info(self, illegal: bool) -> dict[str, Any]:
        top = int(self._board.max())
        return {
            "illegal": illegal,
            "action_mask": self._mask.copy(),
            "score": self.score,
            "max_tile": 1 << top if top else 0,
        }
