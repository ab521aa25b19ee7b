"""Spawns are seeded, exact in their odds, and the same after an undo, for integer and secret seeds."""

import hashlib
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from game2048 import Game, spawn
from game2048.spawn import MAX_SEED, check_seed, game_key, secret_seed, secret_word, spawn_choice

secret_seeds = st.binary(min_size=16, max_size=16).map(bytes.hex)


def test_a_spawn_is_a_pure_function_of_seed_index_and_board():
    assert spawn_choice(99, 7, 12) == spawn_choice(99, 7, 12)
    assert len({spawn_choice(s, 0, 16) for s in range(200)}) > 16


@pytest.mark.parametrize("seeds", [range(5), [f"{s:032x}" for s in range(5)]], ids=["integer", "secret"])
def test_four_appears_one_time_in_ten(seeds):
    draws = [spawn_choice(seed, i, 16)[1] for seed in seeds for i in range(5000)]
    fours = draws.count(2) / len(draws)
    # 25,000 draws: the standard error is 0.0019, so 5 sigma is under 0.01
    assert abs(fours - 0.1) < 0.01


@pytest.mark.parametrize("seed", [3, "000102030405060708090a0b0c0d0e0f"], ids=["integer", "secret"])
@pytest.mark.parametrize("empty", [1, 3, 7, 16, 36])
def test_cells_are_uniform(empty, seed):
    n = 20_000
    counts = Counter(spawn_choice(seed, i, empty)[0] for i in range(n))
    assert set(counts) == set(range(empty))
    expected = n / empty
    chi2 = sum((counts[k] - expected) ** 2 / expected for k in range(empty))
    # far above the 99.9th percentile of chi-square with up to 35 degrees of freedom (66.6)
    assert chi2 < 80


def test_opening_has_two_tiles_of_two_or_four():
    for seed in [*range(300), *(f"{s:032x}" for s in range(300))]:
        tiles = [v for row in Game(4, seed).board for v in row if v]
        assert len(tiles) == 2 and set(tiles) <= {2, 4}


def test_one_bit_of_a_secret_seed_changes_the_game():
    seed = secret_seed()
    other = f"{int(seed, 16) ^ 1:032x}"
    assert [spawn_choice(seed, i, 36) for i in range(40)] != [spawn_choice(other, i, 36) for i in range(40)]


@given(st.integers(0, MAX_SEED - 1) | secret_seeds, st.sampled_from("UDLR"), st.sampled_from("UDLR"))
def test_undo_then_the_same_move_brings_the_same_tile(seed, first, second):
    game = Game(4, seed)
    if not game.move(first) or not game.move(second):
        return
    after = game.board
    assert game.undo()
    assert game.move(second)
    assert game.board == after


@pytest.mark.parametrize("bad", [-1, MAX_SEED, 1.5, "7", None, True, b"0" * 32, "0" * 31, "0" * 33, "A" * 32,
                                 "0x" + "0" * 30, "g" * 32, "0" * 31 + "\n", "\u0660" * 32])
def test_seeds_outside_the_range_are_refused(bad):
    with pytest.raises(ValueError, match="seed"):
        check_seed(bad)


def test_a_bad_seed_is_shown_cut_short():
    with pytest.raises(ValueError) as info:
        check_seed("x" * 10_000)
    assert len(str(info.value)) < 200


def test_a_fresh_secret_seed_has_128_bits_as_32_lowercase_hex_digits():
    seeds = {secret_seed() for _ in range(100)}
    assert len(seeds) == 100
    for seed in seeds:
        assert check_seed(seed) == seed and len(seed) == 32 and int(seed, 16).bit_length() <= 128
        assert seed == seed.lower()


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


def _secret_spawn_as_written(seed: str, index: int, empty: int, limit: int | None = None) -> tuple[int, int]:
    """docs/spawns.md for secret seeds, line by line (with an optional lower limit, to force rejections)."""
    key = bytes.fromhex(seed)
    m = 10 * empty
    if limit is None:
        limit = 2**64 - (2**64 % m)
    attempt = 0
    while True:
        message = index.to_bytes(8, "little") + attempt.to_bytes(8, "little")
        z = int.from_bytes(hashlib.blake2b(message, key=key, digest_size=8).digest(), "little")
        if z < limit:
            break
        attempt += 1
    r = z % m
    return r // 10, 2 if r % 10 == 0 else 1


@given(secret_seeds, st.integers(0, 10**6), st.integers(1, 36))
def test_the_secret_seed_draw_is_the_documented_algorithm(seed, index, empty):
    assert spawn_choice(seed, index, empty) == _secret_spawn_as_written(seed, index, empty)


def test_a_rejected_attempt_is_followed_by_the_next_one(monkeypatch):
    # Rejections happen with probability < 2^-55, so lower the limit to make one:
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


def test_a_rejected_secret_attempt_is_followed_by_the_next_one(monkeypatch):
    seed = "000102030405060708090a0b0c0d0e0f"
    # Lower the limit, as for integer seeds, so that spawn 1's first two attempts are rejected
    words = [secret_word(game_key(seed), 1, a) for a in range(3)]
    assert words[2] < min(words[:2])
    limits = list(spawn.LIMITS)
    limits[7] = min(words[:2])
    monkeypatch.setattr(spawn, "LIMITS", tuple(limits))
    assert spawn_choice(seed, 1, 7) == _secret_spawn_as_written(seed, 1, 7, limit=limits[7])
    assert spawn_choice(seed, 1, 7) != _secret_spawn_as_written(seed, 1, 7)


@pytest.mark.parametrize("empty", [0, 37, -1])
def test_a_spawn_needs_between_one_and_36_empty_cells(empty):
    with pytest.raises(ValueError, match="1 to 36 empty cells"):
        spawn_choice(5, 0, empty)
