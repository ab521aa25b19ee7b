"""The terminal game without a terminal: key map, layout, the session, best scores, both dealers."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from game2048 import DIRECTIONS, Game, replay
from game2048.dealer import DealerError, LocalDealer, ServerDealer
from game2048.rules import SIZES
from game2048.terminal.scores import BestScores
from game2048.terminal.screen import KEYMAP, layout, tile_text
from game2048.terminal.session import Session

INPUT_JS = Path(__file__).resolve().parent.parent / "src/game2048/web/static/js/input.js"


def test_the_key_map_is_the_browsers():
    """One key map for the project: the terminal's equals KEYMAP in input.js."""
    literal = re.search(r"KEYMAP = Object\.freeze\(\{(.*?)\}\)", INPUT_JS.read_text(), re.S)
    assert literal, "KEYMAP not found in input.js"
    browser = dict(re.findall(r"(\w+):\s*'(\w+)'", literal.group(1)))
    assert browser == KEYMAP
    assert {KEYMAP[k] for k in "khjl"} == {"up", "left", "down", "right"} and KEYMAP["k"] == "up"


@pytest.mark.parametrize("size", SIZES)
def test_every_board_fits_80_by_24_with_room_for_the_score_and_messages(size):
    grid = layout(24, 80, size)
    assert grid is not None
    lines, cols = grid.size(size)
    assert lines + 4 <= 24 and cols <= 80 and grid.cell_h >= 2


def test_a_window_too_small_gets_no_board():
    assert layout(8, 20, 6) is None
    assert layout(24, 80, 4) == layout(40, 120, 4)


def test_long_numbers_shorten_to_fit_a_narrow_cell():
    assert tile_text(2048, 8) == "2048"
    assert tile_text(131072, 8) == "131072"
    assert tile_text(131072, 5) == "128k"
    assert tile_text(67108864, 5) == "64M"
    assert tile_text(2**37, 6) == "128G"


# -- the session over the local dealer ------------------------------------------


@pytest.fixture
def scores(tmp_path: Path) -> BestScores:
    return BestScores(tmp_path / "data" / "terminal.json")


def test_a_local_session_plays_the_seeded_game(scores):
    session = Session(LocalDealer(4, seed=5), scores)
    game = Game(4, 5)
    assert session.state.board == game.board
    for d in ("left", "up", "up", "right", "down"):
        assert session.move(d) == game.move(d)
        assert session.state.board == game.board and session.state.score == game.score


def test_undo_takes_back_a_move_and_says_the_game_is_unranked(scores):
    session = Session(LocalDealer(4, seed=5), scores)
    opening = session.state.board
    assert session.move("left")
    assert session.undo()
    assert session.state.board == opening and session.state.undos_left == 2
    assert "no longer ranked" in session.message
    assert not session.undo() and session.message == "Nothing to undo."


def test_best_score_per_size_is_saved_and_read_back(scores, tmp_path):
    session = Session(LocalDealer(3, seed=1), scores)
    while not session.state.over:
        for d in DIRECTIONS:
            session.move(d)
    assert session.finished is not None and "Game over" in session.message and "Seed 1." in session.message
    best = session.state.score
    again = BestScores(tmp_path / "data" / "terminal.json")
    assert again.best(3) == best > 0 and again.best(4) == 0


def test_a_broken_best_score_file_is_ignored(tmp_path):
    path = tmp_path / "terminal.json"
    path.write_text("{not json")
    scores = BestScores(path)
    assert scores.best(4) == 0
    assert scores.offer(4, 100) and json.loads(path.read_text()) == {"best": {"4": 100}}


def test_a_new_game_opens_with_a_fresh_seed(scores):
    dealer = LocalDealer(4, seed=5)
    session = Session(dealer, scores)
    session.move("left")
    session.new_game()
    assert dealer.game is not None and dealer.game.seed != 5 and session.state.score == 0


# -- the server dealer against a small fake of the ranked-game API (tests/conftest.py) --


def test_the_server_dealer_plays_a_ranked_game_and_the_revealed_record_replays(fake):
    state, url = fake
    dealer = ServerDealer(url, 4)
    opening = dealer.open()
    assert "seed" not in json.dumps(state.requests)
    game = Game(4, 5)
    assert opening.board == game.board
    for d in ("left", "up", "right", "down", "left", "up"):
        answer = dealer.move(d)
        assert (answer is not None) == game.move(d)
        assert dealer._state is not None and dealer._state.board == game.board
    done = dealer.finish("ada")
    assert done.seed == 5 and done.ranked and done.rank == 1 and done.score == game.score
    assert replay(4, done.seed, state.games["g1"]["log"]).board == game.board
    assert state.games["g1"]["name"] == "ada"


def test_a_move_that_changes_nothing_is_refused_without_a_request(fake):
    state, url = fake
    dealer = ServerDealer(url, 4)
    opening = dealer.open()
    blocked = next(d for d in DIRECTIONS if Game.from_board(opening.board).legal_moves().count(d) == 0)
    sent = len(state.requests)
    assert dealer.move(blocked) is None and len(state.requests) == sent


def test_undo_is_sent_as_z_and_the_game_becomes_unranked(fake):
    state, url = fake
    dealer = ServerDealer(url, 4)
    opening = dealer.open()
    assert dealer.undo() is None  # nothing to take back: no request
    legal = Game.from_board(opening.board).legal_moves()[0]
    dealer.move(legal)
    after = dealer.undo()
    assert after is not None and after.board == opening.board and not after.ranked and after.undos_left == 2
    assert state.games["g1"]["log"].endswith("Z")
    assert dealer.finish("bo").ranked is False


def test_a_lost_answer_is_asked_again_with_the_same_at_and_gets_the_same_answer(fake):
    state, url = fake
    dealer = ServerDealer(url, 4)
    opening = dealer.open()
    legal = Game.from_board(opening.board).legal_moves()[0]
    state.drop_next_answer = True
    answer = dealer.move(legal)
    moves = [body for path, body in state.requests if path.endswith("/moves")]
    assert len(moves) == 2 and moves[0] == moves[1] and moves[0]["at"] == 0
    game = Game(4, 5)
    game.move(legal)
    assert answer is not None and answer.board == game.board and state.games["g1"]["log"] == game.log


def test_a_refusal_reaches_the_player_in_the_servers_words(fake):
    _, url = fake
    dealer = ServerDealer(url, 4)
    dealer.open()
    dealer._token = "forged"
    legal = Game.from_board(dealer._state.board).legal_moves()[0]
    with pytest.raises(DealerError, match=r"refused \(403\): wrong token"):
        dealer.move(legal)


def test_an_unreachable_server_is_said_plainly(tmp_path):
    dealer = ServerDealer("http://127.0.0.1:9", 4, retries=1, timeout=2)
    with pytest.raises(DealerError, match="cannot reach"):
        dealer.open()


def test_a_session_over_the_server_finishes_a_ranked_game_under_the_players_name(fake, scores):
    state, url = fake
    session = Session(ServerDealer(url, 3), scores, name=lambda: "cy")
    while not session.state.over:
        if not any(session.move(d) for d in DIRECTIONS):
            break
    assert session.finished is not None and session.finished.rank == 1
    assert "Rank 1." in session.message and state.games["g1"]["name"] == "cy"
    assert scores.best(3) == session.state.score


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["--size", "7"], 2, "board size must be one of 3, 4, 5, 6"),
        (["--seed", "-1"], 2, "seed must be an integer"),
        (["--server", "http://127.0.0.1:9", "--seed", "3"], 2, "leave out --seed"),
        ([], 1, "needs a terminal"),
    ],
)
def test_play_refuses_bad_options_and_a_missing_terminal_with_one_line(args, code, message):
    """Bad usage exits with 2, a missing terminal (a failure) with 1: one line either way."""
    done = subprocess.run(
        [str(Path(sys.executable).parent / "game2048"), "play", *args],
        capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120,
    )  # fmt: skip
    assert done.returncode == code and message in done.stderr and done.stderr.count("\n") == 1
