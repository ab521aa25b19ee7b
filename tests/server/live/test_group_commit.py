"""SQLite's group commit (``live.commits``): the moves saved on the event loop's thread during one
turn of the loop share one transaction and one commit; none is answered before that commit, and a
failed commit keeps nothing of its batch and fails every move in it."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from game2048.server import Settings, create_app, live
from game2048.server.live.commits import DISK_WINDOW, LONE
from game2048.server.live.stores import DatabaseStore
from game2048.server.storage.db import WORKERS_ENV, _Writer, one_writer_for

from ..conftest import in_a_thread_of_its_own, next_move

SECRET = "s" * 32


@pytest.fixture
def store(tmp_path: Path) -> DatabaseStore:
    """An SQLite store with company for its batches: two movers (as two play sockets) held open."""
    app = create_app(Settings(database_url=f"sqlite:///{tmp_path / 'g.sqlite3'}", secret=SECRET,
                              rate_limit="0", move_rate_limit="0"))
    live.forget()
    commits = app.state.store.commits
    with commits.mover(), commits.mover():
        yield app.state.store
    live.forget()
    app.state.engine.dispose()


def _stored_at(store: DatabaseStore, game_id: str) -> int:
    """``at`` as another connection (another thread, another worker) reads it: committed moves only."""
    conn = sqlite3.connect(store.engine.url.database)
    try:
        return conn.execute("SELECT at FROM games WHERE id = ?", (game_id,)).fetchone()[0]
    finally:
        conn.close()


def _first_move(started: live.Started) -> str:
    letter = next_move(started.position.board)
    assert letter is not None
    return letter


class _CountingConnection:
    """A connection that counts its commits (or fails them), passing everything else through."""

    def __init__(self, real: Any, fail: bool = False) -> None:
        self.real, self.fail, self.commits = real, fail, 0

    def commit(self) -> None:
        if self.fail:
            raise sqlite3.OperationalError("disk I/O error")
        self.commits += 1
        self.real.commit()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)


@in_a_thread_of_its_own
def test_moves_of_one_loop_turn_share_one_commit_and_wait_for_it(store: DatabaseStore) -> None:
    games = [live.start(store, SECRET, 4, "classic") for _ in range(3)]
    answers = [live.play(store, SECRET, g.id, token=g.token, at=0, moves=_first_move(g)) for g in games]
    conn = _CountingConnection(store._sqlite_connection())  # counts the commits from here on
    store._own.conn = conn

    async def turn() -> None:
        commits = store.commits
        assert commits is not None
        batches = []
        for started, answer in zip(games, answers, strict=True):  # three sockets' moves, in one turn
            with commits:
                live.play(store, SECRET, started.id, token=started.token, at=1,
                          moves=next_move(answer.board) or "L")
            batches.append(commits.joined)
        assert batches[0] is not None and all(b is batches[0] for b in batches)
        # saved in the open transaction, not committed: no other connection sees them yet
        assert [_stored_at(store, g.id) for g in games] == [1, 1, 1]
        assert conn.commits == 0
        await asyncio.gather(*(live.committed(commits, g.id) for g in games))
        assert conn.commits == 1
        assert [_stored_at(store, g.id) for g in games] == [2, 2, 2]

    asyncio.run(turn())


@in_a_thread_of_its_own
def test_a_failed_commit_keeps_nothing_of_its_batch_and_fails_every_move(store: DatabaseStore) -> None:
    games = [live.start(store, SECRET, 4, "classic") for _ in range(2)]
    answers = [live.play(store, SECRET, g.id, token=g.token, at=0, moves=_first_move(g)) for g in games]
    letters = [next_move(a.board) or "L" for a in answers]
    store._own.conn = _CountingConnection(store._sqlite_connection(), fail=True)

    async def turn() -> list[BaseException | None]:
        commits = store.commits
        assert commits is not None
        for started, letter in zip(games, letters, strict=True):
            with commits:
                live.play(store, SECRET, started.id, token=started.token, at=1, moves=letter)
        return await asyncio.gather(*(live.committed(commits, g.id) for g in games), return_exceptions=True)

    results = asyncio.run(turn())
    assert all(isinstance(r, sqlite3.OperationalError) for r in results)
    assert [_stored_at(store, g.id) for g in games] == [1, 1]
    # the connection was let go, and what the process held of the games was forgotten: the same
    # moves sent again are played from what the store has (at 1), and land
    assert not isinstance(getattr(store._own, "conn", None), _CountingConnection)
    for started, letter in zip(games, letters, strict=True):
        answer = live.play(store, SECRET, started.id, token=started.token, at=1, moves=letter)
        assert answer.at == 2
    assert [_stored_at(store, g.id) for g in games] == [2, 2]


@in_a_thread_of_its_own
def test_a_failed_statement_rolls_back_the_whole_batch(store: DatabaseStore) -> None:
    first, second = (live.start(store, SECRET, 4, "classic") for _ in range(2))

    async def turn() -> None:
        commits = store.commits
        assert commits is not None
        with commits:
            live.play(store, SECRET, first.id, token=first.token, at=0, moves=_first_move(first))
        batch = commits.joined
        waiting = asyncio.ensure_future(batch.waiter())  # type: ignore[union-attr]
        real = store._save_sql
        broken = "UPDATE no_such_table SET at = 1"
        store._save_sql = (broken,) * len(real)  # every shape of the update (touched_at, the tail) fails
        try:
            with commits, pytest.raises(sqlite3.OperationalError):
                live.play(store, SECRET, second.id, token=second.token, at=0, moves=_first_move(second))
        finally:
            store._save_sql = real
        with pytest.raises(sqlite3.OperationalError):
            await waiting  # the first move's batch failed with it: it was never acknowledged
        assert commits.batch is None

    asyncio.run(turn())
    live.forget()
    assert [_stored_at(store, g.id) for g in (first, second)] == [0, 0]


def test_saves_outside_the_loop_commit_at_once(store: DatabaseStore) -> None:
    started = live.start(store, SECRET, 4, "classic")
    live.play(store, SECRET, started.id, token=started.token, at=0, moves=_first_move(started))
    assert _stored_at(store, started.id) == 1  # no loop, no batch: committed before play returned
    assert store.commits is not None and store.commits.batch is None


def test_the_writer_lock_is_reentrant_in_its_thread_and_excludes_others(store: DatabaseStore) -> None:
    writer = one_writer_for(store.engine)
    entered = threading.Event()

    def other() -> None:
        with writer:
            entered.set()

    with writer:
        with writer:  # the loop's thread writing again inside its open batch
            pass
        t = threading.Thread(target=other)
        t.start()
        assert not entered.wait(0.2)  # still held by the outer hold
    assert entered.wait(5)
    t.join()


def test_server_processes_queue_on_a_file_lock_only_when_there_are_several(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    database = str(tmp_path / "g.sqlite3")
    lone = _Writer(database)  # one server process: its thread lock alone, no system call
    with lone:
        pass
    assert lone.path is None and not Path(f"{database}.writer-lock").exists()
    monkeypatch.setenv(WORKERS_ENV, "2")  # as ``serve --workers 2`` sets it for its workers
    shared = _Writer(database)
    probe = ("import fcntl, os, sys; fd = os.open(sys.argv[1], os.O_RDWR)\n"
             "try:\n    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)\n"
             "except BlockingIOError:\n    sys.exit(3)")
    with shared:  # another process cannot take the file while a worker writes
        held = subprocess.run([sys.executable, "-c", probe, f"{database}.writer-lock"], check=False)
    assert held.returncode == 3
    free = subprocess.run([sys.executable, "-c", probe, f"{database}.writer-lock"], check=False)
    assert free.returncode == 0


def test_over_the_socket_every_move_is_answered_after_its_commit(tmp_path: Path) -> None:
    """Moves sent without waiting for their answers, on three sockets at once: every answer's ``at``
    is in the database by the time the answer arrives."""
    app = create_app(Settings(database_url=f"sqlite:///{tmp_path / 'g.sqlite3'}", secret=SECRET,
                              rate_limit="0", move_rate_limit="0"))
    store = app.state.store
    with TestClient(app) as client, contextlib.ExitStack() as stack:
        issued = [client.post("/api/games", json={"size": 4}).json() for _ in range(3)]
        sockets = [stack.enter_context(client.websocket_connect(f"/api/games/{g['id']}/play"))
                   for g in issued]
        for ws, g in zip(sockets, issued, strict=True):
            ws.send_json({"op": "moves", "token": g["token"], "at": 0, "moves": "L",
                          "skip_illegal": True})
            ws.send_json({"op": "moves", "token": g["token"], "chain": True, "moves": "D",
                          "skip_illegal": True})
        for ws, g in zip(sockets, issued, strict=True):
            for _ in range(2):
                answer = ws.receive_json()
                assert answer["op"] == "moves" and "status" not in answer, answer
                assert _stored_at(store, g["id"]) >= answer["at"]
    app.state.engine.dispose()


@in_a_thread_of_its_own
def test_disk_durability_flushes_a_batch_after_a_short_window(tmp_path: Path) -> None:
    env = {"GAME2048_MOVE_DURABILITY": "disk", "GAME2048_RATE_LIMIT": "0"}
    app = create_app(Settings.from_env(f"sqlite:///{tmp_path / 'disk.sqlite3'}", env=env))
    store = app.state.store
    assert store.commits is not None and store.commits.window == DISK_WINDOW > 0
    started = live.start(store, SECRET, 4, "classic")

    async def turn() -> None:
        loop = asyncio.get_running_loop()
        with store.commits:
            live.play(store, SECRET, started.id, token=started.token, at=0, moves=_first_move(started))
        begun = loop.time()
        await live.committed(store.commits, started.id)
        assert loop.time() - begun >= DISK_WINDOW * 0.9  # it waited for more moves to share the flush

    with store.commits.mover(), store.commits.mover():  # two sockets: company worth waiting for
        asyncio.run(turn())
    assert _stored_at(store, started.id) == 1
    with store._connection() as conn:
        assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL: the commit is flushed
    app.state.engine.dispose()


@in_a_thread_of_its_own
def test_a_light_load_commits_each_move_on_its_own_and_tries_a_batch_again(store: DatabaseStore) -> None:
    """Batches of one move in a row (nobody to share the commit with): the next saves commit on
    their own, without waiting for the loop's turn to end; after ``SOLO`` of them, a batch again."""
    from game2048.server.live.commits import LONE, SOLO

    started = live.start(store, SECRET, 4, "classic")
    commits = store.commits
    assert commits is not None

    async def moves() -> list[bool]:
        grouped, at, board = [], 0, started.position.board
        for _ in range(LONE + SOLO + 1):
            letter = next_move(board)
            if letter is None:
                break
            with commits:
                answer = live.play(store, SECRET, started.id, token=started.token, at=at, moves=letter)
            grouped.append(commits.joined is not None)
            if commits.joined is None:  # committed on its own: already there for everyone
                assert _stored_at(store, started.id) == answer.at
            await live.committed(commits, started.id)
            at, board = answer.at, answer.board
        return grouped

    grouped = asyncio.run(moves())
    assert len(grouped) == LONE + SOLO + 1, "the game ended too soon for this test"
    assert grouped == [True] * LONE + [False] * SOLO + [True]


def test_a_second_event_loop_never_joins_another_loops_batch(store: DatabaseStore) -> None:
    """Two loops on two threads over one store (two test clients, say): a save on the second
    while the first's batch is open commits on its own, after that batch, and is kept."""
    first, second = (live.start(store, SECRET, 4, "classic") for _ in range(2))
    opened = threading.Event()
    seen: dict[str, object] = {}

    def one() -> None:
        async def turn() -> None:
            with store.commits:  # type: ignore[union-attr]
                live.play(store, SECRET, first.id, token=first.token, at=0, moves=_first_move(first))
            opened.set()
            time.sleep(0.3)  # the batch stays open while the other thread saves
            await live.committed(store.commits, first.id)  # type: ignore[arg-type]

        asyncio.run(turn())

    def two() -> None:
        async def turn() -> None:
            assert opened.wait(5)
            with store.commits:  # type: ignore[union-attr]
                seen["answer"] = live.play(store, SECRET, second.id, token=second.token, at=0,
                                           moves=_first_move(second))
            seen["joined"] = store.commits.joined  # type: ignore[union-attr]
            await live.committed(store.commits, second.id)  # type: ignore[arg-type]

        asyncio.run(turn())

    threads = [threading.Thread(target=one), threading.Thread(target=two)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert seen["joined"] is None
    assert [_stored_at(store, g.id) for g in (first, second)] == [1, 1]


@in_a_thread_of_its_own
def test_a_lone_mover_commits_each_move_on_its_own_and_a_second_one_brings_batches(
        store: DatabaseStore) -> None:
    """One socket's moves come one after another, each after the answer before it: they can never
    share a commit, so with one mover every save commits at once, without a batch."""
    commits = store.commits
    assert commits is not None and commits.movers == 2  # the fixture's two
    started = live.start(store, SECRET, 4, "classic")

    async def moves(count: int) -> list[bool]:
        now = live.state(store, SECRET, started.id, token=started.token).position
        grouped, at, board = [], now.at, now.board
        for _ in range(count):
            letter = next_move(board)
            assert letter is not None, "the game ended too soon for this test"
            with commits:
                answer = live.play(store, SECRET, started.id, token=started.token, at=at, moves=letter)
            grouped.append(commits.joined is not None)
            if commits.joined is None:
                assert _stored_at(store, started.id) == answer.at  # committed before play returned
            await live.committed(commits, started.id)
            at, board = answer.at, answer.board
        return grouped

    commits.movers -= 1  # as if one of the two sockets closed
    try:
        assert asyncio.run(moves(2 * LONE)) == [False] * (2 * LONE)
        assert commits.lone == 0 and commits.solo == 0  # no batch was tried
    finally:
        commits.movers += 1
    assert asyncio.run(moves(1)) == [True]


def test_a_play_socket_counts_as_a_mover_while_it_is_open(tmp_path: Path) -> None:
    app = create_app(Settings(database_url=f"sqlite:///{tmp_path / 'g.sqlite3'}", secret=SECRET,
                              rate_limit="0", move_rate_limit="0"))
    commits = app.state.store.commits
    joined: list[bool] = []
    real_join = commits.join

    def join(conn: Any) -> Any:
        joined.append(True)
        return real_join(conn)

    commits.join = join  # type: ignore[method-assign]
    with TestClient(app) as client:
        issued = [client.post("/api/games", json={"size": 4}).json() for _ in range(2)]
        assert commits.movers == 0
        with client.websocket_connect(f"/api/games/{issued[0]['id']}/play") as ws:
            at = 0
            for letter in "LDRULDRU":
                ws.send_json({"op": "moves", "token": issued[0]["token"], "at": at, "moves": letter,
                              "skip_illegal": True})
                answer = ws.receive_json()
                assert "status" not in answer, answer
                at = answer["at"]
            assert commits.movers == 1
            assert joined == []  # a lone socket: every move committed on its own
            with client.websocket_connect(f"/api/games/{issued[1]['id']}/play") as other:
                other.send_json({"op": "state", "token": issued[1]["token"]})
                other.receive_json()
                assert commits.movers == 2
                ws.send_json({"op": "moves", "token": issued[0]["token"], "at": at, "moves": "L",
                              "skip_illegal": True})
                assert "status" not in ws.receive_json()
                assert joined == [True]  # company: the move opened a batch
        # the sockets closed: no movers left
        deadline = time.monotonic() + 5
        while commits.movers and time.monotonic() < deadline:
            time.sleep(0.01)
        assert commits.movers == 0
    app.state.engine.dispose()
