"""The rules as the rules pages state them: slides, merges, points, game over."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from game2048 import slide, slide_row
from game2048.rules import DIRECTIONS, TARGETS, can_move, max_tile_for

# (before, after, points) for a move to the left, from the rules pages
WORKED_LEFT = [
    ([2, 2, 2, 2], [4, 4, 0, 0], 8),
    ([4, 2, 2, 0], [4, 4, 0, 0], 4),
    ([2, 2, 4, 0], [4, 4, 0, 0], 4),
    ([2, 2, 2, 0], [4, 2, 0, 0], 4),
    ([2, 0, 0, 2], [4, 0, 0, 0], 4),
    ([8, 4, 4, 8], [8, 8, 8, 0], 8),
    ([2, 4, 2, 4], [2, 4, 2, 4], 0),
    ([4, 4, 4, 4], [8, 8, 0, 0], 16),
    ([4, 4, 4, 0], [8, 4, 0, 0], 8),
    ([0, 0, 0, 2], [2, 0, 0, 0], 0),
]


@pytest.mark.parametrize(("before", "after", "points"), WORKED_LEFT)
def test_worked_examples_left(before, after, points):
    assert slide_row(before) == (after, points)


@pytest.mark.parametrize(("before", "after", "points"), WORKED_LEFT)
def test_worked_examples_mirror_to_the_right(before, after, points):
    board, gained = slide([before[::-1]] * 4, "right")
    assert board == [after[::-1]] * 4
    assert gained == 4 * points


def test_pairing_starts_at_the_wall_pushed_toward():
    assert slide([[2, 2, 2, 0]] * 4, "right")[0][0] == [0, 0, 2, 4]


def test_merged_tile_does_not_merge_again():
    assert slide_row([4, 4, 8, 0]) == ([8, 8, 0, 0], 8)


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_columns_move_like_rows(direction):
    board = [[2, 0, 0], [2, 4, 0], [4, 4, 0]]
    transposed = [list(c) for c in zip(*board, strict=True)]
    swap = {"up": "left", "down": "right", "left": "up", "right": "down"}
    moved, points = slide(board, direction)
    moved_t, points_t = slide(transposed, swap[direction])
    assert moved == [list(c) for c in zip(*moved_t, strict=True)]
    assert points == points_t


def test_targets_and_largest_tiles():
    assert TARGETS == {3: 256, 4: 2048, 5: 2048, 6: 2048}
    assert [max_tile_for(n) for n in (3, 4, 5, 6)] == [1024, 131072, 67108864, 137438953472]


def test_largest_6x6_merge_is_exact():
    half = 1 << 36
    assert slide_row([half, half, 0, 0, 0, 0]) == ([137438953472, 0, 0, 0, 0, 0], 137438953472)


def test_full_board_with_a_pair_is_not_over():
    assert can_move([[2, 4, 8], [4, 8, 2], [8, 2, 2]])
    assert not can_move([[2, 4, 8], [4, 8, 2], [8, 2, 4]])


@pytest.mark.parametrize("bad", [[3, 0, 0], [2, -2, 0], [1, 0, 0], [2.0, 0, 0], ["2", 0, 0], [True, 0, 0]])
def test_slide_row_rejects_non_tiles(bad):
    with pytest.raises(ValueError):
        slide_row(bad)


def test_slide_rejects_bad_direction_and_shape():
    with pytest.raises(ValueError):
        slide([[0] * 4] * 4, "north")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        slide([[0] * 4] * 3, "up")


tiles = st.sampled_from([0, 0, 0, 2, 2, 4, 8, 16, 32, 1024])
boards = st.integers(3, 6).flatmap(
    lambda n: st.lists(st.lists(tiles, min_size=n, max_size=n), min_size=n, max_size=n)
)


@given(boards, st.sampled_from(DIRECTIONS))
def test_slide_conserves_the_sum_of_tiles(board, direction):
    moved, _ = slide(board, direction)
    assert sum(map(sum, moved)) == sum(map(sum, board))


@given(boards, st.sampled_from(DIRECTIONS))
def test_points_equal_the_value_of_new_tiles(board, direction):
    moved, points = slide(board, direction)
    before, after = sorted(v for r in board for v in r if v), sorted(v for r in moved for v in r if v)
    merges = len(before) - len(after)
    assert merges >= 0
    assert (points == 0) == (merges == 0)


@given(boards)
def test_over_iff_no_direction_changes_the_board(board):
    changes = any(slide(board, d)[0] != board for d in DIRECTIONS)
    assert can_move(board) == changes
