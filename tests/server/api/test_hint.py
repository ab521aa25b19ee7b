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
    finally:
        app.state.engine.dispose()
