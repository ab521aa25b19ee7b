"""Storage is bounded: practice records per address per UTC day, by count and by bytes."""

from __future__ import annotations

from dataclasses import replace

from fastapi.testclient import TestClient

from game2048.server.app import create_app

from ..conftest import play


def _send(client: TestClient, game, name: str = "Ada"):  # type: ignore[no-untyped-def]
    return client.post("/api/records", json={"size": game.size, "seed": game.seed, "log": game.log,
                                             "score": game.score, "name": name})


def test_an_address_keeps_at_most_its_records_a_day_and_others_keep_theirs(settings):
    app = create_app(replace(settings, practice_records=3))
    try:
        other = TestClient(app, client=("198.51.100.4", 1))
        with TestClient(app, client=("203.0.113.4", 1)) as client:
            kept = [_send(client, play(4, seed, 20)).status_code for seed in range(3)]
            refused = _send(client, play(4, 9, 20))
            assert kept == [201, 201, 201] and refused.status_code == 429
            assert "3 practice records" in refused.json()["error"] and int(refused.headers["retry-after"]) > 0
            assert _send(other, play(4, 9, 20)).status_code == 201
    finally:
        app.state.engine.dispose()


def test_an_address_keeps_at_most_its_bytes_a_day(settings):
    app = create_app(replace(settings, practice_bytes=1000))
    try:
        with TestClient(app) as client:
            game = play(4, 1, 300)
            assert len(game.log) > 250
            codes = [_send(client, game, name=f"n{i}").status_code for i in range(5)]
            assert codes[:3] == [201] * 3 and codes[-1] == 429, codes
            assert "bytes of practice records" in _send(client, game).json()["error"]
    finally:
        app.state.engine.dispose()
