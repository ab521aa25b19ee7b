"""A battery of bad requests: each gets a 4xx {"error": ...} and changes nothing."""

from __future__ import annotations

import json

import pytest

from game2048.limits import MAX_LOG
from game2048.server.config import MAX_BODY

BAD_NEW_GAMES = [
    ("size too small", {"size": 2}),
    ("size too large", {"size": 7}),
    ("size as text", {"size": "4"}),
    ("size as float", {"size": 4.0}),
    ("size as bool", {"size": True}),
    ("unknown mode", {"size": 4, "mode": "ranked"}),
    ("mode as number", {"size": 4, "mode": 1}),
    ("array body", [4]),
    ("string body", "size=4"),
    ("null body", None),
]


@pytest.mark.parametrize(("what", "body"), BAD_NEW_GAMES, ids=[w for w, _ in BAD_NEW_GAMES])
def test_bad_new_game_is_refused(client, what, body):
    r = client.post("/api/games", json=body)
    assert r.status_code == 422, (what, r.text)
    assert set(r.json()) == {"error"} and r.json()["error"]


@pytest.mark.parametrize("raw", [b"{", b"{'size': 4}", b"\xff\xfe", b"", b"[1,"])
def test_malformed_json_is_refused(client, raw):
    r = client.post("/api/games", content=raw, headers={"content-type": "application/json"})
    assert r.status_code == 422 and set(r.json()) == {"error"}


def _finish_body(**override):
    return {"token": "t", "name": "Ada", **override}


BAD_FINISHES = [
    ("empty name", {"name": ""}, "name"),
    ("blank name", {"name": "   "}, "name"),
    ("long name", {"name": "x" * 25}, "at most 24"),
    ("newline in name", {"name": "a\nb"}, "control"),
    ("nul in name", {"name": "a\x00b"}, "control"),
    ("escape in name", {"name": "a\x1b[31m"}, "control"),
    ("bidi override in name", {"name": "a\u202eb"}, "control"),
    ("lone surrogate in name", {"name": "a\ud800"}, ""),
    ("name as number", {"name": 5}, "name"),
    ("log as list", {"log": ["L"]}, "log"),
    ("helped as text", {"helped": "yes"}, "helped"),
    ("missing token", {"token": None}, "token"),
]


@pytest.mark.parametrize(("what", "override", "words"), BAD_FINISHES, ids=[w for w, _, _ in BAD_FINISHES])
def test_bad_finish_is_refused_and_nothing_stored(api, what, override, words):
    played = api.served(4, 3)
    issued = played.issued
    body = {**_finish_body(token=issued["token"]), **override}
    body = {k: v for k, v in body.items() if v is not None}
    raw = json.dumps(body).encode()  # ASCII escapes, so a lone surrogate can be sent at all
    r = api.client.post(f"/api/games/{issued['id']}/finish", content=raw,
                        headers={"content-type": "application/json"})
    assert 400 <= r.status_code < 500, (what, r.text)
    assert set(r.json()) - {"code"} == {"error"} and words in r.json()["error"], r.json()
    assert r.json().get("code", "name_").startswith("name_")  # a code says a name was refused
    assert api.stored(issued["id"]) is None
    assert api.finish(issued).status_code == 200  # the game is still open


BAD_MOVES = [
    ("at as text", {"at": "0"}, "at"),
    ("negative at", {"at": -1}, "at"),
    ("huge at", {"at": 2**40}, "at"),
    ("moves as list", {"moves": ["L"]}, "moves"),
    ("no moves", {"moves": ""}, "moves"),
    ("65 moves", {"moves": "L" * 65}, "moves"),
    ("lower case", {"moves": "l"}, "'l'"),
    ("nul", {"moves": "L\x00"}, ""),
    ("missing at", {"at": None}, "at"),
    ("token as number", {"token": 5}, "token"),
]


@pytest.mark.parametrize(("what", "override", "words"), BAD_MOVES, ids=[w for w, _, _ in BAD_MOVES])
def test_bad_moves_are_refused_and_change_nothing(api, what, override, words):
    issued = api.start(4)
    body = {"token": issued["token"], "at": 0, "moves": "L", **override}
    body = {k: v for k, v in body.items() if v is not None}
    r = api.client.post(f"/api/games/{issued['id']}/moves", json=body)
    assert 400 <= r.status_code < 500, (what, r.text)
    assert set(r.json()) == {"error"} and words in r.json()["error"], r.json()
    assert api.state(issued).json()["at"] == 0


BAD_RECORDS = [
    ("seed too large", {"seed": 2**53}, "seed"),
    ("negative seed", {"seed": -1}, "seed"),
    ("seed as text", {"seed": "5"}, "seed"),
    ("size 7", {"size": 7}, "size"),
    ("score as text", {"score": "0"}, "score"),
    ("huge score", {"score": 2**64}, "score"),
    ("log as number", {"log": 5}, "log"),
    ("start as list", {"start": [[2]]}, "start"),
    ("start board of text", {"start": {"board": "2048"}}, "start"),
    ("bad name", {"name": "a\u202eb"}, "control"),
    ("missing seed", {"seed": None}, "seed"),
]


@pytest.mark.parametrize(("what", "override", "words"), BAD_RECORDS, ids=[w for w, _, _ in BAD_RECORDS])
def test_bad_practice_records_are_refused(api, what, override, words):
    body = {"size": 4, "seed": 5, "log": "", "score": 0, "name": "Ada", **override}
    body = {k: v for k, v in body.items() if v is not None}
    r = api.client.post("/api/records", json=body)
    assert 400 <= r.status_code < 500, (what, r.text)
    assert set(r.json()) - {"code"} == {"error"} and words in r.json()["error"], r.json()


def test_name_of_24_characters_in_any_script_is_fine(api):
    for name in ("x" * 24, "שחקן מספר אחד", "Игрок", "ผู้เล่น", "<script>alert(1)</script>"[:24]):
        issued = api.start()
        r = api.finish(issued, name=name)
        assert r.status_code == 200, (name, r.text)
        assert api.stored(issued["id"])["name"] == name


def test_log_over_the_limit_is_refused(api):
    issued = api.start()
    r = api.finish(issued, log="L" * (MAX_LOG + 1))
    assert r.status_code in (413, 422) and "error" in r.json()
    assert api.stored(issued["id"]) is None
    r = api.client.post("/api/records", json={"size": 4, "seed": 1, "log": "L" * (MAX_LOG + 1), "score": 0,
                                              "name": "a"})
    assert r.status_code in (413, 422) and "error" in r.json()


def test_body_over_the_limit_is_refused(client):
    r = client.post("/api/games", content=b" " * (MAX_BODY + 1), headers={"content-type": "application/json"})
    assert r.status_code == 413 and "limit" in r.json()["error"]


def test_chunked_body_over_the_limit_is_refused(client):
    def chunks():
        for _ in range(MAX_BODY // 4096 + 2):
            yield b" " * 4096

    r = client.post("/api/games", content=chunks(), headers={"content-type": "application/json"})
    assert r.status_code == 413 and "error" in r.json()


@pytest.mark.parametrize("query", [
    {"size": 9}, {"size": "four"}, {"mode": "weekly"}, {"limit": 0}, {"limit": 1000},
    {"mode": "daily", "date": "2026-02-30"}, {"mode": "daily", "date": "yesterday"},
])
def test_bad_leaderboard_query_is_refused(client, query):
    r = client.get("/api/leaderboard", params=query)
    assert r.status_code == 422 and set(r.json()) == {"error"}


def test_unknown_path_and_method_answer_in_the_error_shape(client):
    assert client.get("/api/nothing").json() == {"error": "nothing at /api/nothing"}
    r = client.delete("/api/games")
    assert r.status_code == 405 and "not allowed" in r.json()["error"]


def test_unknown_game_record_is_404(client):
    r = client.get("/api/games/nope")
    assert r.status_code == 404 and "no finished game" in r.json()["error"]


def test_too_long_game_id_is_refused(client):
    r = client.get("/api/games/" + "x" * 500)
    assert 400 <= r.status_code < 500 and "error" in r.json()


@pytest.mark.parametrize("game_id", ["%00", "a%00b", "%F0%9F%98%80", "a.b", "a b", "%ED%A0%80"])
def test_game_ids_that_cannot_exist_are_404(api, game_id):
    assert api.client.get(f"/api/games/{game_id}").status_code == 404
    r = api.client.post(f"/api/games/{game_id}/finish", json=_finish_body())
    assert r.status_code == 404 and set(r.json()) - {"code"} == {"error"}
    r = api.client.post(f"/api/games/{game_id}/moves", json={"token": "t", "at": 0, "moves": "L"})
    assert r.status_code == 404 and set(r.json()) - {"code"} == {"error"}
    assert api.client.get(f"/games/{game_id}").status_code == 404


def test_nul_in_fields_that_reach_the_database_is_refused(api):
    issued = api.start()
    for body in (_finish_body(token=issued["token"], name="a\x00"), _finish_body(token="\x00", name="a"),
                 _finish_body(token=issued["token"], log="L\x00")):
        r = api.client.post(f"/api/games/{issued['id']}/finish", json=body)
        assert 400 <= r.status_code < 500 and set(r.json()) - {"code"} == {"error"}
