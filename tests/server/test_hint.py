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
