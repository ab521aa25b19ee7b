"""Concurrent moves and finishes lose nothing, duplicate nothing and never fork a game."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

from sqlalchemy import func, select

from game2048.server import live
from game2048.server.errors import ClientError
from game2048.server.storage.models import GameRow

from ..conftest import next_move

WORKERS = 24


def test_concurrent_finishes_of_different_games_all_land(app, api):
    played = [api.served(4, 5 + i) for i in range(WORKERS)]

    def finish(i: int) -> int:
        return api.finish(played[i].issued, name=f"p{i}").status_code

    with ThreadPoolExecutor(WORKERS) as pool:
        codes = list(pool.map(finish, range(WORKERS)))
    assert codes == [200] * WORKERS
    board = api.client.get("/api/leaderboard", params={"size": 4, "limit": 100}).json()["entries"]
    assert sorted(e["game_id"] for e in board) == sorted(p.issued["id"] for p in played)
    assert [e["rank"] for e in board] == list(range(1, WORKERS + 1))


def test_concurrent_finishes_of_one_game_keep_exactly_one_and_agree(app, api):
    played = api.served(4, 20)

    def finish(i: int) -> tuple[int, str]:
        r = api.finish(played.issued, name=f"p{i}")
        return r.status_code, r.text

    with ThreadPoolExecutor(WORKERS) as pool:
        answers = list(pool.map(finish, range(WORKERS)))
    assert {status for status, _ in answers} == {200} and len({text for _, text in answers}) == 1
    with app.state.sessions() as s:
        finished = select(func.count()).select_from(GameRow).where(GameRow.finished_at.is_not(None))
        assert s.scalar(finished) == 1


def test_racing_moves_from_one_position_extend_the_game_once(app, api):
    """Many requests send different moves from the same ``at``: one wins, the rest are forks (409)."""
    played = api.served(4, 3)
    store, secret, issued = app.state.store, app.state.secret, played.issued
    legal = [x for x in "LDRU" if _changes(played.board, x)]

    def move(i: int) -> str:
        try:
            p = live.play(store, secret, issued["id"], token=issued["token"], at=played.at,
                          moves=legal[i % len(legal)])
            return f"ok {p.at}"
        except ClientError as exc:
            return str(exc.status)

    with ThreadPoolExecutor(WORKERS) as pool:
        outcomes = list(pool.map(move, range(WORKERS)))
    winners = [o for o in outcomes if o.startswith("ok")]
    assert set(winners) == {f"ok {played.at + 1}"} and set(outcomes) - set(winners) <= {"409"}
    state = api.state(issued).json()
    assert state["at"] == played.at + 1 and len(state["log"]) == played.at + 1


def test_interleaved_moves_and_finish_lose_no_acknowledged_move(app, api):
    played = api.served(4, 2)
    store, secret, issued = app.state.store, app.state.secret, played.issued
    acked: list[int] = []

    def mover() -> None:
        board, at = played.board, played.at
        for _ in range(40):
            letter = next_move(board)
            if letter is None:
                return
            try:
                p = live.play(store, secret, issued["id"], token=issued["token"], at=at, moves=letter)
            except ClientError:
                return  # finished meanwhile
            acked.append(p.at)
            board, at = p.board, p.at

    def finisher() -> int:
        return api.finish(issued, name="racer").status_code

    with ThreadPoolExecutor(2) as pool:
        moving = pool.submit(mover)
        finishing = pool.submit(finisher)
        moving.result()
        assert finishing.result() == 200
    record = api.stored(issued["id"])
    assert len(record["log"]) == (acked[-1] if acked else played.at)


def _changes(board: list[list[int]], letter: str) -> bool:
    from game2048 import slide

    from ..conftest import NAMES

    return slide(board, NAMES[letter])[0] != board


def test_a_slow_finish_that_a_retry_landed_meanwhile_gets_the_retrys_answer(app, api, monkeypatch):
    """The first finish's work outlasts its time (a cold solver at the engine check); its
    retry lands the game meanwhile. Both answer the same 200, the name key included."""
    played = api.served(4, 20)
    store, secret, sessions, issued = app.state.store, app.state.secret, app.state.sessions, played.issued
    monkeypatch.setattr(live.finishing, "FINISH_SECONDS", 0.05)
    answers = []

    def slow_check(size: int, seed: int, log: str, max_tile: int) -> dict:
        # the retry comes and lands while this finish is still at its work
        answers.append(live.finish(store, sessions, secret, issued["id"], token=issued["token"], name="Slow"))
        time.sleep(0.1)  # past this finish's time
        return {}

    first = live.finish(store, sessions, secret, issued["id"], token=issued["token"], name="Slow",
                        checking=slow_check)
    assert answers == [first] and first.name_key is not None
