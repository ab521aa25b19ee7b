"""Concurrent finishes lose nothing and duplicate nothing."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from sqlalchemy import func, select

from game2048.server import games
from game2048.server.models import GameRow

WORKERS = 24


def test_concurrent_finishes_of_different_games_all_land(app, api):
    started = [api.start(4) for _ in range(WORKERS)]
    played = [api.play(4, s["seed"], 40 + i) for i, s in enumerate(started)]

    def finish(i: int) -> int:
        return api.finish(started[i], played[i], name=f"p{i}").status_code

    with ThreadPoolExecutor(WORKERS) as pool:
        codes = list(pool.map(finish, range(WORKERS)))
    assert codes == [200] * WORKERS
    board = api.client.get("/api/leaderboard", params={"size": 4, "limit": 100}).json()["entries"]
    assert sorted(e["game_id"] for e in board) == sorted(s["id"] for s in started)
    assert [e["rank"] for e in board] == list(range(1, WORKERS + 1))


def test_concurrent_finishes_of_one_game_keep_exactly_one(app, api):
    issued = api.start(4)
    game = api.play(4, issued["seed"], 50)

    def finish(i: int) -> int:
        return api.finish(issued, game, name=f"p{i}").status_code

    with ThreadPoolExecutor(WORKERS) as pool:
        codes = list(pool.map(finish, range(WORKERS)))
    assert sorted(codes) == [200] + [409] * (WORKERS - 1)
    with app.state.sessions() as s:
        finished = select(func.count()).select_from(GameRow).where(GameRow.finished_at.is_not(None))
        assert s.scalar(finished) == 1


def test_finish_function_races_in_plain_sessions(app):
    """The same race without HTTP: each worker uses its own session, as each request does."""
    secret = app.state.secret
    with app.state.sessions() as s:
        issued = [games.start_game(s, secret, 3, "classic") for _ in range(WORKERS)]
    from game2048 import Game

    def finish(i: int) -> str:
        g = Game(3, issued[i % 4].seed)
        g.move("left") or g.move("right")
        with app.state.sessions() as s:
            try:
                games.finish_game(s, secret, issued[i % 4].id, token=issued[i % 4].token, log=g.log,
                                  score=g.score, name="n")
                return "ok"
            except games.ClientError as exc:
                return str(exc.status)

    with ThreadPoolExecutor(WORKERS) as pool:
        outcomes = list(pool.map(finish, range(WORKERS)))
    assert outcomes.count("ok") == 4 and outcomes.count("409") == WORKERS - 4
