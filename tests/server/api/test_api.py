"""The JSON API end to end: games dealt by the server are kept, revealed and ranked."""

from __future__ import annotations

from game2048 import replay

OPENING_FIELDS = {"id", "token", "size", "mode", "date", "board", "score", "at", "undos_left", "over", "won",
                  "bot", "tries_left", "ranked"}


def test_a_new_game_opens_with_two_tiles_and_no_seed(api):
    issued = api.start(5)
    assert set(issued) == OPENING_FIELDS
    assert issued["size"] == 5 and issued["mode"] == "classic" and issued["date"] is None
    opening = tuple(issued[k] for k in ("at", "score", "undos_left", "over", "won", "ranked"))
    assert opening == (0, 0, 3, False, False, True)
    assert len([v for row in issued["board"] for v in row if v]) == 2


def test_honest_game_is_verified_ranked_kept_and_its_seed_revealed(api):
    _, played, r = api.honest(4, moves=None)
    assert r.status_code == 200, r.text
    answer = r.json()
    assert answer["verified"] and answer["ranked"] and answer["rank"] == 1 and answer["score"] == played.score
    record = api.stored(played.issued["id"])
    assert record["log"] == played.log and record["seed"] == answer["seed"] and record["name"] == "Ada"
    again = replay(record["size"], record["seed"], record["log"])
    assert again.board == played.board and again.score == record["score"] == played.score
    assert record["start"] is None


def test_finishing_mid_game_counts(api):
    _, played, r = api.honest(6, moves=10)
    assert r.status_code == 200 and r.json()["ranked"] is True and not played.over


def test_finishing_again_gives_the_same_answer(api):
    _, played, first = api.honest()
    again = api.finish(played.issued, name="Someone else")
    assert again.status_code == 200 and again.json() == first.json()
    assert api.stored(played.issued["id"])["name"] == "Ada"


def test_undo_game_is_kept_but_not_ranked(api):
    played = api.served(4, 3)
    assert api.moves(played.issued, played.at, "Z").status_code == 200
    r = api.finish(played.issued)
    assert r.status_code == 200 and r.json()["ranked"] is False and r.json()["rank"] is None
    assert api.stored(played.issued["id"])["ranked"] is False
    assert api.client.get("/api/leaderboard").json()["entries"] == []


def test_solver_helped_game_is_kept_but_not_ranked(api):
    played = api.served(4, 20)
    r = api.finish(played.issued, helped=True)
    assert r.status_code == 200 and r.json()["ranked"] is False
    assert api.stored(played.issued["id"])["ranked"] is False


def test_leaderboard_best_first_ties_to_earlier_finish(api):
    for name, moves in [("short", 5), ("long", 80), ("tie", 80), ("mid", 30)]:
        api.honest(4, moves, name=name)
    board = api.client.get("/api/leaderboard", params={"size": 4}).json()
    scores = [e["score"] for e in board["entries"]]
    assert scores == sorted(scores, reverse=True)
    assert [e["rank"] for e in board["entries"]] == [1, 2, 3, 4]
    by_name = {e["name"]: e for e in board["entries"]}
    if by_name["long"]["score"] == by_name["tie"]["score"]:
        assert by_name["long"]["rank"] < by_name["tie"]["rank"]
    entry = board["entries"][0]
    assert set(entry) == {"rank", "name", "score", "max_tile", "moves", "game_id", "finished_at",
                          "engine_like"}
    assert entry["game_id"] is not None


def test_rank_in_finish_answer_matches_leaderboard(api):
    for moves in (10, 50, 30, 50):
        _, played, r = api.honest(3, moves)
        board = api.client.get("/api/leaderboard", params={"size": 3}).json()["entries"]
        assert {e["game_id"]: e["rank"] for e in board}[played.issued["id"]] == r.json()["rank"]


def test_a_retried_finish_keeps_the_rank_it_had(api):
    _, low, first = api.honest(4, 5)
    api.honest(4, 80)  # a better game finished later
    assert api.finish(low.issued).json()["rank"] == first.json()["rank"]


def test_leaderboards_are_per_size(api):
    api.honest(3, 10)
    assert api.client.get("/api/leaderboard", params={"size": 4}).json()["entries"] == []
    assert len(api.client.get("/api/leaderboard", params={"size": 3}).json()["entries"]) == 1


def test_limit_caps_entries(api):
    for _ in range(3):
        api.honest(3, 5)
    assert len(api.client.get("/api/leaderboard", params={"size": 3, "limit": 2}).json()["entries"]) == 2


def test_unfinished_game_has_no_public_record(api):
    played = api.served(4, 5)
    r = api.client.get(f"/api/games/{played.issued['id']}")
    assert r.status_code == 404 and set(r.json()) == {"error"}


def test_openapi_describes_the_api(client):
    paths = client.get("/openapi.json").json()["paths"]
    assert {"/api/games", "/api/games/{game_id}/moves", "/api/games/{game_id}/state",
            "/api/games/{game_id}/finish", "/api/records", "/api/leaderboard", "/api/games/{game_id}",
            "/api/hint"} <= set(paths)
    opened = client.get("/openapi.json").json()["components"]["schemas"]["NewGameOut"]["properties"]
    assert "seed" not in opened and "board" in opened


def test_secret_survives_restart(settings):
    from game2048.server import create_app

    first = create_app(settings)
    second = create_app(settings)
    try:
        assert first.state.secret == second.state.secret and len(first.state.secret) >= 32
    finally:
        first.state.engine.dispose()
        second.state.engine.dispose()


def test_index_serves_the_browser_game(client):
    r = client.get("/")
    assert r.status_code == 200 and "text/html" in r.headers["content-type"]
