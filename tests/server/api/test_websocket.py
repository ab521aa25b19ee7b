"""The WebSocket /api/games/{id}/play: the same requests and answers as HTTP, one message each."""

from __future__ import annotations

import json

import pytest
from starlette.testclient import WebSocketDenialResponse

from game2048 import replay, slide

from ..conftest import next_move

POSITION = {"op", "at", "board", "score", "over", "won", "undos_left", "ranked", "tile", "applied", "tiles",
            "helped"}


def test_a_game_played_over_the_socket_matches_http_and_is_revealed_at_the_finish(api):
    issued = api.start(4)
    with api.client.websocket_connect(f"/api/games/{issued['id']}/play") as ws:
        board, at, log = issued["board"], 0, ""
        for _ in range(30):
            letter = next_move(board)
            ws.send_json({"op": "moves", "token": issued["token"], "at": at, "moves": letter})
            answer = ws.receive_json()
            assert set(answer) == POSITION and answer["op"] == "moves" and answer["at"] == at + 1
            board, at, log = answer["board"], answer["at"], log + letter
        http = api.moves(issued, at - 1, log[-1]).json()  # the same retry over HTTP: the same answer
        assert {**http, "op": "moves"} == answer
        ws.send_json({"op": "state", "token": issued["token"]})
        assert ws.receive_json() == {**answer, "op": "state", "log": log}  # the state says the last tile too
        ws.send_json({"op": "finish", "token": issued["token"], "name": "Socket", "log": log})
        done = ws.receive_json()
    assert done["op"] == "finish" and done["verified"] and done["ranked"]
    assert replay(4, done["seed"], log).board == board


def test_pipelined_messages_are_answered_in_order(api):
    issued = api.start(4)
    letter = next_move(issued["board"])
    with api.client.websocket_connect(f"/api/games/{issued['id']}/play") as ws:
        ws.send_json({"op": "moves", "token": issued["token"], "at": 0, "moves": letter})
        ws.send_json({"op": "moves", "token": issued["token"], "at": 0, "moves": letter})  # a retry
        ws.send_json({"op": "state", "token": issued["token"]})
        first, again, state = ws.receive_json(), ws.receive_json(), ws.receive_json()
    assert {**first, "op": "x"} == {**again, "op": "x"} and state["at"] == 1


BAD_MESSAGES = [
    ("not json", "{", None, 422),
    ("not an object", "[1]", None, 422),
    ("no op", json.dumps({"token": "t"}), None, 422),
    ("unknown op", json.dumps({"op": "teleport"}), "teleport", 422),
    ("missing token", json.dumps({"op": "moves", "at": 0, "moves": "L"}), "moves", 422),
    ("at as text", json.dumps({"op": "moves", "token": "t", "at": "0", "moves": "L"}), "moves", 422),
    ("too many moves", json.dumps({"op": "moves", "token": "t", "at": 0, "moves": "L" * 65}), "moves", 422),
    ("empty moves", json.dumps({"op": "moves", "token": "t", "at": 0, "moves": ""}), "moves", 422),
    ("wrong token", json.dumps({"op": "moves", "token": "t", "at": 0, "moves": "L"}), "moves", 403),
    ("bad name", json.dumps({"op": "finish", "token": "t", "name": "a\nb"}), "finish", 422),
    ("over 64 KiB", json.dumps({"op": "finish", "token": "t", "name": "x", "log": "L" * 70_000}), None, 413),
]


@pytest.mark.parametrize(("what", "text", "op", "status"), BAD_MESSAGES, ids=[b[0] for b in BAD_MESSAGES])
def test_a_bad_message_gets_an_error_answer_and_the_socket_stays_open(api, what, text, op, status):
    issued = api.start(4)
    with api.client.websocket_connect(f"/api/games/{issued['id']}/play") as ws:
        ws.send_json({"op": "state", "token": issued["token"]})  # the first message holds the token
        assert ws.receive_json()["at"] == 0
        ws.send_text(text)
        answer = ws.receive_json()
        assert set(answer) - {"code"} == {"op", "status", "error"} and answer["error"], what
        assert (answer["op"], answer["status"]) == (op, status), answer
        ws.send_bytes(b"\x00\x01")
        assert ws.receive_json()["status"] == 422
        ws.send_json({"op": "state", "token": issued["token"]})
        assert ws.receive_json()["at"] == 0  # still open, and nothing changed


def test_refusals_over_the_socket_carry_the_http_status(api):
    played = api.served(4, 4)
    issued = played.issued
    with api.client.websocket_connect(f"/api/games/{issued['id']}/play") as ws:
        ws.send_json({"op": "moves", "token": issued["token"], "at": 9, "moves": "L"})
        assert ws.receive_json()["status"] == 409
        ws.send_json({"op": "moves", "token": issued["token"], "at": 0, "moves": "ZZZZ"})
        assert ws.receive_json()["status"] == 409  # from behind with other letters: a fork
        ws.send_json({"op": "finish", "token": issued["token"], "name": ""})
        assert ws.receive_json()["status"] == 422
    with pytest.raises(WebSocketDenialResponse) as refused:
        api.client.websocket_connect("/api/games/nope/play").__enter__()
    assert refused.value.status_code == 404 and "error" in refused.value.json()


@pytest.mark.parametrize("depth", [100, 20_000, 30_000, 60_000])
def test_a_message_nested_at_any_depth_gets_the_422_http_gives(api, depth):
    issued = api.start(4)
    with api.client.websocket_connect(f"/api/games/{issued['id']}/play") as ws:
        ws.send_json({"op": "state", "token": issued["token"]})
        assert ws.receive_json()["at"] == 0
        ws.send_text("[" * depth)
        answer = ws.receive_json()
        assert answer["status"] == 422, answer
        inner = min(depth, 30_000)  # both brackets stay under the 64 KiB a message may hold
        ws.send_text('{"op": "state", "token": ' + "[" * inner + "]" * inner + "}")
        assert ws.receive_json()["status"] == 422
        ws.send_text('{"op": "moves", "token": "t", "at": 1' + "0" * 50 + ', "moves": "L"}')
        assert ws.receive_json()["status"] == 422  # a number of 50 digits, as over HTTP


def test_keys_sent_before_their_tiles_were_known_are_played_or_dropped_like_keys_against_a_wall(api):
    """skip_illegal: a batch of keys pressed while the page waited; what the rules refuse is dropped,
    the answer lists what was played with each tile, and sending it again is a retry."""
    from game2048 import slide

    issued = api.start(3)
    with api.client.websocket_connect(f"/api/games/{issued['id']}/play") as ws:
        board, at = issued["board"], 0

        def against_a_wall(board):  # type: ignore[no-untyped-def]
            return [x for x, d in (("U", "up"), ("D", "down"), ("L", "left"), ("R", "right"))
                    if slide(board, d)[0] == board]

        while not against_a_wall(board) or at < 4:
            ws.send_json({"op": "moves", "token": issued["token"], "at": at, "moves": next_move(board)})
            answer = ws.receive_json()
            board, at = answer["board"], answer["at"]
        blocked = against_a_wall(board)
        keys = [*blocked[:1], next_move(board), "L", "R", "U", "D"][:6]
        message = {"op": "moves", "token": issued["token"], "at": at, "moves": "".join(keys),
                   "skip_illegal": True}
        ws.send_json(message)
        first = ws.receive_json()
        assert "error" not in first, first
        assert first["applied"] and len(first["applied"]) < len(keys)
        assert first["at"] == at + len(first["applied"])
        assert len(first["tiles"]) == len(first["applied"])
        assert first["tiles"][-1] == first["tile"]
        ws.send_json(message)  # the same keys again (a lost answer): the same answer, nothing played twice
        again = ws.receive_json()
        assert {**again, "op": 0} == {**first, "op": 0}
        ws.send_json({"op": "state", "token": issued["token"]})
        assert ws.receive_json()["at"] == first["at"]



WORDS = {"L": "left", "R": "right", "U": "up", "D": "down"}


def _chain_keys(api, keys: str) -> list[dict]:
    """Plays one game whose keys after the first are all sent at once, chained; checks its answers
    against the record's replay and gives them back."""
    issued = api.start(4)
    token = issued["token"]
    with api.client.websocket_connect(f"/api/games/{issued['id']}/play") as ws:
        ws.send_json({"op": "moves", "token": token, "at": 0, "moves": next_move(issued["board"])})
        for key in keys:  # all sent before any answer is read
            ws.send_json({"op": "moves", "token": token, "chain": True, "moves": key, "skip_illegal": True})
        answers = [ws.receive_json() for _ in range(len(keys) + 1)]
        ws.send_json({"op": "state", "token": token})
        state = ws.receive_json()
        ws.send_json({"op": "finish", "token": token, "name": "Chain"})
        done = ws.receive_json()
    assert all("error" not in a for a in answers), answers
    ats = [a["at"] for a in answers]
    assert ats == sorted(ats) and ats[-1] == state["at"]
    assert "".join(a["applied"] for a in answers[1:]) == state["log"][1:]
    for before, key, answer in zip(answers, keys, answers[1:], strict=False):
        moved = slide(before["board"], WORDS[key])[0] != before["board"]
        assert answer["applied"] == (key if moved else ""), (before["board"], key, answer)
    assert replay(4, done["seed"], state["log"]).board == answers[-1]["board"] == state["board"]
    return answers


def test_chained_keys_go_on_from_the_answer_before_them_whether_it_played_or_dropped_its_keys(api):
    """A page sends each key as it is pressed (``chain``: right after this socket's previous moves):
    every key is played in order where it moves the board and dropped where it meets a wall."""
    # a key pressed twelve times meets a wall in about 49 games of 50 (the spawn lands first in its
    # row): a few games make a wall certain for any seeds, and each game's keys are checked anyway
    for _ in range(6):
        answers = _chain_keys(api, "LLLLLLLLLLLLDDDDRRRRUUUULDLDRURU")
        if any(a["applied"] == "" for a in answers[1:]):
            break
    else:
        pytest.fail("no key pressed twelve times met a wall in six games")


def test_a_chain_breaks_at_a_refused_message_so_no_key_is_played_out_of_order(api):
    issued = api.start(4)
    token = issued["token"]
    first = next_move(issued["board"])
    with api.client.websocket_connect(f"/api/games/{issued['id']}/play") as ws:
        ws.send_json({"op": "moves", "token": token, "chain": True, "moves": first, "skip_illegal": True})
        nothing_before = ws.receive_json()
        ws.send_json({"op": "moves", "token": token, "at": 0, "moves": first})
        played = ws.receive_json()
        ws.send_json({"op": "moves", "token": token, "at": 5, "moves": "L"})  # refused: 409
        refused = ws.receive_json()
        ws.send_json({"op": "moves", "token": token, "chain": True, "moves": "LRUD", "skip_illegal": True})
        after_refusal = ws.receive_json()
        ws.send_json({"op": "moves", "token": token, "chain": True, "at": 1, "moves": "L"})
        both = ws.receive_json()
        ws.send_json({"op": "moves", "token": token, "chain": "yes", "moves": "L"})
        not_boolean = ws.receive_json()
        ws.send_json({"op": "state", "token": token})
        state = ws.receive_json()
    assert nothing_before["status"] == 409 and nothing_before["code"] == "chain_broken"
    assert played["at"] == 1 and refused["status"] == 409
    assert after_refusal["status"] == 409 and after_refusal["code"] == "chain_broken"
    assert both["status"] == 422 and not_boolean["status"] == 422
    assert state["at"] == 1 and state["log"] == first  # nothing of the broken chain was played


def test_chain_is_a_socket_word_over_http_it_is_refused(api):
    issued = api.start(4)
    answer = api.client.post(f"/api/games/{issued['id']}/moves",
                             json={"token": issued["token"], "chain": True, "moves": "L"})
    assert answer.status_code == 422


def test_a_socket_waits_for_its_messages_outside_the_middleware_chain(api, monkeypatch):
    """Each wait for a message goes out and back in through every coroutine the waiting one is
    awaited by: the socket's messages are handled in a task of their own, a couple of coroutines
    deep, not under the middlewares' and the router's thirty."""
    import inspect
    import sys

    from game2048.server.api import socket as play

    depths = []
    real = play._answer

    async def answer(*args):  # type: ignore[no-untyped-def]
        frame, depth = sys._getframe(), 0
        while frame is not None:
            depth += bool(frame.f_code.co_flags & inspect.CO_COROUTINE)
            frame = frame.f_back
        depths.append(depth)
        return await real(*args)

    monkeypatch.setattr(play, "_answer", answer)
    issued = api.start(4)
    with api.client.websocket_connect(f"/api/games/{issued['id']}/play") as ws:
        ws.send_json({"op": "state", "token": issued["token"]})
        assert ws.receive_json()["at"] == 0
    assert depths and max(depths) <= 4, depths  # this wrapper and _serve
