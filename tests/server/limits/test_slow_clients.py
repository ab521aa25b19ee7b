"""Slow and greedy clients, with real sockets against ``game2048 serve``: stalled uploads hold
nothing but their own sockets and are closed after the body deadline, stalled headers after the
header deadline (``limits.connections``, with or without the nginx configuration of
docs/deploy.md), and one address at its connection cap leaves the others playing."""

from __future__ import annotations

import http.client
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
STALLED = 60
BODY_DEADLINE = 3  # seconds, short for the test (30 by default)
HEADER_DEADLINE = 3  # seconds, short for the test (10 by default)
MAX_CONNECTIONS = 100  # per address (64 by default); the stalls below stay under it
CROWD = 300
NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for(url: str, proc: subprocess.Popen[bytes], seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"exited with {proc.returncode}"
        try:
            with urllib.request.urlopen(url, timeout=1) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    raise AssertionError(f"{url} did not answer within {seconds} s")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """The port of a real ``game2048 serve`` with a short body deadline."""
    port = _free_port()
    folder = tmp_path_factory.mktemp("slow")
    env = {**os.environ, "GAME2048_RATE_LIMIT": "0", "GAME2048_BODY_DEADLINE": str(BODY_DEADLINE),
           "GAME2048_WARM_SOLVER": "0", "GAME2048_HEADER_DEADLINE": str(HEADER_DEADLINE),
           "GAME2048_MAX_CONNECTIONS": str(MAX_CONNECTIONS)}
    command = Path(sys.executable).with_name("game2048")
    with (folder / "serve.log").open("wb") as log:
        proc = subprocess.Popen([str(command), "serve", "--port", str(port), "--db",
                                 f"sqlite:///{folder / 'db.sqlite3'}"], stdout=log, stderr=log, env=env)
        try:
            _wait_for(f"http://127.0.0.1:{port}/healthz", proc)
            yield port
        finally:
            proc.terminate()
            proc.wait(timeout=15)


def _stall(port: int, what: bytes) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(what)
    return s


STALLED_UPLOAD = (b"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                  b"Content-Length: 5000\r\n\r\n{\"size\": ")
STALLED_HEADERS = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: "


def _answer_within(port: int, seconds: float, source: str = "127.0.0.1") -> float:
    """A normal request, from ``source`` (another loopback address is another client to nginx)."""
    start = time.monotonic()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=seconds, source_address=(source, 0))
    conn.request("GET", "/api/leaderboard")
    r = conn.getresponse()
    assert r.status == 200, r.read()
    r.read()
    conn.close()
    took = time.monotonic() - start
    assert took < seconds
    return took


def _closed_or_refused(s: socket.socket, seconds: float) -> bytes:
    """What the server sent before closing (b"" if it closed without a word); fails if still open."""
    s.settimeout(seconds)
    got = b""
    try:
        while chunk := s.recv(4096):
            got += chunk
    except TimeoutError:
        raise AssertionError(f"still open after {seconds} s; got {got[:100]!r}") from None
    except ConnectionResetError:
        pass
    return got


def test_stalled_uploads_do_not_stop_a_normal_request_and_are_closed(server):
    sockets = [_stall(server, STALLED_UPLOAD) for _ in range(STALLED)]
    try:
        _answer_within(server, 3)
        for s in sockets:
            answer = _closed_or_refused(s, BODY_DEADLINE + 10)
            assert answer.startswith(b"HTTP/1.1 408"), answer[:100]
            assert re.search(rb'\{"error": "the request body did not arrive within', answer)
    finally:
        for s in sockets:
            s.close()


def test_stalled_headers_do_not_stop_a_normal_request_and_are_closed(server):
    sockets = [_stall(server, STALLED_HEADERS) for _ in range(STALLED)]
    try:
        _answer_within(server, 3)
        for s in sockets:
            answer = _closed_or_refused(s, HEADER_DEADLINE + 10)
            assert answer.startswith(b"HTTP/1.1 408"), answer[:100]
            assert b"headers did not arrive within" in answer
    finally:
        for s in sockets:
            s.close()


def _idle_socket(port: int, game_id: str) -> socket.socket:
    """A WebSocket handshake to ``game_id`` that then says nothing."""
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(f"GET /api/games/{game_id}/play HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
              "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
              "Sec-WebSocket-Version: 13\r\n\r\n".encode())
    return s


def test_one_address_holding_its_cap_leaves_healthz_and_the_others_games_answering(server):
    import json

    from websockets.sync.client import connect

    from ..conftest import next_move

    game = json.loads(urllib.request.urlopen(urllib.request.Request(
        f"http://127.0.0.1:{server}/api/games", data=b'{"size": 4}',
        headers={"Content-Type": "application/json"}), timeout=10).read())
    crowd = []
    try:
        for i in range(CROWD):  # idle sockets to a real game, and stalled headers, from one address
            crowd.append(_idle_socket(server, game["id"]) if i % 2 else _stall(server, STALLED_HEADERS))
        answers = []
        for s in crowd[MAX_CONNECTIONS:]:  # beyond the cap: refused at once (429), unless stalls
            s.settimeout(HEADER_DEADLINE + 5)  # closed meanwhile (408) made room for them
            answers.append(s.recv(200)[:12])
        assert answers.count(b"HTTP/1.1 429") >= (CROWD - MAX_CONNECTIONS) // 2, answers
        assert set(answers) <= {b"HTTP/1.1 429", b"HTTP/1.1 408", b"HTTP/1.1 101"}, set(answers)
        # another address: /healthz and a game over the socket answer at once
        for _ in range(5):
            _answer_within(server, 2, source="127.0.0.2")
            start = time.monotonic()
            with urllib.request.urlopen(f"http://127.0.0.1:{server}/healthz", timeout=2) as r:
                assert r.status == 200
            assert time.monotonic() - start < 2
        mine = json.loads(urllib.request.urlopen(urllib.request.Request(
            f"http://127.0.0.1:{server}/api/games", data=b'{"size": 4}',
            headers={"Content-Type": "application/json"}), timeout=10).read())
        sock = socket.create_connection(("127.0.0.1", server), source_address=("127.0.0.2", 0))
        with connect(f"ws://127.0.0.1:{server}/api/games/{mine['id']}/play", sock=sock) as ws:
            board, at = mine["board"], 0
            for _ in range(20):
                move = {"op": "moves", "token": mine["token"], "at": at, "moves": next_move(board)}
                ws.send(json.dumps(move))
                answer = json.loads(ws.recv(timeout=5))
                board, at = answer["board"], answer["at"]
        assert at == 20
    finally:
        for s in crowd:
            s.close()


def test_sockets_closed_after_their_handshake_give_their_connection_back(server):
    """Past its handshake a WebSocket's bytes go to its protocol straight (the guard steps aside):
    its end must still give its connection back, else an address that opened and closed more
    sockets than the cap, one after another, would be refused for good."""
    import json

    from websockets.sync.client import connect

    from ..conftest import next_move

    def new_game() -> dict:  # type: ignore[type-arg]
        return json.loads(urllib.request.urlopen(urllib.request.Request(
            f"http://127.0.0.1:{server}/api/games", data=b'{"size": 4}',
            headers={"Content-Type": "application/json"}), timeout=10).read())

    game = new_game()
    board, at, played = game["board"], 0, 0
    for _ in range(MAX_CONNECTIONS + 20):  # one at a time, from one address, past its cap
        if next_move(board) is None:  # that game is over: the next socket plays a new one
            game = new_game()
            board, at = game["board"], 0
        sock = socket.create_connection(("127.0.0.1", server), source_address=("127.0.0.3", 0))
        with connect(f"ws://127.0.0.1:{server}/api/games/{game['id']}/play", sock=sock) as ws:
            ws.send(json.dumps({"op": "moves", "token": game["token"], "at": at, "moves": next_move(board)}))
            answer = json.loads(ws.recv(timeout=5))
            assert "error" not in answer, answer
            board, at = answer["board"], answer["at"]
            played += 1
    assert played == MAX_CONNECTIONS + 20


def _nginx_config(proxy_port: int, upstream_port: int, folder: Path) -> Path:
    """The server block from docs/deploy.md, inside a minimal nginx.conf that runs unprivileged."""
    doc = (ROOT / "docs" / "deploy.md").read_text()
    block = re.search(r"```nginx\n(.*?)```", doc, re.S)
    assert block, "docs/deploy.md has the nginx configuration"
    site = block.group(1).replace("listen 80;", f"listen 127.0.0.1:{proxy_port};")
    site = site.replace("server 127.0.0.1:8000;", f"server 127.0.0.1:{upstream_port};")
    site = re.sub(r"client_header_timeout \d+s;", "client_header_timeout 3s;", site)
    for name in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"):
        (folder / name).mkdir(exist_ok=True)
    conf = folder / "nginx.conf"
    conf.write_text(f"""
daemon off;
master_process off;
worker_processes 1;
pid {folder}/nginx.pid;
error_log stderr warn;
events {{ worker_connections 512; }}
http {{
    access_log off;
    client_body_temp_path {folder}/client_body;
    proxy_temp_path {folder}/proxy;
    fastcgi_temp_path {folder}/fastcgi;
    uwsgi_temp_path {folder}/uwsgi;
    scgi_temp_path {folder}/scgi;
{site}
}}
""")
    return conf


@pytest.fixture
def nginx(server: int, tmp_path: Path) -> Iterator[int]:
    if NGINX is None:
        pytest.skip("nginx is not installed (apt-get install nginx; scripts/test.sh does it as root)")
    port = _free_port()
    conf = _nginx_config(port, server, tmp_path)
    check = subprocess.run([NGINX, "-t", "-p", str(tmp_path), "-c", str(conf)],
                           capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
    with (tmp_path / "nginx.log").open("wb") as log:
        proc = subprocess.Popen([NGINX, "-p", str(tmp_path), "-c", str(conf)], stdout=log, stderr=log)
        try:
            _wait_for(f"http://127.0.0.1:{port}/healthz", proc)
            yield port
        finally:
            proc.terminate()
            proc.wait(timeout=10)


def test_behind_nginx_a_client_stalled_in_its_headers_is_closed(nginx):
    sockets = [_stall(nginx, STALLED_HEADERS) for _ in range(STALLED)]
    uploads = [_stall(nginx, STALLED_UPLOAD) for _ in range(STALLED)]
    try:
        _answer_within(nginx, 3, source="127.0.0.2")  # the stalling address is limited, others not
        for s in sockets:  # closed by client_header_timeout (3 s here, 10 s in the docs)
            _closed_or_refused(s, 10)
        _answer_within(nginx, 3, source="127.0.0.3")
    finally:
        for s in sockets + uploads:
            s.close()


def test_behind_nginx_the_api_still_answers_in_its_own_shape(nginx):
    conn = http.client.HTTPConnection("127.0.0.1", nginx, timeout=10, source_address=("127.0.0.4", 0))
    conn.request("POST", "/api/games", body=b"{" * (300 * 1024), headers={"Content-Type": "application/json"})
    r = conn.getresponse()
    assert r.status == 413 and b'"error"' in r.read()
    conn.close()


def test_behind_nginx_one_address_flooding_gets_429_in_the_api_shape(nginx):
    statuses = []
    for _ in range(120):
        conn = http.client.HTTPConnection("127.0.0.1", nginx, timeout=10, source_address=("127.0.0.5", 0))
        conn.request("GET", "/healthz")
        r = conn.getresponse()
        statuses.append((r.status, r.read()))
        conn.close()
    refused = [body for status, body in statuses if status == 429]
    assert refused and all(b'"error"' in body for body in refused)
    assert all(status in (200, 429) for status, _ in statuses)


def test_behind_nginx_a_ranked_game_plays_over_the_websocket(nginx):
    import json

    from websockets.sync.client import connect

    from game2048 import replay

    from ..conftest import next_move

    conn = http.client.HTTPConnection("127.0.0.1", nginx, timeout=10, source_address=("127.0.0.6", 0))
    conn.request("POST", "/api/games", body=b'{"size": 4}', headers={"Content-Type": "application/json"})
    r = conn.getresponse()
    assert r.status == 201
    issued = json.loads(r.read())
    conn.close()
    board, at, log = issued["board"], 0, ""
    sock = socket.create_connection(("127.0.0.1", nginx), source_address=("127.0.0.6", 0))
    with connect(f"ws://127.0.0.1:{nginx}/api/games/{issued['id']}/play", sock=sock) as ws:
        # through nginx's upgrade, the app's middleware and back (no 4x4 game ends this soon)
        for _ in range(10):
            letter = next_move(board)
            ws.send(json.dumps({"op": "moves", "token": issued["token"], "at": at, "moves": letter}))
            answer = json.loads(ws.recv(timeout=10))
            board, at, log = answer["board"], answer["at"], log + letter
        ws.send(json.dumps({"op": "finish", "token": issued["token"], "name": "proxied"}))
        done = json.loads(ws.recv(timeout=10))
    assert done["verified"] and replay(4, done["seed"], log).board == board
