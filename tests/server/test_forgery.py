"""Forged records of every kind are refused with a 4xx, and nothing is stored."""

from __future__ import annotations

from game2048 import Game, RecordError, replay


def _flip(letter: str) -> str:
    return {"L": "R", "R": "L", "U": "D", "D": "U"}[letter]


def _assert_refused(api, issued, r, status: int, words: str) -> None:
    assert r.status_code == status, r.text
    assert set(r.json()) == {"error"} and words in r.json()["error"]
    assert api.stored(issued["id"]) is None  # nothing kept: the game is still unfinished


def test_changed_score_is_refused(api):
    issued = api.start()
    game = api.play(4, issued["seed"], 50)
    r = api.finish(issued, log=game.log, score=game.score + 4)
    _assert_refused(api, issued, r, 422, "does not match")


def test_changed_move_is_refused(api):
    issued = api.start()
    game = api.play(4, issued["seed"], 50)
    log = game.log
    # change one move to the opposite one, picking a change that breaks the claim
    # (a flipped move can, by chance, give a legal game with the same score: that is honest)
    for i in range(len(log) // 2, len(log)):
        forged = log[:i] + _flip(log[i]) + log[i + 1 :]
        try:
            if replay(4, issued["seed"], forged).score != game.score:
                break
        except RecordError:
            break
    r = api.finish(issued, log=forged, score=game.score)
    _assert_refused(api, issued, r, 422, "")


def test_truncated_log_is_refused(api):
    issued = api.start()
    game = api.play(4, issued["seed"], 60)
    r = api.finish(issued, log=game.log[:-10], score=game.score)
    _assert_refused(api, issued, r, 422, "does not match")


def test_moves_after_game_over_are_refused(api):
    issued = api.start(3)
    game = api.play(3, issued["seed"])
    assert game.over
    r = api.finish(issued, log=game.log + "L", score=game.score)
    _assert_refused(api, issued, r, 422, "after game over")


def test_illegal_move_is_refused(api):
    issued = api.start(4)
    for moves in range(200):
        game = api.play(4, issued["seed"], moves)
        legal = set(game.legal_moves())
        if 0 < len(legal) < 4:
            break
    illegal = next(d for d in ("up", "down", "left", "right") if d not in legal)
    r = api.finish(issued, log=game.log + illegal[0].upper(), score=game.score)
    _assert_refused(api, issued, r, 422, "does not change the board")


def test_another_games_log_is_refused(api):
    donor = api.start()
    donor_game = api.play(4, donor["seed"], 80)
    victim = api.start()
    r = api.finish(victim, log=donor_game.log, score=donor_game.score)
    _assert_refused(api, victim, r, 422, "")


def test_fourth_undo_is_refused(api):
    issued = api.start(4)
    game = api.play(4, issued["seed"], 10)
    log = game.log + "Z" * 3
    honest = Game(4, issued["seed"])
    for letter in game.log:
        honest.move(letter)
    for _ in range(3):
        honest.undo()
    r = api.finish(issued, log=log + "Z", score=honest.score)
    _assert_refused(api, issued, r, 422, "fourth undo")


def test_undo_with_nothing_to_undo_is_refused(api):
    issued = api.start()
    _assert_refused(api, issued, api.finish(issued, log="Z", score=0), 422, "undo")


def test_unknown_letter_is_refused(api):
    issued = api.start()
    _assert_refused(api, issued, api.finish(issued, log="XL", score=0), 422, "unknown letter")


def test_wrong_token_is_refused(api):
    issued = api.start()
    game = api.play(4, issued["seed"], 20)
    r = api.finish({**issued, "token": "0" * 36}, game)
    _assert_refused(api, issued, r, 403, "token")


def test_token_of_another_game_is_refused(api):
    a, b = api.start(), api.start()
    game = api.play(4, b["seed"], 20)
    r = api.finish({**b, "token": a["token"]}, game)
    _assert_refused(api, b, r, 403, "token")


def test_unknown_game_is_refused(api):
    r = api.finish({"id": "no-such-game", "token": "x"}, log="", score=0)
    assert r.status_code == 404 and "no game" in r.json()["error"]


def test_refused_game_can_still_be_finished_honestly(api):
    issued = api.start()
    game = api.play(4, issued["seed"], 30)
    assert api.finish(issued, log=game.log, score=game.score + 2).status_code == 422
    assert api.finish(issued, game).status_code == 200


def test_forged_daily_record_with_another_seed_is_refused(api):
    daily = api.start(4, "daily")
    classic = api.start(4)
    classic_game = api.play(4, classic["seed"], 60)
    r = api.finish(daily, log=classic_game.log, score=classic_game.score)
    _assert_refused(api, daily, r, 422, "")
