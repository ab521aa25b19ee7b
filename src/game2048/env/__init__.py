"""Gymnasium environments for 2048 with the package's own rules and spawns.

``import game2048.env`` registers ``game2048/Game2048-v0``::

    import gymnasium as gym
    import game2048.env  # noqa: F401  (registers the id)

    env = gym.make("game2048/Game2048-v0", size=4)
    obs, info = env.reset(seed=5)          # the opening of Game(4, seed=5)
    obs, reward, terminated, truncated, info = env.step(2)   # left

    envs = gym.make_vec("game2048/Game2048-v0", num_envs=1024,
                        vectorization_mode="vector_entry_point", size=4)

Observation (``observation=``): ``"exponents"``, the tile exponents as a
``uint8`` array of shape (size, size) (0 empty, 1 for a 2, 2 for a 4, ...),
or ``"onehot"``, one 0/1 plane per exponent. Actions: 0 up, 1 down, 2 left,
3 right. Reward (``reward=``): ``"score"`` (the points the move scored),
``"merges"``, ``"survival"`` (1 a legal move) or ``"log_score"``. An illegal action changes
nothing, scores 0 and sets ``info["illegal"]``. ``info`` also has
``action_mask`` (4 booleans), ``score``, ``max_tile`` and ``seed`` (the game's
seed: ``replay(size, seed, log)`` rebuilds the episode). ``terminated`` is
game over; nothing truncates. ``docs/python.md`` says how seeds work.

Needs the ``gym`` extra: ``pip install "game2048[gym]"``.
"""

from __future__ import annotations

try:
    import gymnasium
except ImportError as exc:  # pragma: no cover - depends on the installation
    raise ImportError(
        'game2048.env needs Gymnasium: pip install "game2048[gym]"'
    ) from exc

from .single import Game2048Env
from .vector import Game2048VectorEnv

ENV_ID = "game2048/Game2048-v0"

if ENV_ID not in gymnasium.registry:
    gymnasium.register(
        id=ENV_ID,
        entry_point="game2048.env.single:Game2048Env",
        vector_entry_point="game2048.env.vector:Game2048VectorEnv",
    )

__all__ = ["ENV_ID", "Game2048Env", "Game2048VectorEnv"]
