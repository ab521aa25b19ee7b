"""The socket's answer to a move, written out as text, is exactly the JSON of the API's answer; a
move's board is made into lists only for an answer that reads them."""

from __future__ import annotations

import json

import pytest

from game2048 import Game
from game2048.server.live.answer import Position, answer, answer_text

BIG = [[2**37, 0, 0, 0, 0, 0]] + [[0] * 6 for _ in range(5)]

POSITIONS = [
    Position(0, [[2, 0], [0, 4]], 0, False, False, 3, True),
    Position(7, Game(4, 5).board, 1234, True, True, 0, False, (1, 2, 4), True, "LRZ",
             [(0, 1, 2), None, (3, 3, 4)]),
    Position(200_000, BIG, 10**15, False, True, 2, False, (5, 5, 2), False, "", []),
    Position(3, [[2, 2], [0, 0]], 4, False, False, 3, True, None, False, None, None, "[[2,2],[0,0]]"),
    Position(9, None, 8, False, False, 3, True, None, False, None, None, Game(3, 4).board_json(),
             Game(3, 4).board_later()),
]


@pytest.mark.parametrize("position", POSITIONS)
def test_the_answer_text_is_the_json_of_the_answer(position):
    assert answer_text("moves", position) == json.dumps({"op": "moves", **answer(position)},
                                                        separators=(",", ":"))


def test_a_board_made_later_is_the_board_when_the_move_was_answered_and_is_made_once():
    game = Game(4, seed=11)
    game.play("LD")
    board, made = game.board, []

    def later():
        made.append(1)
        return maker()

    maker = game.board_later()
    lazy = Position(2, None, game.score, False, False, 3, True, None, False, None, None, game.board_json(),
                    later)
    game.play("RU")  # the game goes on: the answer keeps the board it was given
    assert answer_text("moves", lazy) and made == []  # the text needs no lists
    assert lazy.board == board and lazy.board is lazy.board and made == [1]
    eager = Position(2, board, lazy.score, False, False, 3, True)
    assert lazy == eager
    assert lazy != Position(2, [[0] * 4 for _ in range(4)], lazy.score, False, False, 3, True)


# -- one table: every shape of a move's answer is made from ``PARTS`` ------------------------------

def test_every_shape_of_a_moves_answer_has_the_parts_of_the_one_table():
    from game2048.server.api.schemas import NewGameOut, PositionOut
    from game2048.server.live.answer import PARTS

    names = [p.name for p in PARTS]
    position = POSITIONS[1]
    assert list(PositionOut.model_fields) == names
    assert list(answer(position)) == names
    assert list(json.loads(answer_text("moves", position)))[1:] == names
    assert [f for f in NewGameOut.model_fields if f in names] == [p.name for p in PARTS if p.at_start]
    assert PositionOut.of(position).model_dump() == answer(position)


def test_the_pages_reader_reads_only_what_the_answers_have():
    """The browser's dealer reads a move's answer (``answer.x``) and the game-start answer
    (``issued.x``): each name it reads is a part of the table, the game-start answer's, or the
    error's shape, so renaming a part without the page fails here."""
    import re

    from game2048.server.api.schemas import NewGameOut, StateOut
    from game2048.server.live.answer import PARTS
    from game2048.web.assets import STATIC_DIR

    script = (STATIC_DIR / "js/server_dealer.js").read_text()
    read = set(re.findall(r"\banswer\??\.([a-z_]+)", script))
    errors = {"error", "status", "code", "offline"}  # errors.py's shape, and the page's own "offline"
    assert read and read <= {p.name for p in PARTS} | set(StateOut.model_fields) | errors, read - errors
    issued = set(re.findall(r"\bissued\.([a-z_]+)", script))
    assert issued and issued <= set(NewGameOut.model_fields), issued - set(NewGameOut.model_fields)


def test_the_python_dealer_reads_only_parts_of_the_table():
    from dataclasses import fields

    from game2048.dealer import State
    from game2048.server.live.answer import PARTS

    assert {f.name for f in fields(State)} <= {p.name for p in PARTS}
