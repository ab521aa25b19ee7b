"""One error story for bodies: what cannot be read is 422, what is too large is 413, what is too
slow is 408; always ``{"error": ...}``, and the OpenAPI description says so route by route."""

from __future__ import annotations

import asyncio
import json
import threading

import pytest

from game2048.limits import MAX_LOG
from game2048.server.config import MAX_BODY
from game2048.server.http.body_limit import BodyLimit
from game2048.server.http.readable_bodies import MAX_DIGITS

UNREADABLE = [
    ("invalid UTF-8", b'{"size": 4, "mode": "\xff\xfe"}', "UTF-8"),
    ("5,000-digit number", b'{"size": ' + b"9" * 5000 + b"}", "number"),
    ("5,000-digit fraction", b'{"size": 0.' + b"1" * 5000 + b"}", "number"),
    ("deep nesting", b'{"size": ' + b"[" * 50_000 + b"]" * 50_000 + b"}", "nested"),
    ("NaN", b'{"size": NaN}', "NaN"),
    ("truncated", b'{"size": 4', "not valid JSON"),
    ("UTF-16", '{"size": 4}'.encode("utf-16"), "UTF-8"),
]


@pytest.mark.parametrize(("what", "raw", "words"), UNREADABLE, ids=[w for w, _, _ in UNREADABLE])
@pytest.mark.parametrize("path", ["/api/games", "/api/games/x/moves", "/api/games/x/state",
                                  "/api/games/x/finish", "/api/records", "/api/hint"])
def test_an_unreadable_body_is_422_with_the_reason(client, what, raw, words, path):
    r = client.post(path, content=raw, headers={"content-type": "application/json"})
    assert r.status_code == 422, (what, r.text)
    assert set(r.json()) == {"error"} and words in r.json()["error"], r.json()


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded", None])
def test_the_wrong_content_type_is_422(client, content_type):
    headers = {"content-type": content_type} if content_type else {}
    r = client.post("/api/games", content=b'{"size": 4}', headers=headers)
    assert r.status_code == 422 and "application/json" in r.json()["error"]


def test_json_with_a_charset_is_fine(client):
    r = client.post("/api/games", content=b'{"size": 4}',
                    headers={"content-type": "application/json; charset=utf-8"})
    assert r.status_code == 201


def test_numbers_up_to_the_digit_limit_still_reach_the_schema(client):
    r = client.post("/api/games", content=b'{"size": ' + b"9" * MAX_DIGITS + b"}",
                    headers={"content-type": "application/json"})
    assert r.status_code == 422 and "size" in r.json()["error"]


def test_a_20_mb_body_is_413_and_nothing_is_read(client):
    r = client.post("/api/games", content=b"[" * (20 * 1024 * 1024),
                    headers={"content-type": "application/json"})
    assert r.status_code == 413 and "limit" in r.json()["error"]


def test_a_content_length_too_large_to_be_a_number_is_413(client):
    r = client.post("/api/games", content=b"{}", headers={"content-type": "application/json",
                                                          "content-length": "9" * 40})
    assert r.status_code in (400, 413)  # the HTTP client or the server refuses it; never a 5xx


def test_a_log_over_the_limit_is_422_as_documented(api):
    issued = api.start()
    r = api.finish(issued, log="L" * (MAX_LOG + 1), score=0)
    assert r.status_code == 422 and "log" in r.json()["error"]
    assert MAX_LOG + 1000 < MAX_BODY  # so the limit that answers is the log's, not the body's


def test_the_openapi_description_lists_each_status_a_route_gives(client):
    paths = client.get("/openapi.json").json()["paths"]
    finish = set(paths["/api/games/{game_id}/finish"]["post"]["responses"])
    assert {"200", "403", "404", "408", "409", "413", "422", "429"} <= finish
    assert {"201", "408", "413", "422", "429"} <= set(paths["/api/games"]["post"]["responses"])
    assert {"201", "408", "413", "422", "429"} <= set(paths["/api/records"]["post"]["responses"])
    for route in ("moves", "state"):
        given = set(paths[f"/api/games/{{game_id}}/{route}"]["post"]["responses"])
        assert {"200", "403", "404", "408", "409", "413", "422", "429"} <= given, route
    assert {"200", "304", "404"} <= set(paths["/api/games/{game_id}"]["get"]["responses"])
    assert {"200", "503"} <= set(paths["/readyz"]["get"]["responses"])
    assert "413" not in paths["/api/leaderboard"]["get"]["responses"]  # no body, no 413


def test_a_body_that_stalls_gets_408_and_the_connection_closes():
    """The body deadline, at the ASGI level (against a real server: test_slow_clients)."""
    sent: list[dict] = []

    async def app(scope, receive, send):  # pragma: no cover - never reached
        raise AssertionError("the app must not see a body that never arrived")

    async def receive():
        if not sent and not getattr(receive, "once", False):
            receive.once = True  # type: ignore[attr-defined]
            return {"type": "http.request", "body": b'{"si', "more_body": True}
        await asyncio.sleep(3600)

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "method": "POST", "headers": [(b"content-type", b"application/json")]}
    # in a thread of its own: another test's event loop may be running in this one
    runner = threading.Thread(target=asyncio.run, args=(BodyLimit(app, limit=1024, deadline=0.2)(
        scope, receive, send),))
    runner.start()
    runner.join(10)
    assert sent[0]["status"] == 408
    assert (b"connection", b"close") in sent[0]["headers"]
    assert "did not arrive" in json.loads(sent[1]["body"])["error"]
