"""The compiled vector environment as a stable-baselines3 ``VecEnv``.

stable-baselines3 steps its own vector environments one Python env at a
time; this adapter hands it ``Game2048VectorEnv`` instead, which moves every
board in one numba call::

    from stable_baselines3 import PPO
    from game2048.env.sb3 import Game2048SB3VecEnv

    env = Game2048SB3VecEnv(num_envs=64, size=3, observation="onehot", seed=0)
    PPO("MlpPolicy", env).learn(10_000)

It follows stable-baselines3's conventions: a finished board opens its next
game in the same step, with the last observation in
``infos[i]["terminal_observation"]``; ``action_masks()`` (also through
``env_method("action_masks")``) is what sb3-contrib's ``MaskablePPO`` reads.
Wrap it in ``VecMonitor`` for episode returns and lengths. Needs
stable-baselines3 (``pip install stable-baselines3``), imported only here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

try:
    from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices, VecEnvStepReturn
except ImportError as exc:  # pragma: no cover - depends on the installation
    raise ImportError(
        "game2048.env.sb3 needs stable-baselines3: pip install stable-baselines3 (it brings torch)"
    ) from exc

from ..rules import DEFAULT_SIZE
from .vector import Game2048VectorEnv


class Game2048SB3VecEnv(VecEnv):
    """``num_envs`` boards for stable-baselines3; ``observation`` and ``reward`` as in ``Game2048Env``.

    ``seed``: board i's first game is ``Game(size, seed + i)`` (None: random);
    ``VecEnv.seed(s)`` before a ``reset`` does the same.
    """

    def __init__(self, num_envs: int = 8, size: int = DEFAULT_SIZE, *, observation: str = "exponents",
                 reward: str = "score", seed: int | None = None, render_mode: str | None = None) -> None:
        self.venv = Game2048VectorEnv(num_envs, size, render_mode, observation=observation, reward=reward)
        super().__init__(num_envs, self.venv.single_observation_space, self.venv.single_action_space)
        if seed is not None:
            self.seed(seed)
        self._actions = np.zeros(num_envs, dtype=np.int64)

    def reset(self) -> np.ndarray:
        seeds = self._seeds
        obs, info = self.venv.reset(seed=None if all(s is None for s in seeds) else seeds)
        self.reset_infos = [{"seed": int(s)} for s in info["seed"]]
        self._reset_seeds()
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)

    def step_wait(self) -> VecEnvStepReturn:
        obs, rewards, terminated, _, info = self.venv.step(self._actions)
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        done = np.flatnonzero(terminated)
        if done.size:
            for i in done:
                infos[i] = {"terminal_observation": obs[i], "TimeLimit.truncated": False,
                            "score": int(info["score"][i]), "max_tile": int(info["max_tile"][i])}
            self.venv.open_now(done)
            obs = self.venv._observations()
        return obs, rewards.astype(np.float32), terminated, infos

    def action_masks(self) -> np.ndarray:
        """(num_envs, 4) booleans: the moves that change each board."""
        return self.venv.action_masks()

    def close(self) -> None:
        self.venv.close()

    def get_images(self) -> Sequence[np.ndarray | None]:
        if self.venv.render_mode != "rgb_array":
            return [None] * self.num_envs
        return list(self.venv.render() or ())

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        value = getattr(self.venv, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        setattr(self.venv, attr_name, value)

    def env_method(self, method_name: str, *method_args: Any, indices: VecEnvIndices = None,
                   **method_kwargs: Any) -> list[Any]:
        chosen = list(self._get_indices(indices))
        if method_name == "action_masks":
            return list(self.venv.action_masks()[chosen])
        result = getattr(self.venv, method_name)(*method_args, **method_kwargs)
        return [result for _ in chosen]

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]
