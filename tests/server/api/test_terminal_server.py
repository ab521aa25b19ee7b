"""The terminal game's ServerDealer against the real server (``game2048 serve``), not a fake:
``game2048 play --server`` plays a ranked game the server deals, undoes, retries a lost
answer and finishes under the player's name, and the revealed record replays to what the
player saw."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from game2048 import Game, replay
from game2048.dealer import DealerError, ServerDealer
from game2048.rules import DIRECTIONS, LETTERS
from game2048.terminal.scores import BestScores
from game2048.terminal.session import Session

from ..serving import Server


@pytest.fixture
def server(database_url: str, tmp_path: Path):  # type: ignore[no-untyped-def]
    running = Server(database_url, tmp_path / "server.log")
    yield running
    running.kill()


class Watching(ServerDealer):
    """A ServerDealer that keeps every board the server showed the player."""

    def __init__(self, url: str, size: int) -> None:
        super().__init__(url, size)
        self.seen: list[list[list[int]]] = []

    def _read(self, answer):  # type: ignore[no-untyped-def]
        state = super()._read(answer)
        self.seen.append(state.board)
        return state


def test_a_terminal_session_plays_a_ranked_game_to_its_end_and_the_record_replays(server, tmp_path):
    dealer = Watching(server.url, 3)
    session = Session(dealer, BestScores(tmp_path / "best.json"), name=lambda: "cy")
    letters = ""
    while not session.state.over:
        played = next((d for d in DIRECTIONS if session.move(d)), None)
        assert played is not None, session.message
        letters += LETTERS[played]
    assert session.finished is not None and session.finished.ranked
    # the server checks its players' games in the background: no rank before it is on a board
    assert (session.finished.standing, session.finished.rank) == ("checking", None)
    assert "Being checked" in session.message and "Rank" not in session.message
    assert f"Seed {session.finished.seed}." in session.message
    record = httpx.get(f"{server.url}/api/games/{dealer.game_id}", timeout=20).json()
    assert (record["log"], record["name"], record["score"]) == (letters, "cy", session.state.score)
    game = replay(3, session.finished.seed, "")
    assert dealer.seen[0] == game.board  # the opening the server dealt
    for letter, board in zip(letters, dealer.seen[1:], strict=True):
        game.move(letter)
        assert board == game.board  # every tile the player saw came from the revealed seed


def test_undo_unranks_and_a_new_game_finishes_the_last_one(server, tmp_path):
    dealer = ServerDealer(server.url, 4)
    session = Session(dealer, BestScores(tmp_path / "best.json"), name=lambda: "bo")
    first = dealer.game_id
    assert any(session.move(d) for d in DIRECTIONS)
    assert session.undo() and not session.state.ranked and session.state.undos_left == 2
    assert any(session.move(d) for d in DIRECTIONS)
    session.new_game()
    assert session.message.startswith("Last game: ") and "Seed " in session.message
    record = httpx.get(f"{server.url}/api/games/{first}", timeout=20).json()
    assert record["ranked"] is False and record["log"][1] == "Z" and record["name"] == "bo"
    assert dealer.game_id != first and session.state.score == 0


def test_a_move_sent_again_from_the_same_at_gets_the_first_answer(server):
    dealer = ServerDealer(server.url, 4)
    opening = dealer.open()
    direction = next(d for d in DIRECTIONS if dealer.move(d) is not None)
    first = dealer._state
    dealer._at -= 1  # as if the answer had been lost: the dealer sends the same request again
    assert dealer._send(LETTERS[direction]) == first and dealer._at == 1
    assert first is not None and first.board != opening.board


def test_the_servers_refusal_reaches_the_player(server):
    dealer = ServerDealer(server.url, 4)
    legal = Game.from_board(dealer.open().board).legal_moves()[0]
    dealer._token = "forged"
    with pytest.raises(DealerError, match=r"403"):
        dealer.move(legal)


def test_game2048_solve_with_server_and_bot_plays_declared_bot_games_onto_the_engines_board(server):
    from typer.testing import CliRunner

    from game2048.cli import app

    r = CliRunner().invoke(app, ["solve", "--server", server.url, "--bot", "CliBot", "--size", "3",
                                 "--games", "2", "--max-moves", "30", "--json"])
    assert r.exit_code == 0, r.output
    played = json.loads(r.output.strip().splitlines()[-1])["games"]
    assert len(played) == 2 and all(g["ranked"] and g["moves"] == 30 for g in played)
    for g in played:
        record = httpx.get(f"{server.url}/api/games/{g['game_id']}").json()
        assert record["name"] == "CliBot" and replay(3, g["seed"], record["log"]).score == g["score"]
    engines = httpx.get(f"{server.url}/api/leaderboard", params={"size": 3, "board": "engines"}).json()
    players = httpx.get(f"{server.url}/api/leaderboard", params={"size": 3}).json()
    assert {e["name"] for e in engines["entries"]} == {"CliBot"} and players["entries"] == []


def test_solve_needs_both_server_and_bot():
    from typer.testing import CliRunner

    from game2048.cli import app

    r = CliRunner().invoke(app, ["solve", "--server", "http://127.0.0.1:9"])
    assert r.exit_code != 0 and "--bot" in r.output
