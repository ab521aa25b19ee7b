"""Forged games of every kind are refused with a 4xx, and nothing is stored.

Ranked games have no record to forge (the server's own log is the record), so
a forger can only send a log that is not the server's, or another game's
token. Practice records are replayed and kept only if they verify.
"""

from __future__ import annotations

from game2048 import Game, RecordError, replay

from ..conftest import next_move


def _flip(letter: str) -> str:
    return {"L": "R", "R": "L", "U": "D", "D": "U"}[letter]


def _practice(api, game: Game | None = None, **fields: object):
    body: dict[str, object] = {"name": "Ada"}
    if game is not None:
        body |= {"size": game.size, "seed": game.seed, "log": game.log, "score": game.score}
    return api.client.post("/api/records", json=body | fields)


def _refused(api, r, status: int, words: str) -> None:
    assert r.status_code == status, r.text
    assert set(r.json()) == {"error"} and words in r.json()["error"]
    with api.client.app.state.sessions() as s:  # nothing kept
        from sqlalchemy import func, select

        from game2048.server.storage.models import GameRow

        assert s.scalar(select(func.count()).select_from(GameRow).where(GameRow.mode == "practice")) == 0


def test_an_honest_practice_record_is_kept_and_shown_but_never_ranked(api):
    game = api.play(4, 1234, 60)
    r = _practice(api, game)
    assert r.status_code == 201, r.text
    kept = r.json()
    assert kept == {"id": kept["id"], "verified": True, "ranked": False, "score": game.score,
                    "max_tile": game.max_tile}
    record = api.stored(kept["id"])
    assert (record["mode"], record["seed"], record["log"]) == ("practice", 1234, game.log)
    assert record["ranked"] is False
    assert api.client.get(f"/games/{kept['id']}").status_code == 200
    assert api.client.get("/api/leaderboard").json()["entries"] == []


def test_a_practice_game_from_a_position_replays_from_it(api):
    start = [[128, 128, 0], [0, 0, 0], [0, 0, 0]]
    game = Game.from_board(start, score=1000, seed=9)
    game.move("left")
    r = _practice(api, game, start={"board": start, "score": 1000})
    assert r.status_code == 201, r.text
    record = api.stored(r.json()["id"])
    assert record["start"] == {"board": start, "score": 1000}
    assert replay(3, 9, record["log"], start=start, start_score=1000).score == record["score"] == game.score
    assert _practice(api, game).status_code == 422  # the same log from the opening is another game
    page = api.client.get(f"/games/{r.json()['id']}")
    assert page.status_code == 200 and "128" in page.text


def test_changed_score_is_refused(api):
    game = api.play(4, 7, 50)
    _refused(api, _practice(api, game, score=game.score + 4), 422, "does not match")


def test_changed_move_is_refused(api):
    game = api.play(4, 7, 50)
    log = game.log
    # a flipped move can, by chance, give a legal game with the same score: that one is honest
    for i in range(len(log) // 2, len(log)):
        forged = log[:i] + _flip(log[i]) + log[i + 1:]
        try:
            if replay(4, 7, forged).score != game.score:
                break
        except RecordError:
            break
    _refused(api, _practice(api, game, log=forged), 422, "")


def test_truncated_log_is_refused(api):
    game = api.play(4, 7, 60)
    _refused(api, _practice(api, game, log=game.log[:-10]), 422, "does not match")


def test_moves_after_game_over_are_refused(api):
    game = api.play(3, 5)
    assert game.over
    _refused(api, _practice(api, game, log=game.log + "L"), 422, "after game over")


def test_illegal_move_is_refused(api):
    for moves in range(200):
        game = api.play(4, 11, moves)
        legal = set(game.legal_moves())
        if 0 < len(legal) < 4:
            break
    illegal = next(d for d in ("up", "down", "left", "right") if d not in legal)
    _refused(api, _practice(api, game, log=game.log + illegal[0].upper()), 422, "does not change the board")


def test_fourth_undo_and_undo_of_nothing_and_unknown_letters_are_refused(api):
    game = api.play(4, 3, 10)
    honest = replay(4, 3, game.log + "ZZZ")
    _refused(api, _practice(api, game, log=game.log + "ZZZZ", score=honest.score), 422, "fourth undo")
    _refused(api, _practice(api, size=4, seed=3, log="Z", score=0), 422, "undo")
    _refused(api, _practice(api, size=4, seed=3, log="XL", score=0), 422, "unknown letter")


def test_a_start_that_is_not_a_board_is_refused(api):
    empty = [[0, 0, 0], [0, 0, 0]]
    for start in ({"board": [[3, 0, 0], *empty]}, {"board": [[2, 0], [0, 0]]},
                  {"board": [[2048, 0, 0], *empty]}, {"board": [[2, 2, 0], *empty], "score": -1}):
        r = _practice(api, size=3, seed=1, log="", score=0, start=start)
        assert r.status_code == 422 and set(r.json()) == {"error"}, (start, r.text)


def test_a_finish_with_another_games_log_is_refused(api):
    donor = api.served(4, 40)
    victim = api.served(4, 5)
    r = api.finish(victim.issued, log=donor.log)
    # 409 when the logs part ways; 422 when the donor's log starts like the victim's and goes on
    # with moves the victim's tiles do not allow (a finish may bring up to 64 last moves)
    assert r.status_code in (409, 422) and set(r.json()) == {"error"}
    assert api.stored(victim.issued["id"]) is None


def test_wrong_token_or_another_games_token_is_refused(api):
    a, b = api.served(4, 5), api.served(4, 5)
    for token in ("0" * 36, a.issued["token"]):
        r = api.finish({**b.issued, "token": token})
        assert r.status_code == 403 and "token" in r.json()["error"]
        assert api.moves(b.issued, b.at, next_move(b.board), token=token).status_code == 403
    assert api.stored(b.issued["id"]) is None


def test_unknown_game_is_refused(api):
    r = api.finish({"id": "no-such-game", "token": "x"})
    assert r.status_code == 404 and "no game" in r.json()["error"]


def test_a_refused_finish_leaves_the_game_to_finish_honestly(api):
    played = api.served(4, 30)
    assert api.finish(played.issued, log=played.log + "Q").status_code in (409, 422)
    assert api.finish(played.issued, name="").status_code == 422
    assert api.finish(played.issued).status_code == 200
