"""Records replay exactly; bad records are refused with the position and reason."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game2048 import Game, RecordError, replay


def _played(n: int, seed: int | str, choices: list[int]) -> Game:
    game = Game(n, seed)
    for k in choices:
        if k == 4:
            game.undo()
        else:
            game.move("UDLR"[k])
    return game


@settings(max_examples=80)
@given(st.sampled_from([3, 4, 5, 6]), st.integers(0, 2**53 - 1), st.lists(st.integers(0, 4), max_size=300))
def test_replaying_a_record_reproduces_the_game(n, seed, choices):
    game = _played(n, seed, choices)
    again = replay(**game.record())
    assert (again.board, again.score, again.log, again.over, again.won, again.undos_left, again.ranked) == (
        game.board, game.score, game.log, game.over, game.won, game.undos_left, game.ranked,
    )


@settings(max_examples=80)
@given(st.sampled_from([3, 4, 5, 6]), st.binary(min_size=16, max_size=16).map(bytes.hex),
       st.lists(st.integers(0, 4), max_size=300))
def test_replaying_a_record_with_a_secret_seed_reproduces_the_game(n, seed, choices):
    game = _played(n, seed, choices)
    record = json.loads(json.dumps(game.record()))  # through JSON, where the seed is a string
    assert record["seed"] == seed
    again = replay(**record)
    assert (again.board, again.score, again.log, again.over, again.won, again.undos_left, again.ranked) == (
        game.board, game.score, game.log, game.over, game.won, game.undos_left, game.ranked,
    )


def test_a_secret_seed_is_never_read_as_the_integer_of_its_digits():
    # the generator is chosen by the seed's type: a string never falls back to SplitMix64
    openings = [(Game(4, f"{k:032x}").board, Game(4, k).board) for k in range(20)]
    assert any(secret != integer for secret, integer in openings)


@pytest.mark.parametrize("seed", ["", "0" * 31, "F" * 32, "not a seed", None, 2**53, -1, 1.5, [1]])
def test_a_malformed_seed_is_a_value_error_not_a_record_error(seed):
    with pytest.raises(ValueError, match="seed") as info:
        replay(4, seed, "")
    assert not isinstance(info.value, RecordError)


def _finished_game(n: int, seed: int) -> Game:
    game = Game(n, seed)
    k = 0
    while not game.over:
        game.move("DLRU"[k % 4] if k % 5 else "U")
        k += 1
    return game


@pytest.mark.parametrize(
    ("log", "position", "reason"),
    [
        ("X", 0, "unknown letter"),
        ("L R", 1, "unknown letter"),
        ("l", 0, "unknown letter"),
        ("Z", 0, "nothing|no move"),
    ],
)
def test_bad_letters_and_undo_with_nothing_to_undo(log, position, reason):
    with pytest.raises(RecordError, match=reason) as info:
        replay(4, 3, log)
    assert info.value.position == position


def test_an_illegal_move_is_a_bad_record():
    game = Game(4, 3)
    while game.move("left"):
        pass
    with pytest.raises(RecordError, match="does not change") as info:
        replay(4, 3, game.log + "L")
    assert info.value.position == len(game.log)


def test_a_fourth_undo_is_a_bad_record():
    game = Game(4, 8)
    for d in "LURDLURDLURD":
        game.move(d)
    log = game.log
    with pytest.raises(RecordError, match="fourth undo") as info:
        replay(4, 8, log + "ZZZZ")
    assert info.value.position == len(log) + 3


def test_a_move_after_game_over_is_a_bad_record():
    game = _finished_game(3, 21)
    for d in "UDLR":
        with pytest.raises(RecordError, match="after game over"):
            replay(3, 21, game.log + d)


def test_record_errors_are_value_errors():
    assert issubclass(RecordError, ValueError)
    with pytest.raises(ValueError):
        replay(7, 1, "")
    with pytest.raises(ValueError):
        replay(4, -1, "")
