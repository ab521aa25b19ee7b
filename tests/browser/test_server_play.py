"""The game and the server: ranked games dealt by the server through keys, the finish and
its retry queue, reconnecting, offline practice games, the daily game, the nickname, hints
and autoplay."""

from __future__ import annotations

import json
import re
import sys
import threading
import urllib.request
from pathlib import Path

import pytest

from game2048 import Game, replay

pytestmark = pytest.mark.browser

PLAY_SOCKET = re.compile(r".*/api/games/[^/]+/play$")
HTTP_MOVES = re.compile(r".*/api/games/[^/]+/moves$")
BENCH = Path(__file__).resolve().parents[2] / "bench"
ARROWS = {"ArrowLeft": "L", "ArrowDown": "D", "ArrowRight": "R", "ArrowUp": "U"}


def _get(url):
    with urllib.request.urlopen(url, timeout=5) as r:
        return json.loads(r.read())


def _press(game, n=8, keys="ArrowLeft ArrowDown ArrowRight ArrowDown"):
    for key in (keys.split() * n)[:n]:
        game.page.keyboard.press(key)


def _watch_socket(game, sent=None):
    """Pass the game's WebSocket through, keeping every message the server sent (and in `sent`,
    every message the page sent, each with how many were unanswered once it left). The moves the
    page sends over HTTP while its socket opens are kept too, as the socket's would be."""
    frames: list[dict] = []

    def left(message: dict) -> None:
        if sent is not None:
            sent.append({**message, "in_flight": len(sent) - len(frames) + 1})

    def route(ws):
        server = ws.connect_to_server()

        def from_page(message):
            left({**json.loads(message), "via": "socket"})
            server.send(message)

        def from_server(message):
            frames.append(json.loads(message))
            ws.send(message)

        ws.on_message(from_page)
        server.on_message(from_server)

    def over_http(route):
        left({"op": "moves", **json.loads(route.request.post_data), "via": "http"})
        response = route.fetch()
        answer = {"op": "moves", **response.json()}
        frames.append(answer if response.ok else {**answer, "status": response.status})
        route.fulfill(response=response)

    game.page.route_web_socket(PLAY_SOCKET, route)
    game.page.route(HTTP_MOVES, over_http)
    return frames


def _server_state(game, state):
    """The server's word on the game on the page (POST /api/games/{id}/state, from the page)."""
    return game.page.evaluate(
        "([id, token]) => fetch(`/api/games/${id}/state`, {method: 'POST', headers: {'Content-Type': "
        "'application/json'}, body: JSON.stringify({token})}).then((r) => r.json())",
        [state["id"], json.loads(game.storage("game2048:game:4"))["served"]["token"]],
    )


def _played(seed, keys):
    """The log a game of `seed` has after `keys`: each key the rules allow then, in order."""
    dealt = Game(4, seed)
    for key in keys:
        dealt.play(ARROWS[key])  # a key that meets a wall changes nothing
    return dealt.log


@pytest.fixture(scope="module")
def slow_url(base_url):
    """The server behind bench/burst.py's delay proxy: each chunk of bytes 100 ms late each way."""
    host, _, port = base_url.removeprefix("http://").partition(":")
    if host != "127.0.0.1":
        pytest.skip("the delay proxy runs beside a server on this machine")
    sys.path.insert(0, str(BENCH))
    try:
        from burst import run_proxy
        from load import free_port
    finally:
        sys.path.remove(str(BENCH))
    listen = free_port()
    ready = threading.Event()
    threading.Thread(target=run_proxy, args=(listen, int(port), 0.1, ready), daemon=True).start()
    assert ready.wait(10)
    return f"http://127.0.0.1:{listen}"


def test_a_ranked_game_is_dealt_by_the_server_through_keys(game):
    sent: list[dict] = []
    frames = _watch_socket(game, sent)
    game.open()
    first = game.ranked()
    assert first["ranked"] is True and first["seed"] is None
    keys = ("ArrowLeft ArrowDown ArrowRight ArrowDown ArrowLeft ArrowUp " * 3).split()
    for key in keys:
        game.page.keyboard.press(key)  # pressed faster than the answers come
    state = game.settled()
    assert state["seed"] is None and len(state["log"]) >= 4
    moves = [f for f in frames if f.get("op") == "moves"]
    assert all("status" not in f for f in frames), frames
    # each key went when pressed: those sent while answers were on their way chained behind them
    assert any(m.get("chain") is True for m in sent)
    played = [m["applied"] if m.get("applied") is not None else None for m in moves]
    assert sum(1 if p is None else len(p) for p in played) == len(state["log"])
    assert state["board"] == moves[-1]["board"] and state["score"] == moves[-1]["score"]
    game.new_game()  # abandons the game (after asking): the finish reveals the seed
    game.page.wait_for_function("() => localStorage.getItem('game2048:queue') === '[]'")
    record = _get(f"{game.base_url}/api/games/{state['id']}")
    assert (record["log"], record["score"], record["name"]) == (state["log"], state["score"], game.name)
    assert not any(str(record["seed"]) in json.dumps(f) for f in frames)  # never sent before the finish
    assert record["log"] == _played(record["seed"], keys)  # nothing lost, doubled or reordered
    dealt = replay(state["size"], record["seed"], "")
    assert dealt.board == first["board"]
    letters = iter(state["log"])
    for answer, applied in zip(moves, played, strict=True):
        for _ in range(1 if applied is None else len(applied)):
            dealt.move(next(letters))
        assert dealt.board == answer["board"]  # every tile the page showed came from the server
    assert game.page.locator("#message").inner_text()  # the abandoned game was recorded: said once
    assert game.state()["id"] not in (None, state["id"])
    game.page.wait_for_function("() => window.game2048.state().id !== null")
    for key in ("ArrowLeft", "ArrowDown", "ArrowRight", "ArrowUp"):  # one moves any fresh board
        game.page.keyboard.press(key)
    # then it leaves, at the first move of the game now on the board
    game.page.wait_for_function("() => document.getElementById('message').textContent === ''")


def test_a_game_over_is_finished_and_its_seed_shown(game):
    game.open()
    game.ranked()
    game.page.evaluate("window.game2048.newGame({size: 3})")
    game.ranked()
    game.page.evaluate("""async () => {
        const g = window.game2048;
        for (let i = 0; i < 3000 && !g.state().over; i++) {
            g.move('left') || g.move('down') || g.move('right') || g.move('up');
            await g.settled();
            if (g.state().won && !g.state().keepPlaying) g.keepPlaying();
        }
    }""")
    state = game.state()
    assert state["over"] is True and state["size"] == 3
    game.page.wait_for_function("() => window.game2048.state().seed !== null")
    record = _get(f"{game.base_url}/api/games/{state['id']}")
    seed = game.state()["seed"]
    assert record["seed"] == seed and record["log"] == state["log"] and record["score"] == state["score"]
    assert replay(3, seed, state["log"]).board == state["board"]


def test_game_over_links_the_review_of_the_finished_ranked_game(game):
    game.open()
    game.ranked()
    game.page.evaluate("window.game2048.newGame({size: 3})")
    game.ranked()
    game.page.evaluate("""async () => {
        const g = window.game2048;
        for (let i = 0; i < 3000 && !g.state().over; i++) {
            g.move('left') || g.move('down') || g.move('right') || g.move('up');
            await g.settled();
            if (g.state().won && !g.state().keepPlaying) g.keepPlaying();
        }
    }""")
    game_id = game.state()["id"]
    link = game.page.locator("#over [data-testid=review-link]")
    link.wait_for(state="visible")  # once the server has kept the finished game
    assert link.get_attribute("href") == f"/games/{game_id}/review"
    assert link.inner_text() == "Review this game"
    game.page.reload()  # the link is saved with the game
    game.page.wait_for_function("() => window.game2048 !== undefined")
    assert link.is_visible() and link.get_attribute("href") == f"/games/{game_id}/review"
    link.click()
    game.page.wait_for_url(f"**/games/{game_id}/review")
    assert game.page.locator("h1").inner_text().startswith("Review")


def test_a_dropped_connection_is_reopened_and_the_game_goes_on(game):
    answered = {"n": 0}
    sockets = {"opened": 0}

    def route(ws):
        sockets["opened"] += 1
        server = ws.connect_to_server()
        ws.on_message(lambda message: server.send(message))

        def from_server(message):
            answered["n"] += 1
            # the second answer (the first key goes alone, the keys pressed meanwhile together after
            # it) is lost with the connection: the page must ask again
            if answered["n"] == 2:
                ws.close()
                return
            ws.send(message)

        server.on_message(from_server)

    game.page.route_web_socket(PLAY_SOCKET, route)
    game.open()
    game.ranked()
    keys = ("ArrowLeft ArrowDown ArrowRight ArrowDown " * 2).split()
    for key in keys:
        game.page.keyboard.press(key)
    state = game.settled()
    assert sockets["opened"] >= 2
    server = _server_state(game, state)
    assert (server["log"], server["board"]) == (state["log"], state["board"])
    game.new_game()  # the seed, at the finish, says what the keys should have played
    game.page.wait_for_function("() => localStorage.getItem('game2048:queue') === '[]'")
    record = _get(f"{game.base_url}/api/games/{state['id']}")
    assert record["log"] == state["log"] == _played(record["seed"], keys)


def test_a_burst_of_keys_behind_a_slow_network_ends_as_the_server_has_it(game, slow_url):
    """Keys pressed 30 ms apart over a 200 ms round trip: each goes when pressed, several are in
    flight at once, nothing is refused, and the page ends where the server is."""
    sent: list[dict] = []
    frames = _watch_socket(game, sent)
    game.base_url = slow_url
    game.open()
    game.ranked()
    keys = ("ArrowLeft ArrowDown ArrowRight ArrowUp ArrowLeft ArrowLeft ArrowDown " * 3).split()
    for key in keys:
        game.page.keyboard.press(key)
        game.page.wait_for_timeout(30)  # the socket's messages pass through this test meanwhile
    state = game.settled()
    assert all("status" not in f for f in frames), [f for f in frames if "status" in f]
    assert max(m["in_flight"] for m in sent) >= 3
    # the first key went over HTTP, not waiting for the socket to open; the rest on the socket
    assert sent[0]["via"] == "http" and sent[-1]["via"] == "socket"
    server = _server_state(game, state)
    assert (state["log"], state["board"], state["score"]) == (server["log"], server["board"], server["score"])
    assert game.page.locator("#message").inner_text() == ""  # nothing waited a second for the server
    game.new_game()
    game.page.wait_for_function("() => localStorage.getItem('game2048:queue') === '[]'", timeout=20_000)
    record = _get(f"{slow_url}/api/games/{state['id']}")
    assert record["log"] == state["log"] == _played(record["seed"], keys)


def test_a_failed_finish_is_queued_and_retried(game):
    game.open()
    game.ranked()
    _press(game)
    played = game.settled()
    failing = {"on": True}

    def finish(route):
        if failing["on"]:
            route.abort()
        else:
            route.continue_()

    game.network_cut = True
    game.page.route("**/api/games/*/finish", finish)
    game.new_game()
    game.page.wait_for_function(
        "() => JSON.parse(localStorage.getItem('game2048:queue') || '[]').length === 1")
    queued = json.loads(game.storage("game2048:queue"))[0]
    assert (queued["id"], queued["log"]) == (played["id"], played["log"])
    # the queue survives a reload and is sent once the server answers
    failing["on"] = False
    game.page.reload()
    game.page.wait_for_function("() => localStorage.getItem('game2048:queue') === '[]'")
    assert _get(f"{game.base_url}/api/games/{played['id']}")["log"] == played["log"]


def test_without_the_server_a_practice_game_plays_and_is_kept_for_later(game):
    game.network_cut = True
    game.page.route("**/api/**", lambda route: route.abort())
    game.open()
    _press(game, 8)  # a random board: some of these keys may move nothing
    state = game.settled()
    assert state["id"] is None and state["ranked"] is False and len(state["log"]) >= 3
    assert isinstance(state["seed"], int)  # a practice game's seed is the page's own
    assert game.page.locator("#status").inner_text() == "Offline: this game is not ranked"
    game.new_game()
    queued = json.loads(game.storage("game2048:queue"))
    assert [q["kind"] for q in queued] == ["record"]
    assert (queued[0]["record"]["seed"], queued[0]["record"]["log"]) == (state["seed"], state["log"])
    # back online: the practice record is sent, verified and kept, never ranked
    game.page.unroute("**/api/**")
    game.page.evaluate("window.dispatchEvent(new Event('online'))")
    game.page.wait_for_function("() => localStorage.getItem('game2048:queue') === '[]'")


def test_the_daily_game_opens_on_the_same_board_for_everyone(game, browser):
    game.open()
    game.ranked()
    game.page.locator("#daily").click()
    game.page.wait_for_function("() => window.game2048.state().mode === 'daily'")
    mine = game.state()
    assert mine["seed"] is None and mine["id"] is not None
    other = browser.new_page()
    other.goto(game.base_url + "/")
    other.wait_for_function("() => window.game2048 && window.game2048.state().id !== null")
    other.locator("#daily").click()
    other.wait_for_function("() => window.game2048.state().mode === 'daily'")
    theirs = other.evaluate("window.game2048.state()")
    assert theirs["board"] == mine["board"] and theirs["id"] != mine["id"]
    other.context.close()


def test_the_nickname_is_asked_once_and_can_be_changed(game):
    game.open()
    game.page.evaluate("localStorage.setItem('game2048:name', '\"\"')")
    game.page.reload()
    game.page.wait_for_function("() => window.game2048 !== undefined")
    game.ranked()
    _press(game, 4)
    game.settled()
    game.new_game()
    dialog = game.page.locator("#nickname")
    assert dialog.is_visible()
    chosen = f"Ada {game.name}"  # a name no other browser of the session finished under
    game.page.locator("#nickname-input").fill(chosen)
    dialog.get_by_role("button", name="Save").click()
    game.page.wait_for_function("() => localStorage.getItem('game2048:queue') === '[]'")
    assert json.loads(game.storage("game2048:name")) == chosen
    _press(game, 4)
    game.settled()
    game.new_game()
    assert dialog.is_hidden()
    game.page.locator("#name").click()
    assert dialog.is_visible()
    assert game.page.locator("#nickname-input").input_value() == chosen
    game.page.keyboard.press("Escape")


def test_a_hint_shows_a_direction_and_unranks_the_game(game):
    game.open()
    game.ranked()
    game.page.locator("#hint").click()
    game.page.wait_for_function("() => document.getElementById('hint-out').textContent !== ''")
    assert game.page.locator("#hint-out").inner_text().startswith("Hint:")
    state = game.state()
    assert state["helped"] is True and state["ranked"] is False
    assert game.page.locator("#status").inner_text() == "The solver helped: not ranked"


def test_autoplay_plays_and_any_key_stops_it(game):
    game.open()
    game.ranked()
    button = game.page.locator("#autoplay")
    button.click()
    assert button.get_attribute("aria-pressed") == "true"
    game.page.wait_for_function("() => window.game2048.state().moves >= 3", timeout=20000)
    game.page.keyboard.press("Shift")
    assert button.get_attribute("aria-pressed") == "false"
    moves = game.settled()["moves"]
    game.page.wait_for_timeout(400)
    assert game.state()["moves"] == moves
    assert game.state()["helped"] is True
    # the button itself, pressed from the keyboard, switches it on and off
    button.focus()
    game.page.keyboard.press("Enter")
    assert button.get_attribute("aria-pressed") == "true"
    game.page.keyboard.press("Enter")
    assert button.get_attribute("aria-pressed") == "false"
