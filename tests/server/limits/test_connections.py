"""One client cannot hurt the others: sockets only for real games, with the token first and soon,
idle ones closed, a cap per address (an IPv6 address by its /64) while everyone else plays on."""

from __future__ import annotations

from contextlib import ExitStack
from dataclasses import replace

import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketDenialResponse
from starlette.websockets import WebSocketDisconnect

from game2048.server.api import socket as play_socket
from game2048.server.app import create_app
from game2048.server.clients.address import network_of

from ..conftest import next_move


@pytest.fixture
def capped(settings):  # type: ignore[no-untyped-def]
    app = create_app(replace(settings, max_sockets=3, socket_idle=0.5))
    yield app
    app.state.engine.dispose()


def _start(client: TestClient) -> dict:
    r = client.post("/api/games", json={"size": 4})
    assert r.status_code == 201
    return r.json()


def test_an_ipv6_client_is_counted_by_its_64():
    assert network_of("2001:db8::1") == network_of("2001:db8::ffff:1") == "2001:db8::/64"
    assert network_of("2001:db8:0:1::1") != network_of("2001:db8::1")


def test_a_socket_to_a_game_that_does_not_exist_is_refused_before_the_handshake(client):
    for game_id in ("nope", "0" * 32, "x" * 500):
        with pytest.raises(WebSocketDenialResponse) as refused:
            client.websocket_connect(f"/api/games/{game_id}/play").__enter__()
        assert refused.value.status_code == 404


def test_a_first_message_without_the_games_token_closes_the_socket(client):
    issued = _start(client)
    with client.websocket_connect(f"/api/games/{issued['id']}/play") as ws:
        ws.send_json({"op": "state", "token": "someone-elses"})
        assert ws.receive_json()["status"] == 403
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
        assert closed.value.code == 1008


def test_a_socket_that_sends_nothing_is_closed_soon(client, monkeypatch):
    monkeypatch.setattr(play_socket, "FIRST_MESSAGE", 0.3)
    issued = _start(client)
    with client.websocket_connect(f"/api/games/{issued['id']}/play") as ws, \
            pytest.raises(WebSocketDisconnect) as closed:
        ws.receive_json()
    assert closed.value.code == 1008


def test_an_idle_socket_is_closed(capped):
    with TestClient(capped) as client:
        issued = _start(client)
        with client.websocket_connect(f"/api/games/{issued['id']}/play") as ws:
            ws.send_json({"op": "state", "token": issued["token"]})
            assert ws.receive_json()["at"] == 0
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_json()  # nothing sent for socket_idle (0.5 s here)
            assert closed.value.code == 1000


def test_one_address_at_its_cap_is_refused_and_the_others_play_on(capped):
    other = TestClient(capped, client=("198.51.100.2", 1000))  # the app's lifespan runs once, below
    with TestClient(capped, client=("203.0.113.7", 1000)) as greedy:
        issued = _start(greedy)
        with ExitStack() as stack:
            for _ in range(3):
                stack.enter_context(greedy.websocket_connect(f"/api/games/{issued['id']}/play"))
            with pytest.raises(WebSocketDenialResponse) as refused:
                greedy.websocket_connect(f"/api/games/{issued['id']}/play").__enter__()
            assert refused.value.status_code == 429 and "3 open sockets" in refused.value.json()["error"]
            assert other.get("/healthz").status_code == 200
            mine = _start(other)
            with other.websocket_connect(f"/api/games/{mine['id']}/play") as ws:
                letter = next_move(mine["board"])
                ws.send_json({"op": "moves", "token": mine["token"], "at": 0, "moves": letter})
                assert ws.receive_json()["at"] == 1
        # closed sockets give their places back
        with greedy.websocket_connect(f"/api/games/{issued['id']}/play") as ws:
            ws.send_json({"op": "state", "token": issued["token"]})
            assert ws.receive_json()["at"] == 0
    assert capped.state.open_sockets == {}
