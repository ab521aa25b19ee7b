"""Ranked play through the server: every tile dealt by the server, the seed secret until the finish."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from game2048 import replay, slide

from ..conftest import NAMES, Played, next_move


def new_tiles(before: list[list[int]], letter: str, after: list[list[int]]) -> list[int]:
    """The tiles ``after`` has beyond the slide of ``before``; raises if anything else differs."""
    slid, _ = slide(before, NAMES[letter])
    added = []
    for row_s, row_a in zip(slid, after, strict=True):
        for s, a in zip(row_s, row_a, strict=True):
            if s != a:
                assert s == 0, (before, letter, after)
                added.append(a)
    return added


def test_every_answer_is_the_slide_plus_exactly_one_new_tile(api):
    played = Played(api.start(4))
    board = played.board
    for _ in range(120):
        letter = next_move(board)
        if letter is None:
            break
        r = api.moves(played.issued, played.at, letter)
        assert r.status_code == 200, r.text
        played.answers.append(r.json())
        played.log += letter
        assert new_tiles(board, letter, played.board) in ([2], [4])
        board = played.board


def test_the_seed_appears_in_no_answer_before_the_finish(api):
    bodies = []
    issued = api.start(4)
    played = Played(issued)
    for _ in range(40):
        r = api.moves(issued, played.at, next_move(played.board))
        bodies.append(r.text)
        played.answers.append(r.json())
    bodies.append(api.client.post(f"/api/games/{issued['id']}/state", json={"token": issued["token"]}).text)
    bodies.append(api.client.get(f"/api/games/{issued['id']}").text)
    seed = api.finish(issued).json()["seed"]
    assert isinstance(seed, str) and re.fullmatch("[0-9a-f]{32}", seed), "a secret seed of 128 bits"
    assert not any(seed in body for body in bodies)


def test_the_revealed_record_replays_to_the_dealt_game(api):
    played = api.served(3, None)
    seed = api.finish(played.issued).json()["seed"]
    assert played.over
    game = replay(3, seed, "")
    assert game.board == played.issued["board"]
    for letter, answer in zip(played.log, played.answers, strict=True):
        game.move(letter)
        assert (game.board, game.score, game.over) == (answer["board"], answer["score"], answer["over"])


def test_a_batch_of_moves_is_one_request(api):
    issued = api.start(4)
    board, log = issued["board"], ""
    for _ in range(10):
        letter = next_move(board)
        log += letter
        board = slide(board, NAMES[letter])[0]  # the tile is unknown: choose the next move on the slide
        if next_move(board) is None:
            break
    r = api.moves(issued, 0, log)
    if r.status_code == 422:  # the dealt tile can make a later letter of the batch illegal
        assert "nothing was applied" in r.json()["error"]
        assert api.moves(issued, 0, log[0]).json()["at"] == 1
    else:
        assert r.status_code == 200 and r.json()["at"] == len(log)


def test_a_retry_gets_the_first_answer_again(api):
    played = api.served(4, 5)
    issued = played.issued
    letter = next_move(played.board)
    first = api.moves(issued, played.at, letter)
    again = api.moves(issued, played.at, letter)
    assert first.status_code == again.status_code == 200 and first.json() == again.json()
    older = api.moves(issued, 2, played.log[2:4])  # from further back: worked out by a replay
    assert older.status_code == 200 and older.json() == played.answers[3]
    assert api.client.post(f"/api/games/{issued['id']}/state",
                           json={"token": issued["token"]}).json()["at"] == 6


def test_a_retry_may_go_on_past_what_was_played(api):
    played = api.served(4, 3)
    letter = next_move(played.board)
    r = api.moves(played.issued, 2, played.log[2] + letter)
    assert r.status_code == 200 and r.json()["at"] == 4


def test_a_fork_is_refused_and_changes_nothing(api):
    played = api.served(4, 6)
    before = api.state(played.issued)
    at = 3
    other = next(x for x in "LDRU" if x != played.log[at])
    r = api.moves(played.issued, at, other)
    assert r.status_code == 409 and "fork" in r.json()["error"]
    after = api.state(played.issued)
    assert after.json() == before.json()


def test_at_ahead_of_the_game_is_refused(api):
    played = api.served(4, 2)
    r = api.moves(played.issued, 5, "L")
    assert r.status_code == 409 and set(r.json()) == {"error"}


def test_an_illegal_move_or_unknown_letter_in_a_batch_applies_nothing(api):
    played = Played(api.start(4))
    while played.at < 4 or all(slide(played.board, NAMES[x])[0] != played.board for x in "LDRU"):
        api.play_on(played, 1)  # until some direction is illegal
    legal = next_move(played.board)
    illegal = next(x for x in "LDRU" if slide(played.board, NAMES[x])[0] == played.board)
    refusals = ((illegal, "does not change the board"), ("ZZZZ", "fourth undo"), (legal + "X", "'X'"))
    for batch, words in refusals:
        r = api.moves(played.issued, played.at, batch[:64])
        error = r.json()["error"]
        assert r.status_code == 422 and words in error and "nothing was applied" in error
    assert api.moves(played.issued, played.at, legal).json()["at"] == played.at + 1


def test_undo_goes_back_and_the_same_move_brings_the_same_tile(api):
    played = api.served(4, 4)
    before = played.board
    letter = next_move(before)
    moved = api.moves(played.issued, 4, letter).json()
    undone = api.moves(played.issued, 5, "Z").json()
    assert undone["board"] == before and undone["undos_left"] == 2 and undone["ranked"] is False
    again = api.moves(played.issued, 6, letter).json()
    assert again["board"] == moved["board"] and again["at"] == 7


def test_a_fourth_undo_and_an_undo_with_nothing_to_take_back_are_refused(api):
    issued = api.start(4)
    assert "no move to take back" in api.moves(issued, 0, "Z").json()["error"]
    played = api.play_on(Played(issued), 6)
    r = api.moves(issued, played.at, "ZZZ")
    assert r.status_code == 200 and r.json()["undos_left"] == 0
    r = api.moves(issued, played.at + 3, "Z")
    assert r.status_code == 422 and "fourth undo" in r.json()["error"]


def test_wrong_token_and_unknown_game(api):
    issued = api.start(4)
    r = api.moves(issued, 0, next_move(issued["board"]), token="0" * 36)
    assert r.status_code == 403 and "token" in r.json()["error"]
    r = api.client.post("/api/games/nope/moves", json={"token": "x", "at": 0, "moves": "L"})
    assert r.status_code == 404 and set(r.json()) - {"code"} == {"error"}


def test_moves_after_the_finish_are_refused(api):
    _, played, _ = api.honest(4, 5)
    r = api.moves(played.issued, played.at, next_move(played.board) or "L")
    assert r.status_code == 409 and "finished" in r.json()["error"]


def test_finish_checks_the_log_it_is_sent(api):
    played = api.served(4, 8)
    assert api.finish(played.issued, log=played.log[:-1]).status_code == 409
    forged = played.log[:-1] + next(x for x in "LDRU" if x != played.log[-1])
    assert api.finish(played.issued, log=forged).status_code == 409
    assert api.stored(played.issued["id"]) is None
    r = api.finish(played.issued, log=played.log)
    assert r.status_code == 200
    assert api.finish(played.issued, log=forged).status_code == 409  # a retry must match too


def test_finish_may_bring_the_last_moves(api):
    played = api.served(4, 8)
    letter = next_move(played.board)
    r = api.finish(played.issued, log=played.log + letter)
    assert r.status_code == 200
    assert api.stored(played.issued["id"])["log"] == played.log + letter


def test_a_game_over_stays_over(api):
    played = api.served(3, None)
    assert played.over
    r = api.moves(played.issued, played.at, "L")
    assert r.status_code == 422 and "over" in r.json()["error"]


def test_a_game_stops_taking_moves_at_the_longest_log_kept(api, monkeypatch):
    from game2048.server.live import moving

    monkeypatch.setattr(moving, "MAX_LOG", 5)
    played = api.served(4, 5)
    r = api.moves(played.issued, played.at, next_move(played.board))
    assert r.status_code == 409 and "longest log" in r.json()["error"]
    assert api.finish(played.issued).status_code == 200


def test_a_move_answer_says_where_its_tile_landed_and_an_undo_brings_none(api):  # type: ignore[no-untyped-def]
    issued = api.start(5)
    board, at = issued["board"], 0
    for _ in range(12):
        letter = next_move(board)
        answer = api.moves(issued, at, letter).json()
        slid, _ = slide(board, NAMES[letter])
        tile = answer["tile"]
        row, col = tile["row"], tile["col"]
        assert slid[row][col] == 0 and answer["board"][row][col] == tile["value"] in (2, 4)
        changed = [(r, c) for r in range(5) for c in range(5) if slid[r][c] != answer["board"][r][c]]
        assert changed == [(row, col)]
        board, at = answer["board"], answer["at"]
    assert api.moves(issued, at, "Z").json()["tile"] is None


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed (apt-get install nodejs)")
def test_the_revealed_secret_seed_replays_to_the_dealt_game_in_the_browser_engine(api):
    played = api.served(4, 80)
    seed = api.finish(played.issued).json()["seed"]
    engine = Path(__file__).resolve().parents[3] / "src" / "game2048" / "web" / "static" / "js" / "engine.js"
    script = ("const { replay } = await import(process.argv[1]);"
              "const [size, seed, log] = JSON.parse(process.argv[2]);"
              "const g = replay(size, seed, log);"
              "process.stdout.write(JSON.stringify([g.board, g.score]));")
    out = subprocess.run(["node", "--input-type=module", "-e", script, engine.as_uri(),
                          json.dumps([4, seed, played.log])], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == [played.board, played.score]


def test_each_moves_arrival_is_kept_with_the_record(app, api):
    """Letters keep when they reached the server (ms since the game was issued); a batch's letters
    share its time. The record shows them, and the next game's clock starts at its own issue."""
    from datetime import UTC, datetime, timedelta

    from game2048.server import live

    store, secret, sessions = app.state.store, app.state.secret, app.state.sessions
    t0 = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)
    started = live.start(store, secret, 4, "classic", now=t0)
    board, log, arrivals = started.position.board, "", []
    for ms, count in ((400, 1), (900, 2), (2_500, 1)):
        letters, after = "", board
        for _ in range(count):
            letter = next_move(after)
            letters += letter
            after = slide(after, NAMES[letter])[0]
        played = live.play(store, secret, started.id, token=started.token, at=len(log), moves=letters,
                           now=t0 + timedelta(milliseconds=ms), skip_illegal=True)
        taken = played.at - len(log)
        log, board = log + letters[:taken], played.board
        arrivals += [ms] * taken
    live.finish(store, sessions, secret, started.id, token=started.token, name="Clock")
    record = api.client.get(f"/api/games/{started.id}").json()
    assert record["log"] == log and record["times"] == arrivals
    other = api.honest(4, 3)[1].issued["id"]
    assert len(api.client.get(f"/api/games/{other}").json()["times"]) == 3
