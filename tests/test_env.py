"""The Gymnasium environments play the package's own games: same openings, moves, spawns and scores."""

from __future__ import annotations

import warnings

import gymnasium  # the test extra installs the gym extra
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from gymnasium.vector import AutoresetMode
from hypothesis import given, settings
from hypothesis import strategies as st

import game2048.env  # registers the id
from game2048 import DIRECTIONS, Game, replay, slide
from game2048.env import ENV_ID, kernels
from game2048.rules import SIZES, slide_exponents


def exponents(game: Game) -> np.ndarray:
    return np.array([[v.bit_length() - 1 if v else 0 for v in row] for row in game.board], dtype=np.uint8)


def legal_mask(game: Game) -> list[bool]:
    return [d in game.legal_moves() for d in DIRECTIONS]


def test_gymnasium_env_checker_passes_without_a_warning():
    env = gymnasium.make(ENV_ID, size=4, render_mode="ansi")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)
    assert [str(w.message) for w in caught] == []


@pytest.mark.parametrize("size", SIZES)
def test_reset_with_a_seed_opens_like_game_with_that_seed(size):
    env = gymnasium.make(ENV_ID, size=size)
    for seed in (0, 5, 2**53 - 1, 123456789):
        obs, info = env.reset(seed=seed)
        game = Game(size, seed)
        assert obs.dtype == np.uint8 and obs.shape == (size, size)
        assert (obs == exponents(game)).all()
        assert info["seed"] == seed and info["score"] == 0 and info["max_tile"] == game.max_tile
        assert list(info["action_mask"]) == legal_mask(game)
        assert info["illegal"] is False


@pytest.mark.parametrize("size", SIZES)
def test_400_steps_match_game_on_the_same_seed(size):
    """Every step: board, reward (the move's points), mask, score, max tile, illegal and game over."""
    env = gymnasium.make(ENV_ID, size=size)
    rng = np.random.default_rng(size)
    seed = 1000 + size
    env.reset(seed=seed)
    game = Game(size, seed)
    illegal_seen = games = 0
    for _ in range(400):
        action = int(rng.integers(4))
        before = game.score
        moved = game.move(DIRECTIONS[action])
        obs, reward, terminated, truncated, info = env.step(action)
        assert (obs == exponents(game)).all()
        assert reward == game.score - before
        assert info["illegal"] is (not moved)
        assert list(info["action_mask"]) == legal_mask(game)
        assert info["score"] == game.score and info["max_tile"] == game.max_tile
        assert terminated is game.over and truncated is False
        illegal_seen += not moved
        if terminated:
            games += 1
            # the record of the episode is the game's: replay rebuilds it
            assert replay(size, game.seed, game.log).board == game.board
            obs, info = env.reset()
            game = Game(size, info["seed"])
            assert (obs == exponents(game)).all()
    assert illegal_seen > 0
    if size == 3:
        assert games > 0


def test_an_illegal_action_changes_nothing_and_scores_nothing():
    env = gymnasium.make(ENV_ID, size=4)
    obs, info = env.reset(seed=5)
    blocked = [a for a in range(4) if not info["action_mask"][a]]
    assert blocked, "seed 5 opens with a tile against a wall"
    after, reward, terminated, _, info2 = env.step(blocked[0])
    assert (after == obs).all() and reward == 0 and info2["illegal"] is True
    assert info2["score"] == 0 and not terminated


def test_reset_without_a_seed_continues_the_seeded_sequence():
    env = gymnasium.make(ENV_ID, size=4)
    env.reset(seed=7)
    first = [env.reset()[1]["seed"] for _ in range(3)]
    env.reset(seed=7)
    again = [env.reset()[1]["seed"] for _ in range(3)]
    assert first == again and len(set(first)) == 3
    assert all(0 <= s < 2**53 for s in first)


@pytest.mark.parametrize("bad", [2**53, -1, "000102030405060708090a0b0c0d0e0f"])  # no secret seeds
def test_a_seed_outside_the_game_seed_range_is_refused(bad):
    env = gymnasium.make(ENV_ID, size=4)
    with pytest.raises(ValueError, match="seed"):
        env.reset(seed=bad)


def test_actions_outside_0_to_3_are_refused():
    env = gymnasium.make(ENV_ID, size=4).unwrapped
    env.reset(seed=1)
    with pytest.raises(ValueError, match="action must be"):
        env.step(4)


def test_ansi_render_shows_the_tiles_and_the_score():
    env = gymnasium.make(ENV_ID, size=4, render_mode="ansi")
    env.reset(seed=5)
    assert env.render() == ". . . 4\n. . . .\n. . . 2\n. . . .\nscore: 0\n"


def test_unknown_sizes_and_render_modes_are_refused():
    with pytest.raises(ValueError, match="board size"):
        gymnasium.make(ENV_ID, size=7)
    with pytest.raises(ValueError, match="render_mode"):
        game2048.env.Game2048Env(size=4, render_mode="human")
    with pytest.raises(ValueError, match="render_mode"):
        game2048.env.Game2048VectorEnv(num_envs=2, size=4, render_mode="human")


# -- the vector environment ------------------------------------------------


def make_vec(num_envs: int, size: int):
    return gymnasium.make_vec(ENV_ID, num_envs=num_envs, vectorization_mode="vector_entry_point", size=size)


def test_vector_env_shapes_spaces_and_autoreset_mode():
    envs = make_vec(1024, 4)
    obs, info = envs.reset(seed=0)
    assert obs.shape == (1024, 4, 4) and obs.dtype == np.uint8
    assert envs.unwrapped.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
    assert envs.single_action_space == gymnasium.spaces.Discrete(4)
    assert obs in envs.observation_space
    obs, rewards, terminated, truncated, info = envs.step(np.full(1024, 2))
    assert rewards.shape == terminated.shape == truncated.shape == (1024,)
    assert info["action_mask"].shape == (1024, 4) and info["score"].shape == (1024,)
    assert (obs.reshape(1024, -1) > 0).sum(axis=1).min() >= 2


@pytest.mark.parametrize(("size", "steps"), [(3, 300), (4, 200), (5, 120), (6, 120)])
def test_vector_boards_play_like_single_envs_with_next_step_autoreset(size, steps):
    """Board i with reset(seed=S) is a single env reset with S + i, and reset() after each game."""
    n_envs = 6
    envs = make_vec(n_envs, size)
    singles = [gymnasium.make(ENV_ID, size=size) for _ in range(n_envs)]
    obs, info = envs.reset(seed=40)
    for i, env in enumerate(singles):
        o, inf = env.reset(seed=40 + i)
        assert (obs[i] == o).all() and info["seed"][i] == inf["seed"] == 40 + i
    ended = [False] * n_envs
    resets = 0
    rng = np.random.default_rng(size)
    for _ in range(steps):
        actions = rng.integers(4, size=n_envs)
        obs, rewards, terminated, truncated, info = envs.step(actions)
        for i, env in enumerate(singles):
            if ended[i]:  # next-step autoreset: this step opens the next game, the action is ignored
                o, inf = env.reset()
                r, term, illegal = 0.0, False, False
                resets += 1
            else:
                o, r, term, _, inf = env.step(int(actions[i]))
                illegal = inf["illegal"]
            assert (obs[i] == o).all()
            assert rewards[i] == r and terminated[i] == term and not truncated[i]
            assert info["illegal"][i] == illegal and info["seed"][i] == env.unwrapped.game_seed
            assert list(info["action_mask"][i]) == list(inf["action_mask"])
            assert info["score"][i] == inf["score"] and info["max_tile"][i] == inf["max_tile"]
            ended[i] = term
    if size == 3:
        assert resets > 0


def test_vector_env_refuses_bad_actions():
    envs = make_vec(4, 4)
    envs.reset(seed=1)
    for bad in (np.array([0, 1, 2]), np.array([0, 1, 2, 4]), np.array([0.0, 1.0, 2.0, 3.0])):
        with pytest.raises(ValueError, match="action"):
            envs.step(bad)


def test_vector_reset_takes_one_seed_per_board():
    envs = make_vec(3, 4)
    obs, info = envs.reset(seed=[9, 5, 9])
    assert list(info["seed"]) == [9, 5, 9] and (obs[0] == obs[2]).all()
    assert (obs[1] == exponents(Game(4, 5))).all()
    with pytest.raises(ValueError, match="3 seeds"):
        envs.reset(seed=[1, 2])


# -- the kernels against the rules -----------------------------------------


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_the_compiled_slide_is_the_rules_slide(data):
    size = data.draw(st.sampled_from(SIZES))
    top = (1 << (size * size + 1)).bit_length() - 2  # leave room for one merge
    cells = data.draw(st.lists(st.integers(0, top), min_size=size * size, max_size=size * size))
    d = data.draw(st.integers(0, 3))
    board = np.array(cells, dtype=np.uint8)
    points = kernels.slide(board, size, d)
    rows = [cells[r * size : (r + 1) * size] for r in range(size)]
    lines = [list(col) for col in zip(*rows, strict=True)] if d < 2 else rows
    total = 0
    want = []
    for line in lines:
        moved, p = slide_exponents(line[::-1] if d in (1, 3) else line)
        want.append(list(moved[::-1] if d in (1, 3) else moved))
        total += p
    if d < 2:
        want = [list(col) for col in zip(*want, strict=True)]
    expected = [e for row in want for e in row]
    assert list(board) == expected
    assert points == (total if expected != cells else -1)


# -- encodings, rewards, masks, frames, stable-baselines3 ---------------------------------


@pytest.mark.parametrize("observation", ["exponents", "onehot"])
@pytest.mark.parametrize("reward", ["score", "merges", "survival", "log_score"])
def test_gymnasium_env_checker_passes_on_every_encoding_and_reward(observation, reward):
    env = gymnasium.make(ENV_ID, size=3, observation=observation, reward=reward, render_mode="rgb_array")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)
    assert [str(w.message) for w in caught] == []


@pytest.mark.parametrize("size", SIZES)
def test_onehot_planes_mark_each_exponent(size):
    plain = gymnasium.make(ENV_ID, size=size)
    onehot = gymnasium.make(ENV_ID, size=size, observation="onehot")
    a, _ = plain.reset(seed=9)
    b, _ = onehot.reset(seed=9)
    assert b.shape == (size * size + 2, size, size) and b.dtype == np.uint8
    assert (b.sum(axis=0) == 1).all() and (b.argmax(axis=0) == a).all()
    assert onehot.observation_space.contains(b)


def _moves(size, seed, steps):
    """(points, merges) of each legal move of a first-legal-move game, from the rules on plain lists."""
    game, out = Game(size, seed), []
    for _ in range(steps):
        legal = game.legal_moves()
        if not legal:
            break
        before = game.board
        after, points = slide(before, legal[0])
        tiles = sum(v > 0 for row in before for v in row) - sum(v > 0 for row in after for v in row)
        out.append((DIRECTIONS.index(legal[0]), points, tiles))
        game.move(legal[0])
    return out


@pytest.mark.parametrize(
    ("reward", "expected"),
    [("score", lambda p, m: p), ("merges", lambda p, m: m), ("survival", lambda p, m: 1.0),
     ("log_score", lambda p, m: np.log2(1 + p))],
)
def test_each_reward_is_what_it_says_in_single_and_vector_envs(reward, expected):
    moves = _moves(4, 21, 150)
    single = gymnasium.make(ENV_ID, size=4, reward=reward)
    single.reset(seed=21)
    vector = game2048.env.Game2048VectorEnv(2, 4, reward=reward)
    vector.reset(seed=[21, 21])
    for action, points, merges in moves:
        _, r, *_ = single.step(action)
        _, rs, *_ = vector.step(np.array([action, action]))
        assert r == pytest.approx(expected(points, merges)) and list(rs) == pytest.approx([r, r])
    illegal = [d for d in range(4) if not single.unwrapped.action_masks()[d]]
    if illegal:
        assert single.step(illegal[0])[1] == 0.0


def test_action_masks_are_public_and_match_info():
    env = gymnasium.make(ENV_ID, size=4)
    _, info = env.reset(seed=3)
    game = Game(4, 3)
    assert list(env.unwrapped.action_masks()) == legal_mask(game) == list(info["action_mask"])
    vector = game2048.env.Game2048VectorEnv(3, 3)
    _, info = vector.reset(seed=0)
    assert vector.action_masks().shape == (3, 4) and (vector.action_masks() == info["action_mask"]).all()


def test_a_finished_vector_board_accepts_any_action():
    vector = game2048.env.Game2048VectorEnv(1, 3)
    vector.reset(seed=0)
    while True:
        _, _, terminated, _, info = vector.step(np.array([int(np.flatnonzero(vector.action_masks()[0])[0])]))
        if terminated[0]:
            break
    assert not info["action_mask"][0].any() and vector.action_masks()[0].all()


@pytest.mark.parametrize("size", SIZES)
def test_rgb_array_frames_show_the_board_in_the_web_game_colours(size):
    from game2048.svg import palette

    env = gymnasium.make(ENV_ID, size=size, render_mode="rgb_array")
    env.reset(seed=1)
    frame = env.render()
    assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3
    assert frame.shape[0] == frame.shape[1] and frame.shape[0] % 16 == 0
    colours = {tuple(c) for c in frame.reshape(-1, 3)}
    rgb = lambda h: tuple(int(h[i : i + 2], 16) for i in (1, 3, 5))  # noqa: E731
    p = palette("light")
    assert {rgb(p.board), rgb(p.cell)} <= colours and rgb(p.tiles[0][0]) in colours  # a 2 is on every opening
    frames = game2048.env.Game2048VectorEnv(2, size, render_mode="rgb_array")
    frames.reset(seed=1)
    assert (frames.render()[0] == frame).all()


def test_the_stable_baselines3_adapter_steps_and_resets_like_sb3_envs():
    """With stable-baselines3 (not in the test extra: it needs torch) the adapter steps like SB3's own
    vector envs; without it, importing the adapter says what to install. Either way, no skip."""
    import importlib.util

    if importlib.util.find_spec("stable_baselines3") is None:
        with pytest.raises(ImportError, match="pip install stable-baselines3"):
            import game2048.env.sb3  # noqa: F401
        return
    from stable_baselines3.common.vec_env import VecMonitor

    from game2048.env.sb3 import Game2048SB3VecEnv

    env = VecMonitor(Game2048SB3VecEnv(num_envs=4, size=3, observation="onehot", seed=0))
    obs = env.reset()
    assert obs.shape == (4, 11, 3, 3)
    first = gymnasium.make(ENV_ID, size=3, observation="onehot")
    assert (obs[2] == first.reset(seed=2)[0]).all()
    episodes = 0
    for _ in range(400):
        masks = np.stack(env.env_method("action_masks"))
        assert masks.any(axis=1).all()
        obs, rewards, dones, infos = env.step(masks.argmax(axis=1))
        assert rewards.dtype == np.float32 and dones.dtype == np.bool_
        for i in np.flatnonzero(dones):
            assert "terminal_observation" in infos[i] and "episode" in infos[i]
            assert (obs[i].sum(axis=(1, 2))[1:] > 0).sum() <= 2  # the next game's opening
            episodes += 1
    assert episodes > 0
