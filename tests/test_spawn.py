"""Spawns are seeded, exact in their odds, and the same after an undo."""

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from game2048 import Game, spawn
from game2048.spawn import MAX_SEED, check_seed, spawn_choice


def test_a_spawn_is_a_pure_function_of_seed_index_and_board():
    assert spawn_choice(99, 7, 12) == spawn_choice(99, 7, 12)
    assert len({spawn_choice(s, 0, 16) for s in range(200)}) > 16


def test_four_appears_one_time_in_ten():
    draws = [spawn_choice(seed, i, 16)[1] for seed in range(5) for i in range(5000)]
    fours = draws.count(2) / len(draws)
    # 25,000 draws: the standard error is 0.0019, so 5 sigma is under 0.01
    assert abs(fours - 0.1) < 0.01


@pytest.mark.parametrize("empty", [1, 3, 7, 16, 36])
def test_cells_are_uniform(empty):
    n = 20_000
    counts = Counter(spawn_choice(3, i, empty)[0] for i in range(n))
    assert set(counts) == set(range(empty))
    expected = n / empty
    chi2 = sum((counts[k] - expected) ** 2 / expected for k in range(empty))
    # far above the 99.9th percentile of chi-square with up to 35 degrees of freedom (66.6)
    assert chi2 < 80


def test_opening_has_two_tiles_of_two_or_four():
    for seed in range(300):
        tiles = [v for row in Game(4, seed).board for v in row if v]
        assert len(tiles) == 2 and set(tiles) <= {2, 4}


@given(st.integers(0, MAX_SEED - 1), st.sampled_from("UDLR"), st.sampled_from("UDLR"))
def test_undo_then_the_same_move_brings_the_same_tile(seed, first, second):
    game = Game(4, seed)
    if not game.move(first) or not game.move(second):
        return
    after = game.board
    assert game.undo()
    assert game.move(second)
    assert game.board == after


@pytest.mark.parametrize("bad", [-1, MAX_SEED, 1.5, "7", None, True])
def test_seeds_outside_the_range_are_refused(bad):
    with pytest.raises(ValueError):
        check_seed(bad)


def _spawn_as_written(seed: int, index: int, empty: int, limit: int | None = None) -> tuple[int, int]:
    """docs/spawns.md, line by line (with an optional lower limit, to force rejections)."""
    mask = (1 << 64) - 1

    def mix64(x: int) -> int:
        x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & mask
        x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & mask
        return x ^ (x >> 31)

    key = mix64(seed)
    m = 10 * empty
    if limit is None:
        limit = 2**64 - (2**64 % m)
    counter = index * 65536
    while True:
        counter += 1
        z = mix64((key + counter * 0x9E3779B97F4A7C15) & mask)
        if z < limit:
            break
    r = z % m
    return r // 10, 2 if r % 10 == 0 else 1


@given(st.integers(0, MAX_SEED - 1), st.integers(0, 10**6), st.integers(1, 36))
def test_the_table_driven_draw_is_the_documented_algorithm(seed, index, empty):
    assert spawn_choice(seed, index, empty) == _spawn_as_written(seed, index, empty)


def test_a_rejected_attempt_is_followed_by_the_next_one(monkeypatch):
    # Rejections happen with probability < 2^-57, so lower the limit to make one:
    # the first attempt of (seed 1, spawn 0, 7 cells) is then rejected.
    mask = (1 << 64) - 1
    first = spawn.mix64((spawn.game_key(1) + spawn.GAMMA) & mask)
    second = spawn.mix64((spawn.game_key(1) + 2 * spawn.GAMMA) & mask)
    assert second < first  # so the second attempt passes the lowered limit
    limits = list(spawn.LIMITS)
    limits[7] = first
    monkeypatch.setattr(spawn, "LIMITS", tuple(limits))
    assert spawn_choice(1, 0, 7) == _spawn_as_written(1, 0, 7, limit=first)
    assert spawn_choice(1, 0, 7) != _spawn_as_written(1, 0, 7)


@pytest.mark.parametrize("empty", [0, 37, -1])
def test_a_spawn_needs_between_one_and_36_empty_cells(empty):
    with pytest.raises(ValueError, match="1 to 36 empty cells"):
        spawn_choice(5, 0, empty)
