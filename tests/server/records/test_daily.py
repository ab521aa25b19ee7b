"""The daily game stays fair: one opening for all, a few tries, records hidden while the day lasts."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, date, datetime, timedelta

from fastapi.testclient import TestClient
from sqlalchemy import select, update

from game2048.server import create_app, live
from game2048.server.errors import ClientError
from game2048.server.storage.models import DailyTryRow, GameRow

from ..conftest import Api, next_move


def _move_day_back(app, game_id: str, days: int) -> None:
    """Pretend the game was a daily game of ``days`` days ago."""
    with app.state.sessions() as s:
        row = s.get(GameRow, game_id)
        s.execute(update(GameRow).where(GameRow.id == game_id).values(day=row.day - timedelta(days=days)))
        s.commit()
    live.forget(game_id)  # changed behind the mover's back: its next move reads the store


def test_every_daily_game_of_a_size_opens_on_the_same_board(api):
    a, b, c = api.start(4, "daily"), api.start(4, "daily"), api.start(5, "daily")
    assert a["board"] == b["board"] and a["id"] != b["id"] and a["date"] == b["date"] == c["date"]
    assert a["date"] == datetime.now(UTC).date().isoformat()
    # and the same moves bring the same tiles
    letter = next_move(a["board"])
    assert api.moves(a, 0, letter).json()["board"] == api.moves(b, 0, letter).json()["board"]


def test_a_fourth_daily_game_of_a_size_and_day_is_refused(settings):
    app = create_app(replace(settings, daily_tries=3))
    try:
        client = TestClient(app)
        codes = [client.post("/api/games", json={"size": 4, "mode": "daily"}).status_code for _ in range(4)]
        assert codes == [201, 201, 201, 429]
        r = client.post("/api/games", json={"size": 4, "mode": "daily"})
        assert r.status_code == 429 and "daily game 3 times" in r.json()["error"]
        assert 0 < int(r.headers["retry-after"]) <= 24 * 3600
        # the page says it in the player's words from the code and its figures
        body = r.json()
        assert (body["code"], body["size"], body["tries"]) == ("daily_tries_used", 4, 3)
        tomorrow = datetime.now(UTC).date() + timedelta(days=1)
        assert body["next_at"] == f"{tomorrow.isoformat()}T00:00:00Z"
        assert body["retry_after"] == int(r.headers["retry-after"])
        assert client.post("/api/games", json={"size": 5, "mode": "daily"}).status_code == 201
        assert client.post("/api/games", json={"size": 4}).status_code == 201  # classic games are not counted
        # another address has its own tries; what is kept is a keyed hash, never the address
        other = live.start(app.state.store, app.state.secret, 4, "daily", client="203.0.113.9", daily_tries=3)
        assert other.mode == "daily"
        with app.state.sessions() as s:
            kept = s.scalars(select(DailyTryRow.client)).all()
        # this browser and its network for 4x4 and 5x5, the other network for 4x4
        assert len(kept) == 5 and not any("testclient" in k or "203.0.113" in k for k in kept)
        assert all(len(k) == 64 for k in kept)
    finally:
        app.state.engine.dispose()


def test_the_try_counter_allows_exactly_the_limit_under_concurrency(app):
    from concurrent.futures import ThreadPoolExecutor

    def start(_: int) -> str:
        try:
            live.start(app.state.store, app.state.secret, 3, "daily", client="198.51.100.7", daily_tries=3)
            return "ok"
        except ClientError as exc:
            return str(exc.status)

    with ThreadPoolExecutor(8) as pool:
        outcomes = list(pool.map(start, range(12)))
    assert outcomes.count("ok") == 3 and outcomes.count("429") == 9


def test_a_daily_record_is_hidden_while_its_day_lasts(app, api):
    _, played, r = api.honest(4, 30, name="Early", mode="daily")
    game_id = played.issued["id"]
    assert r.status_code == 200 and r.json()["ranked"] and r.json()["seed"] is None
    assert api.client.get(f"/api/games/{game_id}").status_code == 404
    assert api.client.get(f"/games/{game_id}").status_code == 404
    board = api.client.get("/api/leaderboard", params={"size": 4, "mode": "daily"}).json()
    assert [(e["name"], e["game_id"]) for e in board["entries"]] == [("Early", None)]
    page = api.client.get("/leaderboard?size=4&mode=daily").text
    assert "Early" in page and f"/games/{game_id}" not in page
    assert api.finish(played.issued).json()["seed"] is None  # a retry does not reveal it either
    _move_day_back(app, game_id, 1)  # the day is over
    record = api.stored(game_id)
    assert record is not None and record["log"] == played.log
    assert api.finish(played.issued).json()["seed"] == record["seed"]


def test_moves_after_the_day_are_refused_and_the_finish_ranks_the_position_reached(app, api):
    played = api.served(4, 10, mode="daily")
    _move_day_back(app, played.issued["id"], 2)
    r = api.moves(played.issued, played.at, next_move(played.board))
    assert r.status_code == 409 and "day is over" in r.json()["error"]
    done = api.finish(played.issued)
    assert done.status_code == 200 and done.json()["score"] == played.score and done.json()["ranked"]
    assert api.stored(played.issued["id"])["log"] == played.log


def test_moves_are_accepted_until_ten_minutes_after_the_day(app, api):
    played = api.served(4, 2, mode="daily")
    day = date.fromisoformat(played.issued["date"])
    end = datetime(day.year, day.month, day.day, tzinfo=UTC) + timedelta(days=1)
    store, secret, issued = app.state.store, app.state.secret, played.issued
    p = live.play(store, secret, issued["id"], token=issued["token"], at=2, moves=next_move(played.board),
                  now=end + timedelta(minutes=9))
    try:
        live.play(store, secret, issued["id"], token=issued["token"], at=3, moves=next_move(p.board),
                  now=end + timedelta(minutes=11))
    except ClientError as exc:
        assert exc.status == 409
    else:
        raise AssertionError("a move 11 minutes after the day was accepted")


def test_the_daily_leaderboard_is_separate_from_all_time(api: Api):
    _, played, _ = api.honest(4, 40, mode="daily")
    daily = api.client.get("/api/leaderboard", params={"size": 4, "mode": "daily"}).json()
    assert daily["date"] == played.issued["date"] and [e["score"] for e in daily["entries"]] == [played.score]
    assert api.client.get("/api/leaderboard", params={"size": 4}).json()["entries"] == []
    other_day = api.client.get("/api/leaderboard", params={"size": 4, "mode": "daily", "date": "2001-01-01"})
    assert other_day.json()["entries"] == []


# -- a try left for a new one is abandoned, not a result -----------------------------------------

def _daily_board(api: Api, size: int = 4) -> list[tuple[str, int]]:
    board = api.client.get("/api/leaderboard", params={"size": size, "mode": "daily"}).json()
    return [(e["name"], e["score"]) for e in board["entries"]]


def test_an_abandoned_daily_try_is_kept_unranked_and_never_on_the_board(app, api):
    tries = [api.served(4, 3, mode="daily") for _ in range(2)]  # a few moves each, then a new try
    for played in tries:
        done = api.finish(played.issued, name="Twice", abandoned=True)
        assert done.status_code == 200, done.text
        body = done.json()
        assert (body["ranked"], body["rank"], body["unranked"]) == (False, None, "abandoned")
        assert api.finish(played.issued, name="Twice", abandoned=True).json() == body  # a retry: the same
    assert _daily_board(api) == []  # never at 0 points, never twice
    with app.state.sessions() as s:
        rows = [s.get(GameRow, p.issued["id"]) for p in tries]
        assert all(r.unranked == "abandoned" and not r.ranked and r.finished_at for r in rows)
    # the try played to its end is the result
    _, _, r = api.honest(3, None, name="Twice", mode="daily")
    assert r.json()["ranked"] and r.json()["unranked"] is None


def test_a_try_that_ended_is_not_abandoned_whatever_the_finish_says(api):
    played = api.served(3, None, mode="daily")  # to the end: no move left
    assert played.over
    done = api.finish(played.issued, name="Ended", abandoned=True).json()
    assert (done["ranked"], done["unranked"]) == (True, None)
    assert [name for name, _ in _daily_board(api, 3)] == ["Ended"]


def test_a_finish_that_says_abandoned_wrongly_is_a_422_and_changes_nothing(api):
    played = api.served(4, 3, mode="daily")
    for wrong in ("yes", 1, None):
        r = api.finish(played.issued, abandoned=wrong)
        assert r.status_code == 422 and "abandoned" in r.json()["error"], r.text
    assert api.state(played.issued).status_code == 200  # still in play
    assert api.finish(played.issued).json()["ranked"] is True
