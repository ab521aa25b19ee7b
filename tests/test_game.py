"""Games: legal moves, undo, winning, game over, from_board, the large tiles."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game2048 import Game, slide
from game2048.engine import tables
from game2048.rules import DIRECTIONS
from game2048.spawn import generator


def test_illegal_move_changes_nothing_and_is_not_recorded():
    game = Game.from_board([[2, 4, 2, 4], [0] * 4, [0] * 4, [0] * 4])
    assert not game.move("left")
    assert game.board[0] == [2, 4, 2, 4] and game.log == "" and game.score == 0


def test_legal_move_slides_scores_and_spawns_one_tile():
    game = Game.from_board([[2, 2, 0, 0], [0] * 4, [0] * 4, [0] * 4])
    assert game.move("left")
    tiles = sorted(v for row in game.board for v in row if v)
    assert game.score == 4 and game.board[0][0] == 4 and len(tiles) == 2 and tiles[0] in (2, 4)
    assert game.log == "L" and game.moves == 1


def test_directions_accept_log_letters():
    a, b = Game(4, 11), Game(4, 11)
    for d in DIRECTIONS:
        assert a.move(d) == b.move(d[0].upper())
    assert a.board == b.board


def test_unknown_direction_is_an_error():
    with pytest.raises(ValueError, match="direction"):
        Game(4, 1).move("north")


def test_undo_restores_board_and_score_and_unranks():
    game = Game.from_board([[2, 2, 4, 4], [0] * 4, [0] * 4, [0] * 4])
    before = game.board
    assert game.ranked
    assert game.move("left")
    assert game.undo()
    assert game.board == before and game.score == 0 and game.log == "LZ"
    assert game.undos_left == 2 and not game.ranked


def test_at_most_three_undos():
    game = Game(4, 5)
    done = 0
    for d in "LRUDLRUDLRUD":
        if game.move(d):
            done += 1
    assert done >= 4
    assert [game.undo() for _ in range(4)] == [True, True, True, False]
    assert game.undos_left == 0


def test_undo_with_nothing_to_undo_fails():
    game = Game(4, 5)
    assert not game.undo() and game.undos_left == 3 and game.log == ""


def test_3x3_wins_at_256():
    game = Game.from_board([[128, 128, 0], [0, 0, 0], [0, 0, 0]])
    assert not game.won and game.target == 256
    assert game.move("left")
    assert game.won and game.max_tile == 256


def test_4x4_does_not_win_at_256_but_at_2048():
    game = Game.from_board([[128, 128, 0, 0], [1024, 1024, 0, 0], [0] * 4, [0] * 4])
    assert game.move("right") and game.won


def test_a_win_on_the_last_move_is_still_a_win():
    # after the merge the board is full with no pair, whatever the spawn
    game = Game.from_board([[128, 128, 4], [4, 16, 32], [32, 64, 128]])
    assert game.move("left")
    assert game.won


def test_game_over_only_when_full_and_no_pair():
    assert Game.from_board([[2, 4, 8], [4, 8, 16], [8, 16, 32]]).over
    assert not Game.from_board([[2, 4, 8], [4, 8, 16], [8, 16, 16]]).over
    assert not Game.from_board([[2, 4, 8], [4, 8, 16], [8, 16, 0]]).over


@pytest.mark.parametrize(("n", "top"), [(3, 1024), (4, 131072), (5, 67108864), (6, 137438953472)])
def test_the_largest_tile_of_each_size_is_exact(n, top):
    board = [[0] * n for _ in range(n)]
    board[0][0] = board[0][1] = top // 2
    game = Game.from_board(board)
    assert game.move("left")
    assert game.max_tile == top and game.score == top and game.board[0][0] == top


@pytest.mark.parametrize(
    "bad",
    [
        [[2, 0], [0, 0]],
        [[0, 0, 0], [0, 0], [0, 0, 0]],
        [[3, 0, 0], [0, 0, 0], [0, 0, 0]],
        [[2048, 0, 0], [0, 0, 0], [0, 0, 0]],  # above 3x3's largest possible tile
    ],
)
def test_from_board_rejects_bad_positions(bad):
    with pytest.raises(ValueError):
        Game.from_board(bad)


moves = st.text(alphabet="UDLR", max_size=200)


@settings(max_examples=60, deadline=None)  # a 6x6 example is slow on a loaded machine
@given(st.sampled_from([3, 4, 5, 6]), st.integers(0, 2**53 - 1), moves)
def test_engine_agrees_with_the_plain_rules(n, seed, letters):
    game = Game(n, seed)
    for letter in letters:
        d = {"U": "up", "D": "down", "L": "left", "R": "right"}[letter]
        before, score = game.board, game.score
        expected, points = slide(before, d)
        legal = expected != before
        assert game.move(d) == legal
        if legal:
            spawned = [
                (r, c) for r in range(n) for c in range(n) if game.board[r][c] != expected[r][c]
            ]
            assert len(spawned) == 1 and expected[spawned[0][0]][spawned[0][1]] == 0
            assert game.score == score + points
        else:
            assert game.board == before
        assert game.over == (not any(slide(game.board, x)[0] != game.board for x in DIRECTIONS))


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([3, 4, 5, 6]),
       st.integers(0, 2**53 - 1) | st.binary(min_size=16, max_size=16).map(bytes.hex),
       st.text("UDLRZ", max_size=120), st.sets(st.integers(0, 120)))
def test_a_game_resumed_from_snapshots_deals_what_replay_deals(n, seed, letters, pauses):
    """Snapshots carry no log and at most 3 undo positions, yet the game goes on exactly."""
    import json

    from game2048 import replay

    game = Game(n, seed)
    for i, letter in enumerate(letters):
        if i in pauses:  # through JSON, as the server keeps it
            game = Game.resume(json.loads(json.dumps(game.snapshot())), game.log)
        game.undo() if letter == "Z" else game.move(letter)
    again = replay(n, seed, game.log)
    assert (game.board, game.score, game.moves, game.undos_left, game.won, game.over) == (
        again.board, again.score, again.moves, again.undos_left, again.won, again.over)
    assert len(game.snapshot()["undo"]) == min(game.undos_left, game.moves)


def test_a_snapshot_that_is_not_one_is_refused():
    snap = Game(4, 1).snapshot()
    for bad in ({**snap, "undo": [[snap["board"], 0]]}, {**snap, "size": 5}, {"board": snap["board"]},
                {**snap, "undos_left": 7}, {**snap, "seed": "0" * 31}, {**snap, "seed": None}):
        with pytest.raises(ValueError):
            Game.resume(bad)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.integers(0, 17), min_size=16, max_size=16),
    st.integers(0, 3),
    st.integers(0, 2**20),
    st.integers(0, 2**53 - 1) | st.binary(min_size=16, max_size=16).map(bytes.hex),
)
def test_the_written_out_4x4_step_is_the_general_step(cells, d, index, seed):
    t = tables(4)
    board = t.pack([cells[r * 4 : (r + 1) * 4] for r in range(4)])
    key, draw = generator(seed)
    assert t._stepper4(d, draw)(board, index, key) == t._stepper(d, draw)(board, index, key)


def _played(size=4, seed=11, moves="LURDLLURRDLU", undos=1):
    game = Game(size, seed)
    for letter in moves:
        game.move(letter)
    for _ in range(undos):
        game.undo()
    return game


def _same(a, b):
    return (a.board, a.score, a.log, a.moves, a.undos_left, a.won, a.over, a.ranked, a.record()) == (
        b.board, b.score, b.log, b.moves, b.undos_left, b.won, b.over, b.ranked, b.record())


def _undo_all_then_move(game):
    boards = []
    while game.undo():
        boards.append(game.board)
    game.move("left") or game.move("right")
    return boards, game.board, game.log


@pytest.mark.parametrize("copy_of", ["pickle", "deepcopy", "copy", "resumed+deepcopy", "compacted+pickle"])
def test_a_copied_game_is_the_same_game_including_what_undo_can_reach(copy_of):
    import copy
    import pickle

    game = _played()
    if copy_of == "resumed+deepcopy":
        game = Game.resume(game.snapshot(), game.log)
    if copy_of == "compacted+pickle":
        game.compact()
    dump = lambda g: pickle.loads(pickle.dumps(g))  # noqa: E731
    twin = {"pickle": dump, "deepcopy": copy.deepcopy, "copy": copy.copy, "resumed+deepcopy": copy.deepcopy,
            "compacted+pickle": dump}[copy_of](game)
    assert twin is not game and _same(twin, game)
    assert _undo_all_then_move(twin) == _undo_all_then_move(game)
    assert _same(twin, game)


def _finish_in_worker(game):
    game.undo()
    game.move("up") or game.move("down")
    return game


def test_a_game_goes_through_multiprocessing():
    import multiprocessing

    games = [_played(3, 5), Game.from_board([[128, 128, 0], [0, 0, 0], [0, 0, 0]], seed=2), _played(6, 1)]
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        back = pool.map(_finish_in_worker, games)
    for sent, got in zip(games, back, strict=True):
        assert _same(got, _finish_in_worker(sent))


def test_str_draws_the_board_and_the_score():
    game = Game.from_board([[2, 0, 0, 0], [0, 2048, 0, 0], [0, 0, 0, 0], [0, 0, 0, 4]], score=7)
    assert str(game).splitlines() == [
        "   2    .    .    .",
        "   . 2048    .    .",
        "   .    .    .    .",
        "   .    .    .    4",
        "score: 7",
    ]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([3, 4, 5, 6]),
       st.integers(0, 2**53 - 1) | st.binary(min_size=16, max_size=16).map(bytes.hex),
       st.text("UDLRZ", max_size=120))
def test_the_snapshots_text_is_the_json_of_the_snapshot(n, seed, letters):
    """What a server stores with every move: the same text as ``json.dumps`` of the snapshot."""
    import json

    game = Game(n, seed)
    game.play(letters)
    game.helped = len(letters) % 2 == 1
    assert game.snapshot_json() == json.dumps(game.snapshot(), separators=(",", ":"))
    assert game.board_json() == json.dumps(game.board, separators=(",", ":"))


def test_the_snapshots_text_holds_the_largest_tiles_exactly():
    board = [[2 ** (6 * r + c + 1) if 6 * r + c < 36 else 0 for c in range(6)] for r in range(6)]
    board[5][5] = 2**37
    game = Game.from_board(board, score=10**15)
    import json

    assert json.loads(game.snapshot_json())["board"] == board
    assert game.board is not game.board and game.board == board  # a fresh list each time
    game.board[0][0] = 0
    assert game.board == board  # changing the list changes nothing of the game


@pytest.mark.parametrize("slack", [0, 1, 8])
def test_a_game_compacted_after_every_letter_plays_as_one_never_compacted(slack):
    """As a server keeps a game between moves: compacted (with ``slack``) after every letter, undos
    among them, it deals, scores, takes back and reports each last tile as the whole game does,
    and never holds more than ``slack`` positions beyond what undo reaches."""
    whole, kept = Game(4, 11), Game(4, 11)
    for i in range(300):
        undo = i % 37 == 5 and whole.undos_left
        letter = "Z" if undo else next((m for m in "LDRU" if whole.play(m)), None)
        if letter is None:
            break
        if letter == "Z":
            whole.play("Z")
        assert kept.play(letter) == 1
        kept.compact(slack=slack)
        assert (kept.board, kept.score, kept.moves, kept.undos_left, kept.won, kept.over) == (
            whole.board, whole.score, whole.moves, whole.undos_left, whole.won, whole.over)
        assert kept.last_tile() == whole.last_tile()
        assert list.__len__(kept._history) <= max(slack, kept.undos_left, 1)
    assert i > 100 and kept.undos_left == 0
    while whole.undo():  # nothing left to take back: both refuse alike
        pass
    assert not kept.undo()


@pytest.mark.parametrize("size", [3, 4, 5, 6])
def test_the_last_tile_the_move_noted_is_the_one_a_second_slide_finds(size):
    """``last_tile`` reads where the move's spawn went; a game that did not play its last letter
    itself (unpickled, resumed) slides the position before it again: both say the same tile."""
    import pickle

    game, seen = Game(size, 23), 0
    for i in range(400):
        order = "LURD"[i % 4:] + "LURD"[:i % 4]
        legal = [m for m in order if pickle.loads(pickle.dumps(game)).play(m)]
        letter = "Z" if i % 29 == 7 and game.undos_left else next(iter(legal), None)
        if letter is None:
            break
        assert game.play(letter) == 1
        twin = pickle.loads(pickle.dumps(game))
        assert twin._spawned is None and twin.last_tile() == game.last_tile()
        if letter != "Z":
            row, col, value = game.last_tile()
            assert game.board[row][col] == value in (2, 4)
            seen += 1
    assert seen >= 20  # (a 3x3 game ends soon)


@pytest.mark.parametrize("size", [3, 4, 5, 6])
def test_the_whole_board_empty_cell_test_agrees_with_the_cells_one_by_one(size):
    """``Tables.has_empty`` (one subtraction on the packed board) against each cell looked at:
    boards with no, one or many empty cells, the largest tiles among them."""
    import random

    from game2048.engine import tables

    t, rng = tables(size), random.Random(size)
    top = t.cell_mask
    for _ in range(3000):
        cells = [rng.choice([rng.randint(1, top), top, 1]) for _ in range(size * size)]
        for i in rng.sample(range(size * size), rng.choice([0, 0, 1, 2, size * size])):
            cells[i] = 0
        board = t.pack([cells[r * size:(r + 1) * size] for r in range(size)])
        assert t.has_empty(board) == (0 in cells) == bool(t.empty_mask(board)), cells
