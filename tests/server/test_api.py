"""The JSON API end to end: honest games are verified, kept and ranked."""

from __future__ import annotations

from datetime import date

from game2048 import Game, replay


def test_new_game_issues_seed_and_token(api):
    issued = api.start(5)
    assert issued["size"] == 5 and issued["mode"] == "classic" and issued["date"] is None
    assert 0 <= issued["seed"] < 2**53
    assert issued["id"] and issued["token"]


def test_honest_game_is_verified_ranked_and_kept(api):
    issued, game, r = api.honest(4, moves=None)
    assert r.status_code == 200, r.text
    assert r.json() == {"verified": True, "ranked": True, "score": game.score,
                        "max_tile": game.max_tile, "rank": 1}
    record = api.stored(issued["id"])
    assert record["log"] == game.log and record["seed"] == issued["seed"] and record["name"] == "Ada"
    assert replay(record["size"], record["seed"], record["log"]).score == record["score"]


def test_finishing_mid_game_counts(api):
    _issued, game, r = api.honest(6, moves=10)
    assert r.status_code == 200 and r.json()["ranked"] is True and not game.over


def test_game_finishes_once(api):
    issued, game, _r = api.honest()
    again = api.finish(issued, game)
    assert again.status_code == 409 and "already finished" in again.json()["error"]


def test_undo_game_is_kept_but_not_ranked(api):
    issued = api.start(4)
    game = Game(4, issued["seed"])
    game.move("left") or game.move("right")
    game.undo()
    game.move("up") or game.move("down")
    r = api.finish(issued, game)
    assert r.status_code == 200 and r.json()["ranked"] is False and r.json()["rank"] is None
    assert api.stored(issued["id"])["ranked"] is False
    assert api.client.get("/api/leaderboard").json()["entries"] == []


def test_solver_helped_game_is_kept_but_not_ranked(api):
    issued = api.start(4)
    game = api.play(4, issued["seed"], 20)
    r = api.finish(issued, game, helped=True)
    assert r.status_code == 200 and r.json()["ranked"] is False
    assert api.stored(issued["id"])["ranked"] is False


def test_leaderboard_best_first_ties_to_earlier_finish(api):
    games = []
    for name, moves in [("short", 5), ("long", 80), ("tie", 80), ("mid", 30)]:
        issued, game, _r = api.honest(4, moves, name=name)
        games.append((name, issued, game))
    board = api.client.get("/api/leaderboard", params={"size": 4}).json()
    scores = [e["score"] for e in board["entries"]]
    assert scores == sorted(scores, reverse=True)
    assert [e["rank"] for e in board["entries"]] == [1, 2, 3, 4]
    by_name = {e["name"]: e for e in board["entries"]}
    if by_name["long"]["score"] == by_name["tie"]["score"]:
        assert by_name["long"]["rank"] < by_name["tie"]["rank"]
    entry = board["entries"][0]
    assert set(entry) == {"rank", "name", "score", "max_tile", "moves", "game_id", "finished_at"}


def test_rank_in_finish_answer_matches_leaderboard(api):
    for moves in (10, 50, 30, 50):
        issued, _, r = api.honest(3, moves)
        board = api.client.get("/api/leaderboard", params={"size": 3}).json()["entries"]
        assert {e["game_id"]: e["rank"] for e in board}[issued["id"]] == r.json()["rank"]


def test_leaderboards_are_per_size(api):
    api.honest(3, 10)
    assert api.client.get("/api/leaderboard", params={"size": 4}).json()["entries"] == []
    assert len(api.client.get("/api/leaderboard", params={"size": 3}).json()["entries"]) == 1


def test_limit_caps_entries(api):
    for _ in range(3):
        api.honest(3, 5)
    assert len(api.client.get("/api/leaderboard", params={"size": 3, "limit": 2}).json()["entries"]) == 2


def test_daily_game_has_one_seed_per_date_and_size(api):
    a, b, c = api.start(4, "daily"), api.start(4, "daily"), api.start(5, "daily")
    assert a["seed"] == b["seed"] != c["seed"]
    assert a["id"] != b["id"] and a["date"] == c["date"]
    assert api.start(4)["seed"] != a["seed"]


def test_daily_leaderboard_is_separate_from_all_time(api):
    issued, _game, r = api.honest(4, 40, mode="daily")
    assert r.status_code == 200 and r.json()["ranked"]
    daily = api.client.get("/api/leaderboard", params={"size": 4, "mode": "daily"}).json()
    assert daily["date"] == issued["date"] and [e["game_id"] for e in daily["entries"]] == [issued["id"]]
    assert api.client.get("/api/leaderboard", params={"size": 4}).json()["entries"] == []
    other_day = api.client.get("/api/leaderboard", params={"size": 4, "mode": "daily", "date": "2001-01-01"})
    assert other_day.json()["entries"] == []


def test_unfinished_game_has_no_public_record(api):
    issued = api.start()
    r = api.client.get(f"/api/games/{issued['id']}")
    assert r.status_code == 404 and "error" in r.json()


def test_openapi_describes_the_api(client):
    paths = client.get("/openapi.json").json()["paths"]
    assert {"/api/games", "/api/games/{game_id}/finish", "/api/leaderboard", "/api/games/{game_id}",
            "/api/hint"} <= set(paths)


def test_secret_survives_restart(settings):
    from game2048.server import create_app

    first = create_app(settings)
    second = create_app(settings)
    try:
        assert first.state.secret == second.state.secret and len(first.state.secret) >= 32
    finally:
        first.state.engine.dispose()
        second.state.engine.dispose()


def test_configured_secret_decides_daily_seeds(settings):
    from dataclasses import replace

    from game2048.server import create_app
    from game2048.server.seeds import daily_seed

    app = create_app(replace(settings, secret="s3cret"))
    try:
        from fastapi.testclient import TestClient

        issued = TestClient(app).post("/api/games", json={"size": 4, "mode": "daily"}).json()
        assert issued["seed"] == daily_seed("s3cret", date.fromisoformat(issued["date"]), 4)
    finally:
        app.state.engine.dispose()


def test_index_serves_the_browser_game(client):
    r = client.get("/")
    assert r.status_code == 200 and "text/html" in r.headers["content-type"]
