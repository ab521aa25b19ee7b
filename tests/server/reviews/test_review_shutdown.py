"""``game2048 serve --workers 2`` stops cleanly while a review process grades a game: SIGTERM to the
server, or SIGINT to its whole process group (a Ctrl-C in a terminal). It exits with status 0 within
seconds, leaves no process behind, and puts the review back in the queue, so the server started
again makes it.

Runs the real server in a subprocess on the test's database (SQLite, and PostgreSQL when reachable).
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from game2048 import Game, slide

from ..serving import Server, fresh_post

#: A 6x6 game of random moves, long enough that its review (about 6 ms a move) is still being
#: made when the signal comes: it is sent after the first piece of 200 moves is reported.
SIZE, SEED, MOVES = 6, 11, 400


def _random_game() -> Game:
    game, rng = Game(SIZE, SEED), random.Random(1)
    while not game.over and game.moves < MOVES:
        game.move(rng.choice(game.legal_moves()))
    assert game.moves == MOVES
    return game


def _alive_in_group(pgid: int) -> list[str]:
    """The processes of group ``pgid`` that still run (zombies waiting for their parent excepted)."""
    alive = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        state, _, _, group = stat.rpartition(")")[2].split()[:4]
        if int(group) == pgid and state != "Z":
            alive.append(f"{entry.name} {(entry / 'cmdline').read_bytes()[:120]!r}")
    return alive


def _wait_for_progress(url: str, game_id: str, seconds: float = 180) -> dict:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        r = httpx.get(f"{url}/api/games/{game_id}/review", timeout=20)
        assert r.status_code == 202, r.text  # the signal must come while the review is being made
        if r.json()["done"] > 0:
            return r.json()
        time.sleep(0.2)
    raise AssertionError(f"the review made no progress in {seconds} s")


needs_proc = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the processes in /proc")


@needs_proc
def test_sigterm_stops_the_server_cleanly_while_a_review_is_made(database_url: str, tmp_path: Path) -> None:
    _stop_while_reviewing(database_url, tmp_path, lambda pid: os.kill(pid, signal.SIGTERM))


@needs_proc
def test_ctrl_c_stops_the_server_cleanly_while_a_review_is_made(tmp_path: Path) -> None:
    """SIGINT reaches every process of the group, the review process too."""
    _stop_while_reviewing(f"sqlite:///{tmp_path / 'game2048.sqlite3'}", tmp_path,
                          lambda pid: os.killpg(pid, signal.SIGINT))


def _stop_while_reviewing(database_url: str, tmp_path: Path, send: Callable[[int], None]) -> None:
    log = tmp_path / "server.log"
    game = _random_game()
    server = Server(database_url, log, workers=2)
    try:
        kept = fresh_post(server.url, "/api/records", {"size": SIZE, "seed": SEED, "log": game.log,
                                                       "score": game.score, "name": "stop"})
        assert kept.status_code == 201, kept.text
        game_id = kept.json()["id"]
        progress = _wait_for_progress(server.url, game_id)
        assert 0 < progress["done"] < progress["total"] == MOVES
        before = time.monotonic()
        send(server.proc.pid)
        try:
            status = server.proc.wait(30)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"the server did not stop within 30 s: {log.read_text()[-3000:]}") from None
        took = time.monotonic() - before
        assert status == 0, log.read_text()[-3000:]
        deadline = time.monotonic() + 10
        while _alive_in_group(server.proc.pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert _alive_in_group(server.proc.pid) == []
        text = log.read_text()
        assert "Traceback" not in text and "leaked" not in text, text[-3000:]
        assert took < 15, f"stopping took {took:.1f} s"
    finally:
        server.kill()
    # the review went back to the queue: the server started again makes it, from the first move
    again = Server(database_url, tmp_path / "again.log", workers=1)
    try:
        deadline = time.monotonic() + 240
        r = httpx.get(f"{again.url}/api/games/{game_id}/review", timeout=20)
        assert r.status_code == 202 and r.json()["done"] < progress["total"]
        while r.status_code == 202 and time.monotonic() < deadline:
            time.sleep(0.5)
            r = httpx.get(f"{again.url}/api/games/{game_id}/review", timeout=20)
        assert r.status_code == 200, r.text
        result = r.json()
        assert [m["n"] for m in result["moves"]] == list(range(1, MOVES + 1))
        assert sum(result["counts"].values()) == MOVES
    finally:
        again.kill()


@needs_proc
@pytest.mark.parametrize("stop", ["SIGTERM", "SIGKILL"])
def test_a_stopped_server_leaves_no_engine_check_process_behind(tmp_path: Path, stop: str) -> None:
    """A ranked finish starts the background engine check's process; a one-worker server that
    stops ends it too: SIGTERM (a forked check process kept its own queue's other end open, and
    outlived every stop), or SIGKILL to the server alone (nobody tells the pool to stop: the
    check's process sees its parent gone)."""
    log = tmp_path / "server.log"
    server = Server(f"sqlite:///{tmp_path / 'game2048.sqlite3'}", log)
    try:
        issued = fresh_post(server.url, "/api/games", {"size": 3}).json()
        board, at = issued["board"], 0
        while True:
            letter = next((x for x, d in zip("LDRU", ("left", "down", "right", "up"), strict=True)
                           if slide(board, d)[0] != board), None)
            if letter is None:
                break
            moved = fresh_post(server.url, f"/api/games/{issued['id']}/moves",
                               {"token": issued["token"], "at": at, "moves": letter}).json()
            board, at = moved["board"], moved["at"]
        done = fresh_post(server.url, f"/api/games/{issued['id']}/finish",
                          {"token": issued["token"], "name": "Checked"})
        assert done.status_code == 200 and done.json()["ranked"], done.text
        deadline = time.monotonic() + 60  # the check's process starts, and the check is made
        while time.monotonic() < deadline:
            record = httpx.get(f"{server.url}/api/games/{issued['id']}", timeout=10).json()
            if record.get("likeness") is not None:
                break
            time.sleep(0.3)
        assert len(_alive_in_group(server.proc.pid)) > 1  # the server and its check's process
        os.kill(server.proc.pid, getattr(signal, stop))
        # uvicorn stops, then ends by the signal it caught (one worker: no supervisor to say 0)
        assert server.proc.wait(30) in (0, -getattr(signal, stop)), log.read_text()[-3000:]
        deadline = time.monotonic() + 15
        while _alive_in_group(server.proc.pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert _alive_in_group(server.proc.pid) == []
    finally:
        server.kill()
