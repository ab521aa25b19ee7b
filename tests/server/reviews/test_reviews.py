"""Reviews on the server: queued once, made in the background, stored; only for public games; a
per-client limit; claims that two workers never share; the review page in four languages."""

from __future__ import annotations

import itertools
import json
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from fastapi.testclient import TestClient

from game2048.server import create_app
from game2048.server.api import schemas
from game2048.server.config import ReviewSettings
from game2048.server.errors import ClientError
from game2048.server.reviews import queue as reviews
from game2048.server.site import review as review_routes
from game2048.server.site.i18n import strings
from game2048.server.storage.models import ReviewRow
from game2048.solver import review
from game2048.solver.review import worst

from ..conftest import Api, clear_of_a_minute_edge, play


def finished(api: Api, size: int = 4, moves: int | None = 60) -> tuple[str, int, str]:
    """A ranked game played through the server and finished: its id, its seed (revealed by the
    finish) and its log."""
    issued, played, done = api.honest(size, moves=moves)
    assert done.status_code == 200, done.text
    return issued["id"], done.json()["seed"], played.log


def no_workers(settings, **changes):  # type: ignore[no-untyped-def]
    """Settings whose server queues reviews but makes none (the test makes them)."""
    return replace(settings, reviews=ReviewSettings(workers=0, **changes))


@pytest.fixture
def queued_app(settings):  # type: ignore[no-untyped-def]
    app = create_app(no_workers(settings, per_client=10))
    yield app
    app.state.engine.dispose()


@pytest.fixture
def qapi(queued_app) -> Api:  # type: ignore[no-untyped-def]
    with TestClient(queued_app) as c:
        yield Api(c)


def make_all(app) -> int:  # type: ignore[no-untyped-def]
    """Make every queued review here, in threads of this process; how many were made."""
    queue = reviews.ReviewQueue(app.state.sessions, ReviewSettings(workers=1),
                                executor=lambda: ThreadPoolExecutor(1))
    made = 0
    while queue.work_once():
        made += 1
    queue.stop()
    return made


def rows(app) -> list[ReviewRow]:  # type: ignore[no-untyped-def]
    with app.state.sessions() as s:
        return list(s.query(ReviewRow).all())


def test_a_review_is_pending_then_served_and_stored_once(api: Api, app):  # type: ignore[no-untyped-def]
    """Through the real background queue: a review process grades the game."""
    game_id, seed, log = finished(api, 4, moves=60)
    first = api.client.get(f"/api/games/{game_id}/review")
    assert first.status_code == 202
    assert first.json() == {"status": "pending", "done": 0, "total": len(log)}
    assert first.headers["cache-control"] == "no-store"
    answer = poll(api, game_id)
    assert answer.json() == review(4, seed, log)
    again = api.client.get(f"/api/games/{game_id}/review")
    assert again.status_code == 200 and again.content == answer.content
    (row,) = rows(app)
    assert (row.status, row.attempts, row.done, row.total) == ("done", 1, len(log), len(log))


def poll(api: Api, game_id: str, seconds: float = 240):  # type: ignore[no-untyped-def]
    """Ask for a review every half second until it is made (202 until then); the 200 answer."""
    deadline = time.monotonic() + seconds
    answer = api.client.get(f"/api/games/{game_id}/review")
    while answer.status_code == 202 and time.monotonic() < deadline:
        assert answer.json()["status"] == "pending"
        time.sleep(0.5)
        answer = api.client.get(f"/api/games/{game_id}/review")
    assert answer.status_code == 200, answer.text
    return answer


def test_pending_answers_count_progress_and_the_review_is_made_once(qapi: Api, queued_app):  # type: ignore[no-untyped-def]
    game_id, seed, log = finished(qapi, 3, moves=25)  # or fewer, if the game ends first
    for _ in range(3):
        r = qapi.client.get(f"/api/games/{game_id}/review")
        assert r.status_code == 202 and r.json() == {"status": "pending", "done": 0, "total": len(log)}
    assert len(rows(queued_app)) == 1
    assert make_all(queued_app) == 1
    assert make_all(queued_app) == 0  # nothing left: it is never made twice
    r = qapi.client.get(f"/api/games/{game_id}/review")
    assert r.status_code == 200 and r.json() == review(3, seed, log)
    schemas.ReviewOut.model_validate(r.json())  # the answer is what the OpenAPI schema says


def test_only_finished_public_games_are_reviewed(qapi: Api, queued_app, monkeypatch):  # type: ignore[no-untyped-def]
    started = qapi.start(4)
    assert qapi.client.get(f"/api/games/{started['id']}/review").status_code == 404
    assert qapi.client.get("/api/games/nosuchgame/review").json() == {
        "error": "there is no finished game 'nosuchgame'"}
    assert qapi.client.get(f"/games/{started['id']}/review").status_code == 404
    # games.get_record alone decides what is public: a game it hides has no review either
    issued, _, _ = qapi.honest(4, moves=10)

    def hidden(session, game_id):  # type: ignore[no-untyped-def]
        raise ClientError(404, f"there is no finished game {game_id!r}")

    monkeypatch.setattr(reviews, "get_record", hidden)
    assert qapi.client.get(f"/api/games/{issued['id']}/review").status_code == 404
    assert qapi.client.get(f"/games/{issued['id']}/review").status_code == 404
    assert rows(queued_app) == []


def test_a_client_may_have_only_a_few_reviews_waiting(settings):  # type: ignore[no-untyped-def]
    app = create_app(no_workers(settings, per_client=2))
    with TestClient(app) as c:
        api = Api(c)
        ids = [api.honest(4, moves=5)[0]["id"] for _ in range(4)]
        assert [c.get(f"/api/games/{i}/review").status_code for i in ids[:2]] == [202, 202]
        refused = c.get(f"/api/games/{ids[2]}/review")
        assert refused.status_code == 429 and refused.headers["Retry-After"]
        assert "2 reviews waiting" in refused.json()["error"]
        assert c.get(f"/games/{ids[2]}/review").status_code == 429
        assert c.get(f"/api/games/{ids[0]}/review").status_code == 202  # asking again costs nothing
        assert len(rows(app)) == 2
        # another client is not held back by this one's queue
        with app.state.sessions() as s:
            record = reviews.get_record(s, ids[2])
            other = reviews.request_review(s, record, "198.51.100.7", ReviewSettings(per_client=2))
            assert other.status == "queued"
        # once its reviews are made, the client may ask for more
        assert c.get(f"/api/games/{ids[3]}/review").status_code == 429
        make_all(app)
        assert c.get(f"/api/games/{ids[0]}/review").status_code == 200
        assert c.get(f"/api/games/{ids[3]}/review").status_code == 202
    app.state.engine.dispose()


def test_a_full_queue_refuses_new_reviews_for_a_while(settings):  # type: ignore[no-untyped-def]
    app = create_app(no_workers(settings, queue=1))
    with TestClient(app) as c:
        api = Api(c)
        a, b = (api.honest(3, moves=5)[0]["id"] for _ in range(2))
        assert c.get(f"/api/games/{a}/review").status_code == 202
        full = c.get(f"/api/games/{b}/review")
        assert full.status_code == 503 and "queue is full" in full.json()["error"]
    app.state.engine.dispose()


def test_two_workers_never_claim_the_same_review(qapi: Api, queued_app):  # type: ignore[no-untyped-def]
    ids = [qapi.honest(3, moves=5)[0]["id"] for _ in range(4)]
    for i in ids:
        assert qapi.client.get(f"/api/games/{i}/review").status_code == 202
    claimed: list[str] = []
    lock = threading.Lock()

    def worker(name: str) -> None:
        with queued_app.state.sessions() as s:
            while (job := reviews.claim(s, name)) is not None:
                with lock:
                    claimed.append(job.game_id)

    threads = [threading.Thread(target=worker, args=(f"w{k}",)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(claimed) == sorted(ids)  # each exactly once
    assert all(r.status == "running" and r.attempts == 1 for r in rows(queued_app))


def test_a_review_whose_worker_died_is_queued_again_then_given_up(qapi: Api, queued_app):  # type: ignore[no-untyped-def]
    issued, _, _ = qapi.honest(3, moves=5)
    qapi.client.get(f"/api/games/{issued['id']}/review")
    t0 = datetime.now(UTC)
    with queued_app.state.sessions() as s:
        for attempt in range(1, reviews.MAX_ATTEMPTS + 1):
            now = t0 + attempt * (reviews.LEASE + timedelta(seconds=1))
            assert reviews.claim(s, f"dead{attempt}", now) is not None
            assert reviews.requeue_stale(s, now) == 0  # still fresh
            later = now + reviews.LEASE + timedelta(seconds=1)
            assert reviews.requeue_stale(s, later) == 1
            # the worker that lost it can no longer write it
            assert not reviews.report(s, issued["id"], f"dead{attempt}", 3, later)
        (row,) = s.query(ReviewRow).all()
        assert row.status == "failed" and "stopped" in row.error
    r = qapi.client.get(f"/api/games/{issued['id']}/review")
    assert r.status_code == 500 and "could not be made" in r.json()["error"]


def test_a_worker_stopping_puts_its_review_back(qapi: Api, queued_app):  # type: ignore[no-untyped-def]
    issued, _, _ = qapi.honest(3, moves=5)
    qapi.client.get(f"/api/games/{issued['id']}/review")
    with queued_app.state.sessions() as s:
        assert reviews.claim(s, "w") is not None
        assert reviews.report(s, issued["id"], "w", 3)
        assert reviews.release(s, issued["id"], "w")
        (row,) = s.query(ReviewRow).all()
        s.refresh(row)
        # whoever claims it next starts from the first move: no progress is shown meanwhile
        assert (row.status, row.attempts, row.worker, row.done) == ("queued", 0, None, 0)


def test_a_review_process_drops_its_piece_when_the_server_stops(monkeypatch):
    game = play(4, 3, 30)
    stopping = threading.Event()
    monkeypatch.setattr(reviews, "_stopping", stopping)
    assert reviews.grade_piece(4, 3, game.log, "fast", 0, 30) == review(4, 3, game.log, "fast")["moves"]
    stopping.set()
    assert reviews.grade_piece(4, 3, game.log, "fast", 0, 30) is None


def test_long_games_are_reviewed_with_the_fast_preset(settings):  # type: ignore[no-untyped-def]
    app = create_app(no_workers(settings, long_moves=12))
    with TestClient(app) as c:
        api = Api(c)
        # no 4x4 game can be over before its 14th move, so these have exactly 12 and 13 moves
        short, long_ = api.honest(4, moves=12)[0]["id"], api.honest(4, moves=13)[0]["id"]
        c.get(f"/api/games/{short}/review")
        c.get(f"/api/games/{long_}/review")
        make_all(app)
        assert c.get(f"/api/games/{short}/review").json()["preset"] == "normal"
        assert c.get(f"/api/games/{long_}/review").json()["preset"] == "fast"
    app.state.engine.dispose()


def test_pieces_cover_the_log_once():
    for n in (0, 1, 199, 200, 4001, 50_000):
        cut = reviews.pieces("L" * n)
        assert cut[0][0] == 0 and cut[-1][1] == n
        assert all(a[1] == b[0] for a, b in itertools.pairwise(cut))
        assert len(cut) <= 26


# -- the page -----------------------------------------------------------------------------------

SCRIPT = re.compile(r"<script\b([^>]*)>", re.S)


def assert_no_inline_script(html: str) -> None:
    """Only data blocks and module files: the page works under a CSP without 'unsafe-inline' scripts."""
    for attrs in SCRIPT.findall(html):
        assert 'type="application/json"' in attrs or ('src="' in attrs and 'type="module"' in attrs), attrs
    assert not re.search(r"<[^>]*\son[a-z]+\s*=", html), "an inline event handler"


def test_the_page_waits_while_the_review_is_made(qapi: Api):
    issued, _, _ = qapi.honest(4, moves=12)
    page = qapi.client.get(f"/games/{issued['id']}/review")
    assert page.status_code == 200
    assert 'id="review-pending"' in page.text and "<progress" in page.text
    assert "0 of 12 moves graded" in page.text
    assert_no_inline_script(page.text)


@pytest.mark.parametrize("lang", ["en", "he", "ru", "th"])
def test_the_page_shows_accuracy_counts_chart_moves_and_boards(qapi: Api, queued_app, lang: str,
                                                              monkeypatch):  # type: ignore[no-untyped-def]
    game = play(4, 77, 12)  # no 4x4 game is over before its 14th move
    game.undo()
    game.move(game.legal_moves()[0])
    kept = qapi.record(game)  # a practice record: kept, public, never ranked
    assert kept.status_code == 201, kept.text
    game_id = kept.json()["id"]
    qapi.client.get(f"/games/{game_id}/review")
    make_all(queued_app)
    page = qapi.client.get(f"/games/{game_id}/review?lang={lang}")
    assert page.status_code == 200
    html = page.text
    result = qapi.client.get(f"/api/games/{game_id}/review").json()
    assert f'data-testid="accuracy">{result["accuracy"]:.1f}<' in html
    # the evaluation graph is drawn by the page's script from the data: nothing of it is sent twice
    assert html.count("<svg") == 0 and 'id="review-graph"' in html and 'role="img"' in html
    assert html.count('class="move c-') == len(result["moves"]) == 13
    data = json.loads(re.search(r'id="review-data">(.*?)</script>', html, re.S).group(1))
    assert [m["n"] for m in data["moves"]] == [m["n"] for m in result["moves"]]
    assert [m["n"] for m in data["moves"] if m["undone"]] == [12]  # the 12th letter was taken back
    assert not any("t" in m for m in data["moves"])  # a practice record has no arrival times
    assert html.count(" undone\"") == 1
    assert len(data["boards"]) == 13 and all(len(b) == 16 for b in data["boards"])
    assert f'lang="{lang}"' in html and (('dir="rtl"' in html) == (lang == "he"))
    assert strings(lang)["accuracy"] in html and strings(lang)["next_mistake"] in html
    assert_no_inline_script(html)
    # the graph's line: one point a move here (a short game), each at its letter of the log
    assert data["curve"]["n"] == [m["n"] for m in result["moves"]]
    assert data["last"] == result["moves"][-1]["n"]
    assert all(0 <= a <= 100 for a in data["curve"]["a"])
    # drawn again from scratch, the same bytes (the chart's id comes from its figures): caches and
    # ETags can hold, in this process and in every other worker
    monkeypatch.setattr(review_routes, "_pages", review_routes.BoundedLRU(review_routes.PAGES_CACHE_BYTES))
    assert qapi.client.get(f"/games/{game_id}/review?lang={lang}").text == html


def test_a_long_game_lists_its_worst_moves(qapi: Api, queued_app, monkeypatch):  # type: ignore[no-untyped-def]
    monkeypatch.setattr(review_routes, "MAX_FRAMES", 20)
    monkeypatch.setattr(review_routes, "WORST_SHOWN", 7)
    game_id, seed, log = finished(qapi, 4, moves=40)
    qapi.client.get(f"/api/games/{game_id}/review")
    make_all(queued_app)
    result = qapi.client.get(f"/api/games/{game_id}/review").json()
    html = qapi.client.get(f"/games/{game_id}/review").text
    data = json.loads(re.search(r'id="review-data">(.*?)</script>', html, re.S).group(1))
    ns = [m["n"] for m in data["moves"]]
    assert ns == sorted(m["n"] for m in worst(result["moves"], 7))
    assert len(ns) == html.count('class="move c-') > 0
    # a dealt game kept when each move reached the server: the page says it beside each move
    times = qapi.client.get(f"/api/games/{game_id}").json()["times"]
    assert [(m["t"], m["gap"]) for m in data["moves"]] == [
        (times[n - 1], times[n - 1] - (times[n - 2] if n > 1 else 0)) for n in ns]
    from game2048 import Game

    first = Game(4, seed)
    for letter in log[: ns[0] - 1]:
        first.move(letter)
    assert data["boards"][0] == [v for row in first.board for v in row]


def test_the_game_page_and_the_leaderboard_link_to_the_review(api: Api):
    issued, _, _ = api.honest(4, moves=30)
    link = f'href="/games/{issued["id"]}/review"'
    assert link in api.client.get(f"/games/{issued['id']}").text
    assert link in api.client.get("/leaderboard?size=4").text


# -- practice records and daily games ------------------------------------------------------------


def test_a_practice_record_is_reviewed_through_the_api_and_the_page(api: Api):
    """What issue 13's checker does: a record sent to POST /api/records, its review polled (202
    until 200) from GET /api/games/{id}/review, and its page drawn with the graph's data."""
    game = play(4, 2024, 50)
    kept = api.record(game)
    assert kept.status_code == 201, kept.text
    game_id = kept.json()["id"]
    first = api.client.get(f"/api/games/{game_id}/review")
    assert first.status_code == 202 and first.json()["status"] == "pending"
    answer = poll(api, game_id)
    assert answer.json() == review(4, 2024, game.log)
    page = api.client.get(f"/games/{game_id}/review")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert 'id="review-graph"' in page.text and 'data-testid="accuracy"' in page.text


def test_a_practice_game_from_a_position_is_reviewed_from_that_position(qapi: Api, queued_app):
    from game2048 import Game

    board = [[2, 4, 8, 16], [0, 0, 2, 0], [0, 0, 0, 0], [0, 4, 0, 0]]
    game = Game.from_board(board, score=40, seed=5)
    for _ in range(10):
        game.move(game.legal_moves()[0])
    kept = qapi.record(game, start={"board": board, "score": 40})
    assert kept.status_code == 201, kept.text
    game_id = kept.json()["id"]
    qapi.client.get(f"/api/games/{game_id}/review")
    make_all(queued_app)
    result = qapi.client.get(f"/api/games/{game_id}/review").json()
    assert result == review(4, 5, game.log, start_board=board)
    html = qapi.client.get(f"/games/{game_id}/review").text
    data = json.loads(re.search(r'id="review-data">(.*?)</script>', html, re.S).group(1))
    assert data["boards"][0] == [v for row in board for v in row]  # the position it began from


def _move_day_back(app, game_id: str, days: int) -> None:  # type: ignore[no-untyped-def]
    from sqlalchemy import update

    from game2048.server.storage.models import GameRow

    with app.state.sessions() as s:
        row = s.get(GameRow, game_id)
        s.execute(update(GameRow).where(GameRow.id == game_id).values(day=row.day - timedelta(days=days)))
        s.commit()


def test_a_daily_game_is_reviewed_only_once_its_day_is_over(qapi: Api, queued_app):
    issued, played, done = qapi.honest(4, 20, mode="daily")
    assert done.status_code == 200 and done.json()["seed"] is None
    game_id = issued["id"]
    hidden = qapi.client.get(f"/api/games/{game_id}/review")
    assert hidden.status_code == 404 and "day is over" in hidden.json()["error"]
    record = qapi.client.get(f"/api/games/{game_id}")  # hidden exactly as the record itself is
    assert (hidden.status_code, hidden.json()) == (record.status_code, record.json())
    assert qapi.client.get(f"/games/{game_id}/review").status_code == 404
    assert qapi.client.get(f"/games/{game_id}").status_code == 404
    assert rows(queued_app) == []  # nothing queued: its moves stay secret
    # two days back: yesterday's game is still in its grace in the first ten minutes after midnight
    _move_day_back(queued_app, game_id, 2)
    assert qapi.client.get(f"/api/games/{game_id}/review").status_code == 202
    make_all(queued_app)
    seed = qapi.stored(game_id)["seed"]
    assert qapi.client.get(f"/api/games/{game_id}/review").json() == review(4, seed, played.log)
    assert qapi.client.get(f"/games/{game_id}/review").status_code == 200


# -- caching, HEAD, statuses, CPU budget ---------------------------------------------------------


def _made(qapi: Api, app, moves: int = 20) -> str:  # type: ignore[no-untyped-def]
    game_id, _, _ = finished(qapi, 4, moves=moves)
    qapi.client.get(f"/api/games/{game_id}/review")
    make_all(app)
    return game_id


def test_a_made_review_has_an_etag_and_answers_304(qapi: Api, queued_app):
    game_id = _made(qapi, queued_app)
    path = f"/api/games/{game_id}/review"
    r = qapi.client.get(path)
    assert r.status_code == 200 and r.headers["etag"] and "max-age" in r.headers["cache-control"]
    again = qapi.client.get(path, headers={"if-none-match": r.headers["etag"]})
    assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == r.headers["etag"]
    other = qapi.client.get(path, headers={"if-none-match": '"something-else"'})
    assert other.status_code == 200 and other.content == r.content


def test_a_pending_review_is_never_cached(qapi: Api):
    game_id, _, _ = finished(qapi, 4, moves=10)
    for path in (f"/api/games/{game_id}/review", f"/games/{game_id}/review"):
        r = qapi.client.get(path)
        assert r.status_code in (200, 202) and r.headers["cache-control"] == "no-store"
        assert "etag" not in r.headers


def test_the_review_page_has_an_etag_per_language_and_answers_304(qapi: Api, queued_app):
    game_id = _made(qapi, queued_app)
    path = f"/games/{game_id}/review"
    en = qapi.client.get(path, headers={"accept-language": "en"})
    assert en.status_code == 200 and "max-age" in en.headers["cache-control"]
    assert "Accept-Language" in en.headers["vary"]
    assert qapi.client.get(path, headers={"if-none-match": en.headers["etag"],
                                          "accept-language": "en"}).status_code == 304
    ru = qapi.client.get(path, headers={"if-none-match": en.headers["etag"], "accept-language": "ru"})
    assert ru.status_code == 200 and ru.headers["etag"] != en.headers["etag"]


def test_head_of_the_review_and_its_page(qapi: Api, queued_app):
    game_id = _made(qapi, queued_app)
    for path in (f"/games/{game_id}/review", f"/api/games/{game_id}/review"):
        got, head = qapi.client.get(path), qapi.client.head(path)
        assert head.status_code == 200 and head.content == b""
        assert head.headers["etag"] == got.headers["etag"]
        assert head.headers["content-length"] == got.headers["content-length"]
    assert qapi.client.head("/api/games/nosuchgame/review").status_code == 404


def test_the_page_is_drawn_once_per_game_and_language_and_charged_to_the_viewer(qapi: Api, queued_app,
                                                                                monkeypatch):
    game_id = _made(qapi, queued_app)
    drawn = []
    real = review_routes._drawn
    monkeypatch.setattr(review_routes, "_drawn", lambda *a: drawn.append(a) or real(*a))
    spent = []
    budget = queued_app.state.cpu_budget
    real_spend = budget.spend
    monkeypatch.setattr(budget, "spend", lambda client, kind, key=None: spent.append(kind) or real_spend(
        client, kind, key))
    for lang in ("en", "en", "en", "th", "th"):
        assert qapi.client.get(f"/games/{game_id}/review?lang={lang}").status_code == 200
    assert len(drawn) == 2 and spent == ["page", "page"]
    assert review_routes._pages.size <= review_routes.PAGES_CACHE_BYTES


def test_a_viewer_whose_cpu_budget_is_spent_is_refused_before_the_page_is_drawn(qapi: Api, queued_app,
                                                                                 monkeypatch):
    game_id = _made(qapi, queued_app)
    monkeypatch.setattr(review_routes, "_pages", review_routes.BoundedLRU(review_routes.PAGES_CACHE_BYTES))
    clear_of_a_minute_edge(5.0)  # the budget stays full until the refusal
    budget = queued_app.state.cpu_budget
    budget.charge("testclient", 3600.0)
    r = qapi.client.get(f"/games/{game_id}/review")
    assert r.status_code == 429 and "CPU" in r.json()["error"] and int(r.headers["retry-after"]) >= 1
    assert qapi.client.get(f"/api/games/{game_id}/review").status_code == 200  # the JSON is stored


def test_the_openapi_description_lists_the_review_statuses(client):
    paths = client.get("/openapi.json").json()["paths"]
    given = paths["/api/games/{game_id}/review"]["get"]["responses"]
    assert {"200", "202", "304", "404", "422", "429", "500", "503"} <= set(given)
    assert given["202"]["content"]["application/json"]["schema"]["$ref"].endswith("/PendingOut")
    assert all(given[code]["description"] for code in given)
    assert "/games/{game_id}/review" not in paths  # the page is not part of the API


def test_the_same_record_kept_five_times_is_reviewed_once(qapi: Api, queued_app):  # type: ignore[no-untyped-def]
    game = play(4, 77, 30)
    ids = [qapi.record(game, name=f"copy{i}").json()["id"] for i in range(5)]
    assert len(set(ids)) == 5
    for game_id in ids:
        assert qapi.client.get(f"/api/games/{game_id}/review").status_code == 202
    assert make_all(queued_app) == 1  # one made; the four others copied when their turn came
    answers = [qapi.client.get(f"/api/games/{game_id}/review") for game_id in ids]
    assert all(a.status_code == 200 for a in answers)
    assert len({json.dumps(a.json()["moves"]) for a in answers}) == 1
    other = qapi.record(game, name="later").json()["id"]  # asked after it was made: done at once
    assert qapi.client.get(f"/api/games/{other}/review").status_code == 200


def test_the_queue_serves_the_address_served_least_first(queued_app):  # type: ignore[no-untyped-def]
    greedy = TestClient(queued_app, client=("203.0.113.50", 1))
    modest = TestClient(queued_app, client=("198.51.100.50", 1))
    greedy_ids = [Api(greedy).record(play(4, s, 20), name="g").json()["id"] for s in range(1, 4)]
    for game_id in greedy_ids[:1]:
        assert greedy.get(f"/api/games/{game_id}/review").status_code == 202
    assert make_all(queued_app) == 1  # the greedy address was served once this hour
    for game_id in greedy_ids[1:]:
        assert greedy.get(f"/api/games/{game_id}/review").status_code == 202
    late = Api(modest).record(play(4, 9, 20), name="m").json()["id"]
    assert modest.get(f"/api/games/{late}/review").status_code == 202  # asked last of all
    with queued_app.state.sessions() as s:
        job = reviews.claim(s, "w")
    assert job is not None and job.game_id == late


def test_a_reviews_cpu_time_counts_against_who_asked(qapi: Api, queued_app):  # type: ignore[no-untyped-def]
    charged: list[tuple[str, float]] = []
    game_id = qapi.record(play(4, 5, 30)).json()["id"]
    other = qapi.record(play(4, 6, 30)).json()["id"]
    assert qapi.client.get(f"/api/games/{game_id}/review").status_code == 202
    queue = reviews.ReviewQueue(queued_app.state.sessions, ReviewSettings(workers=1),
                                executor=lambda: ThreadPoolExecutor(1),
                                charge=lambda client, seconds: charged.append((client, seconds)))
    assert queue.work_once()
    queue.stop()
    assert charged and {c for c, _ in charged} == {"testclient"} and sum(s for _, s in charged) > 0
    clear_of_a_minute_edge(5.0)  # the budget stays full until the refusal
    queued_app.state.cpu_budget.charge("testclient", 3600.0)  # spent: no new review for it
    refused = qapi.client.get(f"/api/games/{other}/review")
    assert refused.status_code == 429 and "Retry-After" in refused.headers
