"""Operations: /healthz, /readyz (503 while the database does not answer), /metrics, and one
JSON log line per request without tokens or full addresses."""

from __future__ import annotations

import json
import logging
import os
import socket
import subprocess
import sys
import threading
import time
from urllib.parse import urlsplit, urlunsplit

import pytest
from fastapi.testclient import TestClient

from game2048.server import Settings, create_app, metrics
from game2048.server.ops.logs import JsonLines

from ..conftest import METRICS, fresh_postgres_schema


def test_healthz_answers(client):
    r = client.get("/healthz")
    assert r.status_code == 200 and r.json() == {"status": "ok"}


def test_readyz_answers_while_the_database_does(client):
    r = client.get("/readyz")
    assert r.status_code == 200 and r.json() == {"status": "ok"}


class StallingProxy:
    """A TCP proxy to the database that can stop passing bytes (the database "stops answering")."""

    def __init__(self, host: str, port: int) -> None:
        self.upstream = (host, port)
        self.flowing = threading.Event()
        self.flowing.set()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            up = socket.create_connection(self.upstream)
            for a, b in ((conn, up), (up, conn)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                self.flowing.wait()
                dst.sendall(data)
        except OSError:
            pass

    def close(self) -> None:
        self.listener.close()


@pytest.mark.postgres
def test_readyz_is_503_while_the_database_stops_answering(postgres_database):
    url = urlsplit(fresh_postgres_schema(postgres_database))
    proxy = StallingProxy(url.hostname or "127.0.0.1", url.port or 5432)
    via_proxy = urlunsplit(url._replace(netloc=f"{url.username}@127.0.0.1:{proxy.port}"))
    from game2048.server.config import normalise_database_url

    app = create_app(Settings(database_url=normalise_database_url(via_proxy), rate_limit="0"))
    try:
        with TestClient(app) as client:
            assert client.get("/readyz").status_code == 200
            proxy.flowing.clear()
            start = time.monotonic()
            r = client.get("/readyz")
            assert r.status_code == 503 and r.json()["status"] == "database unavailable"
            assert time.monotonic() - start < 5
            assert client.get("/readyz").status_code == 503  # the stuck probe is not stacked up
            assert client.get("/healthz").status_code == 200  # alive all the same
            proxy.flowing.set()
            deadline = time.monotonic() + 10
            while client.get("/readyz").status_code != 200:
                assert time.monotonic() < deadline, "ready again once the database answers"
                time.sleep(0.2)
    finally:
        proxy.flowing.set()
        proxy.close()
        app.state.engine.dispose()


def _sample(text: str, name: str, **labels: str) -> float:
    for line in text.splitlines():
        if line.startswith(f"{name}{{") and all(f'{k}="{v}"' in line for k, v in labels.items()):
            return float(line.rsplit(" ", 1)[1])
        if not labels and line.startswith(f"{name} "):
            return float(line.rsplit(" ", 1)[1])
    return 0.0  # a labelled sample appears only once counted


def test_metrics_count_requests_by_route_template_not_raw_path(api):
    before = api.client.get("/metrics", headers=METRICS).text
    issued, _, _ = api.honest(moves=20)
    api.client.get(f"/api/games/{issued['id']}")
    api.client.get("/api/games/unknown-game")
    text = api.client.get("/metrics", headers=METRICS).text
    route = "/api/games/{game_id}"
    assert _sample(text, "game2048_requests_total", method="GET", route=route, status="200") == \
        _sample(before, "game2048_requests_total", method="GET", route=route, status="200") + 1
    assert _sample(text, "game2048_requests_total", method="GET", route=route, status="404") >= 1
    assert issued["id"] not in text and "unknown-game" not in text
    finish = "/api/games/{game_id}/finish"
    assert _sample(text, "game2048_request_seconds_count", method="POST", route=finish) >= 1
    assert _sample(text, "game2048_errors_total", status="404") >= 1
    assert _sample(text, "game2048_verification_cpu_seconds_count", kind="finish", outcome="accepted") >= 1
    assert _sample(text, "game2048_verification_cpu_seconds_sum", kind="finish", outcome="accepted") > 0


def test_moves_the_server_deals_are_counted(api):
    before = api.client.get("/metrics", headers=METRICS).text
    played = api.served(moves=20)
    text = api.client.get("/metrics", headers=METRICS).text
    dealt = "game2048_moves_dealt_total"
    assert _sample(text, dealt) == _sample(before, dealt) + len(played.log)
    cpu = "game2048_moves_seconds_total"
    assert _sample(text, cpu) > _sample(before, cpu)


def test_moves_dealt_are_counted_with_the_time_they_took(client):
    before = client.get("/metrics", headers=METRICS).text
    metrics.count_moves(3, 0.002)
    metrics.count_moves(2, 0.001)
    text = client.get("/metrics", headers=METRICS).text
    assert _sample(text, "game2048_moves_dealt_total") == _sample(before, "game2048_moves_dealt_total") + 5
    cpu = "game2048_moves_seconds_total"
    assert _sample(text, cpu) > _sample(before, cpu)


def test_moves_reach_the_counters_within_a_second_without_a_scrape():
    """A move is counted on its hot path in plain numbers; a thread adds them to the counters."""
    dealt = "game2048_moves_dealt_total"
    before = metrics.REGISTRY.get_sample_value(dealt) or 0.0
    metrics.count_moves(4, 0.001)
    deadline = time.monotonic() + 5 * metrics.MOVES_EVERY
    while metrics.REGISTRY.get_sample_value(dealt) != before + 4 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert metrics.REGISTRY.get_sample_value(dealt) == before + 4


def test_rate_limit_refusals_are_counted(settings):
    from dataclasses import replace

    app = create_app(replace(settings, rate_limit="2/minute"))
    try:
        with TestClient(app) as client:
            limited = "game2048_rate_limited_total"
            before = _sample(client.get("/metrics", headers=METRICS).text, limited, limit="games")
            codes = [client.post("/api/games", json={"size": 4}).status_code for _ in range(4)]
            assert codes.count(429) == 2
            after = _sample(client.get("/metrics", headers=METRICS).text, limited, limit="games")
            assert after == before + 2
    finally:
        app.state.engine.dispose()


class _Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.setFormatter(JsonLines())
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


def test_one_json_line_per_request_without_token_or_full_address(api):
    handler = _Lines()
    logger = logging.getLogger("game2048.requests")
    logger.addHandler(handler)
    try:
        issued = api.start()
        api.finish(issued, log="", score=0)
        api.client.get("/leaderboard?size=5")
    finally:
        logger.removeHandler(handler)
    lines = [json.loads(line) for line in handler.lines]
    assert [(x["method"], x["route"], x["status"]) for x in lines] == [
        ("POST", "/api/games", 201), ("POST", "/api/games/{game_id}/finish", 200),
        ("GET", "/leaderboard", 200)]
    for x in lines:
        assert {"ts", "level", "method", "route", "path", "status", "ms", "bytes", "client"} <= set(x)
    assert issued["token"] not in "".join(handler.lines)
    assert "size=5" not in "".join(handler.lines)  # no query strings either


def test_addresses_are_cut_to_their_network():
    from game2048.server.http.request_log import network

    assert network("198.51.100.23") == "198.51.100.0/24"
    assert network("2001:db8:aa:bb:cc::1") == "2001:db8:aa::/48"


def test_with_several_workers_metrics_sum_every_process(tmp_path):
    """In PROMETHEUS_MULTIPROC_DIR mode (``serve --workers N``) /metrics sums the workers' samples."""
    count = ("from game2048.server import metrics; metrics.count_moves(3, 0.5); "
             "metrics.observe_request('GET', '/healthz', 200, 0.01)")
    show = "from game2048.server import metrics; print(metrics.exposition()[0].decode())"
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(tmp_path)}
    for _ in range(2):  # two "workers", one after the other
        subprocess.run([sys.executable, "-c", count], env=env, check=True)
    text = subprocess.run([sys.executable, "-c", show], env=env, check=True, capture_output=True,
                          text=True).stdout
    assert _sample(text, "game2048_moves_dealt_total") == 6
    assert _sample(text, "game2048_requests_total", method="GET", route="/healthz", status="200") == 2


def test_metrics_answer_the_operator_only(settings):
    from dataclasses import replace

    for token in (None, "s3cret"):
        app = create_app(replace(settings, metrics_token=token))
        try:
            with TestClient(app, client=("203.0.113.9", 4000)) as outside:
                assert outside.get("/metrics").status_code == 404
                assert outside.get("/metrics", headers={"Authorization": "Bearer guess"}).status_code == 404
                sent = outside.get("/metrics", headers={"Authorization": f"Bearer {token}"})
                assert sent.status_code == (200 if token else 404)
            with TestClient(app, client=("127.0.0.1", 4000)) as loopback:
                assert loopback.get("/metrics").status_code == (404 if token else 200)
        finally:
            app.state.engine.dispose()
