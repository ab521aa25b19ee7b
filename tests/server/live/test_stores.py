"""Both stores of games in play (the database, and Redis when REDIS_URL is set) play the same games,
and idle games are removed.

The Redis tests run against the real Redis on 127.0.0.1:6379 (database 15, keys of this run only).
"""

from __future__ import annotations

import socket
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from datetime import timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select, update

from game2048 import replay, slide
from game2048.server import create_app, live
from game2048.server.errors import ClientError
from game2048.server.live.stores import DatabaseStore, RedisStore
from game2048.server.storage.db import utc_now
from game2048.server.storage.models import DailyTryRow, GameRow

from ..conftest import NAMES, Api, Played

REDIS_URL = "redis://127.0.0.1:6379/15"


def _redis_reachable() -> bool:
    try:
        socket.create_connection(("127.0.0.1", 6379), timeout=1).close()
    except OSError:
        return False
    return True


@pytest.fixture
def redis_app(settings) -> Iterator:  # type: ignore[no-untyped-def]
    if not _redis_reachable():
        pytest.skip("Redis not reachable at 127.0.0.1:6379 (the Redis store needs a real Redis)")
    app = create_app(replace(settings, redis_url=REDIS_URL))
    store = app.state.store
    assert isinstance(store, RedisStore)
    store.PREFIX = f"game2048-test-{uuid.uuid4().hex[:8]}:"  # this run's keys only
    # the test client's counts and CPU budget, kept in the same Redis for a minute or two: a fresh
    # start, as an app with its limits in memory has (a run just before may have spent the budget)
    counts = "LIMITS:*/testclient/*"
    for key in store.redis.scan_iter(counts):
        store.redis.delete(key)
    yield app
    for key in [*store.redis.scan_iter(f"{store.PREFIX}*"), *store.redis.scan_iter(counts)]:
        store.redis.delete(key)
    app.state.engine.dispose()


def test_the_default_store_is_the_database(app):
    assert isinstance(app.state.store, DatabaseStore)


def test_a_game_in_redis_is_dealt_retried_finished_and_revealed(redis_app):
    api = Api(TestClient(redis_app))
    played = api.served(4, 30)
    store = redis_app.state.store
    with redis_app.state.sessions() as s:  # the database holds what the game was issued as, not its play
        row = s.get(GameRow, played.issued["id"])
        assert row.live is None and row.at == 0 and row.finished_at is None
    assert store.redis.exists(store._keys(played.issued["id"])[0])
    again = api.moves(played.issued, played.at - 1, played.log[-1])
    assert again.json() == played.answers[-1]
    fork = next(x for x in "LDRU" if x != played.log[3])
    assert api.moves(played.issued, 3, fork).status_code == 409
    assert api.state(played.issued).json()["log"] == played.log
    done = api.finish(played.issued)
    assert done.status_code == 200 and api.finish(played.issued).json() == done.json()
    assert not store.redis.exists(store._keys(played.issued["id"])[0])
    assert not any(store.redis.exists(key) for key in store._keys(played.issued["id"]))
    record = api.stored(played.issued["id"])
    assert record["log"] == played.log
    times = record["times"]  # each letter's arrival, kept beside the log in Redis until the finish
    assert len(times) == len(played.log) and times == sorted(times) and times[0] >= 0
    assert replay(4, record["seed"], record["log"]).board == played.board
    assert api.moves(played.issued, played.at, "L").status_code == 409


def test_redis_counts_daily_tries_and_lets_exactly_the_limit_through(redis_app):
    store = redis_app.state.store

    def start(_: int) -> str:
        try:
            live.start(store, redis_app.state.secret, 4, "daily", client="192.0.2.1", daily_tries=3)
            return "ok"
        except ClientError as exc:
            return str(exc.status)

    with ThreadPoolExecutor(6) as pool:
        outcomes = list(pool.map(start, range(10)))
    assert outcomes.count("ok") == 3 and outcomes.count("429") == 7


def test_redis_keeps_a_try_past_its_networks_allowance_unranked(redis_app):
    from game2048.server.limits.daily import Tries

    store, secret = redis_app.state.store, redis_app.state.secret
    tries = Tries("a browser", "192.0.2.7", per_browser=3, per_network=0)
    started = live.start(store, secret, 4, "daily", tries=tries)
    assert started.position.ranked is False and store.load(started.id).unranked == "tries"
    live.forget(started.id)  # the next move reads the game from Redis
    letter = next(x for x in "LDRU" if slide(started.position.board, NAMES[x])[0] != started.position.board)
    moved = live.play(store, secret, started.id, token=started.token, at=0, moves=letter)
    assert moved.ranked is False
    api = Api(TestClient(redis_app))
    done = api.finish({"id": started.id, "token": started.token})
    assert (done.json()["ranked"], done.json()["unranked"]) == (False, "tries")


def test_racing_moves_in_redis_extend_a_game_once(redis_app):
    api = Api(TestClient(redis_app))
    played = api.served(4, 2)
    issued = played.issued
    letters = [x for x in "LDRU" if slide(played.board, NAMES[x])[0] != played.board]

    def move(i: int) -> str:
        try:
            live.play(redis_app.state.store, redis_app.state.secret, issued["id"], token=issued["token"],
                      at=played.at, moves=letters[i % len(letters)])
            return "ok"
        except ClientError as exc:
            return str(exc.status)

    with ThreadPoolExecutor(8) as pool:
        outcomes = list(pool.map(move, range(16)))
    assert set(outcomes) <= {"ok", "409"} and "ok" in outcomes
    assert api.state(issued).json()["at"] == played.at + 1


def test_idle_games_are_removed_and_finished_ones_kept(app, api):
    idle, fresh = api.served(4, 3), api.served(4, 3)
    _, finished, _ = api.honest(4, 3)
    long_ago = utc_now() - timedelta(days=8)
    with app.state.sessions() as s:
        s.execute(update(GameRow).where(GameRow.id.in_([idle.issued["id"], finished.issued["id"]]))
                  .values(touched_at=long_ago, created_at=long_ago))
        s.add(DailyTryRow(client="x" * 64, day=(utc_now() - timedelta(days=3)).date(), size=4, tries=1))
        s.commit()
    assert app.state.store.purge(utc_now(), timedelta(days=7)) == 1
    assert api.moves(idle.issued, idle.at, "L").status_code == 404
    assert api.state(fresh.issued).status_code == 200
    assert api.stored(finished.issued["id"]) is not None
    with app.state.sessions() as s:  # the old counter went; today's (the finish's new name) stays
        assert [row.day for row in s.scalars(select(DailyTryRow))] == [utc_now().date()]


def _asked_boards_are_kept_a_while(store) -> None:  # type: ignore[no-untyped-def]
    """``note_asked`` and ``asked_since`` on ``store``: boards by client, asked again moves their
    time on, and what is older than an idle game is forgotten (by the purge, or in Redis as it
    expires)."""
    now = utc_now()
    store.note_asked("a" * 64, {"b1", "b2"}, now - timedelta(days=3))
    store.note_asked("a" * 64, {"b2", "b3"}, now)  # b2 again: asked now
    store.note_asked("c" * 64, {"b9"}, now)
    assert store.asked_since("a" * 64, now - timedelta(days=1)) == {"b2", "b3"}
    assert store.asked_since("d" * 64, now - timedelta(days=4)) == set()
    store.purge(now, timedelta(days=2))
    assert store.asked_since("a" * 64, now - timedelta(days=4)) == {"b2", "b3"}


def test_the_database_keeps_asked_boards_a_while(app):
    _asked_boards_are_kept_a_while(app.state.store)


def test_redis_keeps_asked_boards_a_while(redis_app):
    store = redis_app.state.store
    store.ttl = 2 * 24 * 3600  # an idle game's time in Redis: what it keeps asked boards for
    _asked_boards_are_kept_a_while(store)


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_sqlite_moves_keep_touched_at_fresh_and_write_it_at_most_once_an_hour(app, api):
    """SQLite rewrites an index entry whenever its column is in the UPDATE's SET, even unchanged:
    a move names ``touched_at`` only when this process has not set it for the game within the
    hour, so the purge's index is written once an hour a game, not once a move; after any move
    ``touched_at`` is at most an hour old."""
    store = app.state.store
    played = api.served(4, 2)
    game_id, token = played.issued["id"], played.issued["token"]
    store._touched.clear()  # as a process that has not touched the game yet (a restart)
    live.forget(None)
    statements: list[str] = []
    conn = store._sqlite_connection()
    conn.set_trace_callback(statements.append)
    start = utc_now().replace(microsecond=0) + timedelta(hours=5)
    board, at = played.board, played.at

    def move(now):  # type: ignore[no-untyped-def]
        nonlocal board, at
        letter = next(x for x in "LDRU" if slide(board, NAMES[x])[0] != board)
        p = live.play(store, app.state.secret, game_id, token=token, at=at, moves=letter, now=now)
        board, at = p.board, p.at

    def touched():  # type: ignore[no-untyped-def]
        with app.state.sessions() as s:
            return s.get(GameRow, game_id).touched_at.replace(tzinfo=None)

    try:
        move(start)
        assert touched() == start.replace(tzinfo=None)
        for minutes in (1, 30, 59):
            move(start + timedelta(minutes=minutes))
        assert touched() == start.replace(tzinfo=None)
        updates = [q for q in statements if q.startswith("UPDATE games")]
        assert len(updates) == 4 and ["touched_at" in q for q in updates] == [True, False, False, False]
        later = start + timedelta(minutes=61)
        move(later)
        assert touched() == later.replace(tzinfo=None)
    finally:
        conn.set_trace_callback(None)


def test_idle_games_in_redis_expire_and_their_rows_go(redis_app):
    api = Api(TestClient(redis_app))
    idle = api.play_on(Played(api.start(3)), 2)
    store = redis_app.state.store
    store.redis.delete(*store._keys(idle.issued["id"]))  # what Redis does when the idle time runs out
    long_ago = utc_now() - timedelta(days=8)
    with redis_app.state.sessions() as s:
        s.execute(update(GameRow).where(GameRow.id == idle.issued["id"]).values(created_at=long_ago))
        s.commit()
    assert store.purge(utc_now(), timedelta(days=7)) == 1
    assert api.moves(idle.issued, idle.at, "L").status_code == 404
    assert store.redis.ttl(store._keys(api.start(3)["id"])[0]) > 6 * 24 * 3600


def test_a_move_appends_its_letters_and_never_rewrites_the_log(app, api):  # type: ignore[no-untyped-def]
    """What a move writes does not grow with the game: the row keeps the position, each move's
    letters are an entry of their own (a row of ``game_moves``; on SQLite the newest ones in the
    row's tail until a move takes them there), and the finish writes the whole log once."""
    from sqlalchemy import func, select

    from game2048.server.live.stores import tail
    from game2048.server.storage.models import GameMoveRow

    played = api.served(4, 40)
    game_id = played.issued["id"]
    with app.state.sessions() as s:
        row = s.get(GameRow, game_id)
        assert row.log == "" and row.at == 40
        chunks = s.scalars(select(GameMoveRow.letters).where(GameMoveRow.game_id == game_id)
                           .order_by(GameMoveRow.at)).all()
        waiting = [letters for _, _, letters in tail.entries(row.tail)]
        assert "".join(chunks + waiting) == played.log and len(chunks) + len(waiting) == 40
        if app.state.store.sqlite:  # the move that passed letter 32 took the tail to game_moves
            assert (len(chunks), len(waiting)) == (tail.TAIL_LETTERS, 40 - tail.TAIL_LETTERS)
        else:
            assert row.tail == ""
    assert app.state.store.load(game_id, log=False).log == ""
    assert app.state.store.load(game_id).log == played.log
    started, arrived = app.state.store.arrivals(game_id)
    assert started is not None and [at for at, _ in arrived] == list(range(40))
    assert all(ms is not None for _, ms in arrived)
    assert api.finish(played.issued).status_code == 200
    with app.state.sessions() as s:
        finished = s.get(GameRow, game_id)
        assert finished.log == played.log and finished.tail == "" and finished.times is not None
        left = select(func.count()).select_from(GameMoveRow).where(GameMoveRow.game_id == game_id)
        assert s.scalar(left) == 0


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_sqlite_tails_hold_every_letter_of_long_messages_and_retries(app, monkeypatch):  # type: ignore[no-untyped-def]
    """Messages of several letters that cross the tail's limit, a retry of each, and a save
    refused by the compare-and-set: the log read back is always the letters played, once each,
    and the arrival times one for each message, in order."""
    from game2048.server.live.stores import tail

    store, secret = app.state.store, app.state.secret
    monkeypatch.setattr(live.starting, "classic_seed", lambda: 2048)  # one deal, which lasts long on 6x6
    started = live.start(store, secret, 6, "classic")
    game = replay(6, 2048, "")  # the same deal as the server's
    letters, starts = "", []
    for size in (5, 13, 31, 2, 40, 7, 33, 3):  # 134 letters: the last 3 wait in the tail
        batch = ""
        while len(batch) < size and not game.over:
            batch += next(d for d in "LDRU" if game.play(d))
        answer = live.play(store, secret, started.id, token=started.token, at=len(letters), moves=batch)
        again = live.play(store, secret, started.id, token=started.token, at=len(letters), moves=batch)
        assert answer.at == again.at == len(letters) + len(batch)  # the retry stored nothing twice
        starts.append(len(letters))
        letters += batch
        assert store.load(started.id).log == letters
    assert not store.save(started.id, len(letters) - 1, "L", "{}", utc_now())  # stale: nothing written
    assert store.load(started.id).log == letters
    assert [at for at, _ in store.arrivals(started.id)[1]] == starts
    with app.state.sessions() as s:
        waiting = tail.entries(s.get(GameRow, started.id).tail)
    assert [m for _, _, m in waiting] == [letters[-3:]]  # the message that passed 128 took the rest


def test_sqlite_writes_the_position_only_with_the_moves_that_empty_the_tail(app, monkeypatch):  # type: ignore[no-untyped-def]
    """On SQLite a move leaves the row's position where it stands (``live_at``) unless it takes
    the tail to game_moves or its game was read from the store; every read of the game brings it
    to ``at`` with the tail's letters, undos included, exactly as the game played through.
    Elsewhere each move writes it."""
    from game2048.server.live.stores import tail

    store, secret = app.state.store, app.state.secret
    monkeypatch.setattr(live.starting, "classic_seed", lambda: 2048)
    started = live.start(store, secret, 4, "classic")
    game = replay(4, 2048, "")  # the same deal as the server's
    letters, written, kinds = "", 0, []
    for n in range(70):
        if n % 9 == 8 and game.undos_left:
            batch = "Z"
            assert game.play("Z") == 1
        else:
            batch = next(d for d in "LDRU" if game.play(d))
        if n % 5 == 4:
            live.forget(started.id)  # as if another worker played the last move
        remembered = (started.id, len(letters)) in live.moving.recent._games
        answer = live.play(store, secret, started.id, token=started.token, at=len(letters), moves=batch)
        letters += batch
        tile = game.last_tile()
        assert (answer.at, answer.board, answer.score) == (len(letters), game.board, game.score)
        assert answer.tile == tile
        assert store.load(started.id, log=False).snapshot == game.snapshot() | {
            "tile": list(tile) if tile else None}
        with app.state.sessions() as s:
            row = s.get(GameRow, started.id)
        if not store.sqlite:
            assert row.live_at is None and row.tail == ""
            continue
        if tail.moves_out(len(letters) - len(batch), batch):
            assert row.live_at is None and row.tail == ""  # written with the tail's move
            written = len(letters)
            kinds.append("flushed")
        elif not remembered:  # a move on a game read from the store writes it too, the tail kept
            assert row.live_at is None and tail.letters_since(row.tail, 0)[-1] == batch
            written = len(letters)
            kinds.append("read")
        else:
            assert row.live_at == written and tail.letters_since(row.tail, written) == letters[written:]
            kinds.append("left")
    assert "Z" in letters
    if store.sqlite:
        assert kinds.count("flushed") == 2 and kinds.count("read") >= 14 and kinds.count("left") >= 40
    last = {"token": started.token, "at": len(letters) - 1, "moves": letters[-1]}
    retried = live.play(store, secret, started.id, **last)
    live.forget(started.id)
    again = live.play(store, secret, started.id, **last)
    assert again == retried and again.at == len(letters)  # a retry is answered as the first time


def test_the_next_move_of_a_game_this_process_just_moved_reads_nothing(app, api, monkeypatch):  # type: ignore[no-untyped-def]
    played = api.served(4, 3)
    store = app.state.store
    loads: list[bool] = []
    real = store.load
    monkeypatch.setattr(store, "load",
                        lambda game_id, log=True, **rest: loads.append(log) or real(game_id, log=log, **rest))
    for _ in range(5):
        api.play_on(played, 1)
    assert loads == []  # each move was one write, from the game kept in memory
    assert api.state(played.issued).json()["log"] == played.log  # and the store has every letter
