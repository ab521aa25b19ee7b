"""The socket's answer to a move, written out as text, is exactly the JSON of the API's answer."""

from __future__ import annotations

import json

import pytest

from game2048 import Game
from game2048.server.api.schemas import answer, answer_text
from game2048.server.live.mover import Position

BIG = [[2**37, 0, 0, 0, 0, 0]] + [[0] * 6 for _ in range(5)]

POSITIONS = [
    Position(0, [[2, 0], [0, 4]], 0, False, False, 3, True),
    Position(7, Game(4, 5).board, 1234, True, True, 0, False, (1, 2, 4), True, "LRZ",
             [(0, 1, 2), None, (3, 3, 4)]),
    Position(200_000, BIG, 10**15, False, True, 2, False, (5, 5, 2), False, "", []),
    Position(3, [[2, 2], [0, 0]], 4, False, False, 3, True, None, False, None, None, "[[2,2],[0,0]]"),
]


@pytest.mark.parametrize("position", POSITIONS)
def test_the_answer_text_is_the_json_of_the_answer(position):
    assert answer_text("moves", position) == json.dumps({"op": "moves", **answer(position)},
                                                        separators=(",", ":"))
