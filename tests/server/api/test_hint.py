"""POST /api/hint: the solver's move for a board, 4xx for anything that is not a board."""

from __future__ import annotations

import pytest


def test_hint_gives_a_legal_move_and_scores(client):
    r = client.post("/api/hint", json={"size": 4, "board": [[2, 2, 0, 0], [0] * 4, [0] * 4, [0] * 4]})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["move"] in ("up", "down", "left", "right") and body["move"] in body["scores"]


def test_hint_on_a_stuck_board_is_null(client):
    stuck = [[2, 4, 2], [4, 2, 4], [2, 4, 2]]
    assert client.post("/api/hint", json={"size": 3, "board": stuck}).json() == {"move": None, "scores": {}}


@pytest.mark.parametrize("body", [
    {"size": 4, "board": [[3, 0, 0, 0], [0] * 4, [0] * 4, [0] * 4]},
    {"size": 4, "board": [[2, 0, 0], [0] * 3, [0] * 3]},
    {"size": 3, "board": [[0, 0, 0], [0, 0], [0, 0, 0]]},
    {"size": 3, "board": [[2048, 0, 0], [0] * 3, [0] * 3]},
    {"size": 4, "board": [[-2, 0, 0, 0], [0] * 4, [0] * 4, [0] * 4]},
    {"size": 7, "board": [[0] * 7] * 7},
    {"size": 3, "board": "2,2,0"},
    {"size": 3},
])
def test_hint_refuses_what_is_not_a_board(client, body):
    r = client.post("/api/hint", json=body)
    assert r.status_code == 422 and set(r.json()) == {"error"}, r.text



@pytest.fixture(scope="module")
def network():  # type: ignore[no-untyped-def]
    """A network after 600 training games, played by the learned preset while a test holds it."""
    from game2048.solver.learn.train import new_run, train

    run = new_run(seed=13)
    train(run, max_games=600, log=None)
    return run.weights


@pytest.fixture
def heuristic(monkeypatch):  # type: ignore[no-untyped-def]
    """The heuristic's searches the hint asks for, each answered ``up`` at once."""
    from game2048.solver import search

    asked: list[dict[str, object]] = []

    def analyse(board, **kwargs):  # type: ignore[no-untyped-def]
        asked.append({"size": len(board), **kwargs})
        return "up", {"up": 1.0}

    monkeypatch.setattr(search, "analyse", analyse)
    return asked


BOARD4 = [[2, 4, 8, 16], [0, 2, 4, 8], [0, 0, 2, 4], [0, 0, 0, 2]]
BOARD3 = [[2, 4, 0], [0, 2, 0], [0, 0, 8]]


def test_on_4x4_the_hint_is_the_networks_move_where_its_weights_are_there(client, network, heuristic):
    from game2048.solver import learned

    learned.use_network(network)
    try:
        answer = client.post("/api/hint", json={"size": 4, "board": BOARD4}).json()
        assert (answer["move"], answer["scores"]) == learned.analyse(BOARD4) and heuristic == []
        three = client.post("/api/hint", json={"size": 3, "board": BOARD3}).json()  # 4x4 only
        assert three == {"move": "up", "scores": {"up": 1.0}}
        assert heuristic == [{"size": 3, "time_limit": client.app.state.settings.hint_time}]
    finally:
        learned.use_network(None)


def test_without_the_weights_the_hint_is_the_heuristics(client, monkeypatch, heuristic):
    from game2048.solver import learned
    from game2048.solver.learn import shipped

    def missing(*_args, **_kwargs):  # type: ignore[no-untyped-def]
        raise shipped.NotInstalled("no shipped weights (as on a machine without them)")

    monkeypatch.setattr(shipped, "open_mapped", missing)
    learned.use_network(None)
    try:
        answer = client.post("/api/hint", json={"size": 4, "board": BOARD4}).json()
        assert answer == {"move": "up", "scores": {"up": 1.0}}
        assert heuristic == [{"size": 4, "time_limit": client.app.state.settings.hint_time}]
    finally:
        learned.use_network(None)


# -- a bare board's hints come at a person's pace ----------------------------------------------

BARE = {"size": 4, "board": [[2, 2, 0, 0], [0] * 4, [0] * 4, [0] * 4]}


def test_bare_board_hints_past_their_limit_are_a_429_that_says_when(settings, monkeypatch):
    from dataclasses import replace

    from fastapi.testclient import TestClient

    from game2048.server import create_app
    from game2048.solver import search

    monkeypatch.setattr(search, "analyse", lambda board, **kwargs: ("up", {"up": 1.0}))
    app = create_app(replace(settings, board_hint_rate_limit="3/minute", hint_rate_limit="20/second"))
    try:
        with TestClient(app) as client:
            codes = [client.post("/api/hint", json=BARE).status_code for _ in range(3)]
            refused = client.post("/api/hint", json=BARE)
            assert codes == [200, 200, 200] and refused.status_code == 429
            body = refused.json()
            assert body["code"] == "hints_paced" and "try again" in body["error"]
            assert 0 < int(refused.headers["retry-after"]) <= 60
            assert body["retry_after"] == int(refused.headers["retry-after"])
            # a game in play asks through itself, at autoplay's pace: not held by the bare limit
            game = client.post("/api/games", json={"size": 4}).json()
            through = client.post(f"/api/games/{game['id']}/hint", json={"token": game["token"], "at": 0})
            assert through.status_code == 200, through.text
            # nor is a practice game from its opening: its seed and log lead to the board
            from game2048 import Game

            practice = Game(4, 77)
            for letter in "LDRU" * 3:
                practice.play(letter)
            body = {"size": 4, "board": practice.board, "seed": 77, "log": practice.log}
            assert [client.post("/api/hint", json=body).status_code for _ in range(4)] == [200] * 4
            elsewhere = client.post("/api/hint", json=body | {"log": practice.log[:-1]})
            assert elsewhere.status_code == 422 and "where the practice game" in elsewhere.json()["error"]
            broken = client.post("/api/hint", json=body | {"log": "LLLLQ"})
            assert broken.status_code == 422 and "does not replay" in broken.json()["error"]
    finally:
        app.state.engine.dispose()


# -- a bare hint on a ranked game's board unranks that game -------------------------------------

def _turned(board: list[list[int]]) -> list[list[int]]:
    """``board`` a quarter turn clockwise, mirrored, every tile doubled: what a program might send
    so as not to send the board itself."""
    return [[2 * v for v in row][::-1] for row in zip(*board[::-1], strict=True)]


def test_a_ranked_game_that_stood_on_a_board_its_player_asked_about_bare_finishes_helped(api):
    played = api.served(4, 12)
    earlier = played.answers[5]["board"]  # any position of the game, not only the last
    assert api.client.post("/api/hint", json={"size": 4, "board": _turned(earlier)}).status_code == 200
    api.play_on(played, 4)
    done = api.finish(played.issued)
    assert done.status_code == 200, done.text
    assert (done.json()["ranked"], done.json()["helped"], done.json()["rank"]) == (False, True, None)
    assert api.finish(played.issued).json() == done.json()  # a retry: the same answer
    assert api.stored(played.issued["id"])["ranked"] is False
    # another game of the same client, on boards it never asked about, ranks as usual
    _, _, other = api.honest(4, 12)
    assert (other.json()["ranked"], other.json()["helped"]) == (True, False)


def test_only_the_client_that_asked_about_a_board_unranks_its_game(app, api):
    from game2048.server.live import asked
    from game2048.server.storage.db import utc_now

    played = api.served(4, 10)
    # the same board asked about from another network: no word on this client's game
    asked.note(app.state.store, app.state.secret, "203.0.113.5", played.board, utc_now())
    done = api.finish(played.issued)
    assert (done.json()["ranked"], done.json()["helped"]) == (True, False)
    # an IPv6 client is its /64: another address of it asking is the same client
    key = asked.client_of(app.state.secret, "2001:db8:1:2::1")
    assert key == asked.client_of(app.state.secret, "2001:db8:1:2:ffff::9")
    assert key != asked.client_of(app.state.secret, "2001:db8:1:3::1")
    assert "2001" not in key and "testclient" not in asked.client_of(app.state.secret, "testclient")


def test_a_refused_bare_hint_keeps_no_board(app, client):
    from datetime import timedelta

    from game2048.server.live import asked
    from game2048.server.storage.db import utc_now

    threes = [[3, 0, 0, 0], [0] * 4, [0] * 4, [0] * 4]
    for body in ({"size": 4, "board": threes}, {"size": 4, "board": "2,2"}):
        assert client.post("/api/hint", json=body).status_code == 422
    since = utc_now() - timedelta(hours=1)
    assert app.state.store.asked_since(asked.client_of(app.state.secret, "testclient"), since) == set()


def test_an_asked_board_is_known_turned_mirrored_and_at_either_scale_a_position_can_have():
    from game2048.server.live.asked import fingerprints

    board = [[2, 4, 0], [0, 8, 0], [0, 0, 16]]
    same = fingerprints(board)
    assert len(same) == 16  # no symmetry of its own: 8 layouts at 2 scales
    assert fingerprints(_turned(board)) == same == fingerprints([[v * 8 for v in row] for row in board])
    assert fingerprints([[2, 4, 0], [0, 8, 0], [0, 0, 32]]).isdisjoint(same)
