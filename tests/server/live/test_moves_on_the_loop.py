"""A move on a game its worker keeps takes no thread, over the socket or over HTTP: on SQLite it is
saved on the event loop's thread (a group commit), on PostgreSQL and Redis from the event loop on
connections of the loop's own (``moving.play_kept``). Whatever it cannot answer so goes to a thread
and reads the store."""

from __future__ import annotations

import pytest

from game2048.server.live import runner

from ..conftest import Api, Played, next_move
from ..conftest import socket_move as _move


@pytest.fixture
def no_threads(monkeypatch):  # type: ignore[no-untyped-def]
    """Fails a move handed to the movers' threads, once set."""
    def refuse():  # type: ignore[no-untyped-def]
        raise AssertionError("a kept game's move went to a thread")

    return lambda: monkeypatch.setattr(runner, "_movers", refuse)


def test_a_kept_games_moves_take_no_thread_and_are_stored(api: Api, no_threads) -> None:
    played = Played(api.start(4))
    with api.client.websocket_connect(f"/api/games/{played.issued['id']}/play") as ws:
        assert "status" not in _move(ws, played)  # not kept yet: read from the store
        no_threads()
        for _ in range(12):
            assert "status" not in _move(ws, played)
    state = api.state(played.issued).json()
    assert state["log"] == played.log and state["board"] == played.board


def test_a_kept_game_whose_move_is_refused_is_answered_from_the_store(api: Api) -> None:
    played = Played(api.start(4))
    with api.client.websocket_connect(f"/api/games/{played.issued['id']}/play") as ws:
        for _ in range(3):
            assert "status" not in _move(ws, played)
        wall = next((x for x in "LDRU" if x != next_move(played.board) and _blocked(played.board, x)), None)
        if wall is not None:
            refused = _move(ws, played, wall)
            assert refused["status"] == 422, refused
        ws.send_json({"op": "moves", "token": played.issued["token"], "at": played.at, "moves": "Q"})
        assert ws.receive_json()["status"] == 422
        assert "status" not in _move(ws, played)  # and the game goes on
    assert api.state(played.issued).json()["log"] == played.log


def _blocked(board: list[list[int]], letter: str) -> bool:
    from game2048 import slide

    direction = {"U": "up", "D": "down", "L": "left", "R": "right"}[letter]
    return slide(board, direction)[0] == board


def test_a_kept_games_http_moves_take_no_thread_and_are_stored(api: Api, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    played = api.play_on(Played(api.start(4)), 1)  # not kept yet: read from the store (SQLite: no thread)

    def refuse(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("a kept game's HTTP move went to a thread")

    monkeypatch.setattr(runner, "_movers", refuse)
    api.play_on(played, 12)
    monkeypatch.undo()
    state = api.state(played.issued).json()
    assert state["log"] == played.log and state["board"] == played.board
    # a retry from behind is answered as the first time (from the store, on a thread)
    again = api.moves(played.issued, played.at - 1, played.log[-1])
    assert again.status_code == 200 and again.json()["board"] == played.board
