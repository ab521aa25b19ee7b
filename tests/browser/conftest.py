"""Fixtures for the browser tests: the real ``game2048 serve`` on a free port with
a throw-away SQLite database, and one headless Chromium (Debian's ``chromium``
package) for the whole session, driven by Playwright for Python.

``GAME2048_TEST_URL`` points the tests at a server that is already running
instead; ``GAME2048_CHROMIUM`` names another Chromium binary.
"""

from __future__ import annotations

import itertools
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from game2048.server.moderation.access import password_hash

#: The operators' password of the tests' server (/mod).
MOD_PASSWORD = "the tests' operator password"
CHROMIUM = os.environ.get("GAME2048_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--no-first-run",
]

try:
    from playwright.sync_api import Browser, Page, sync_playwright
except ImportError:  # pragma: no cover - depends on the machine
    sync_playwright = None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    reason = None
    if sync_playwright is None:
        reason = "Playwright for Python is not installed (pip install playwright)"
    elif not Path(CHROMIUM).exists():
        reason = f"Chromium not found at {CHROMIUM} (apt-get install chromium)"
    if reason:
        for item in items:
            if "browser" in item.keywords:
                item.add_marker(pytest.mark.skip(reason=reason))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for(url: str, proc: subprocess.Popen[bytes] | None, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"game2048 serve exited with code {proc.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=1) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"the server at {url} did not answer within {seconds} s")


@pytest.fixture(scope="session")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The address of a running ``game2048 serve``."""
    given = os.environ.get("GAME2048_TEST_URL")
    if given:
        _wait_for(given.rstrip("/") + "/", None)
        yield given.rstrip("/")
        return
    port = _free_port()
    db = tmp_path_factory.mktemp("serve") / "game2048.sqlite3"
    # the daily try limit and the names a network newly holds a day have tests of their own; here
    # many pages share one address; the pages' absolute links come from the published address, as
    # in production
    env = {**os.environ, "GAME2048_RATE_LIMIT": "0", "GAME2048_DAILY_TRIES": "1000",
           "GAME2048_NAMES_PER_DAY": "0", "GAME2048_PUBLIC_URL": f"http://127.0.0.1:{port}",
           # a finished game is on the players' board once checked: here, at its finish
           "GAME2048_ENGINE_CHECK": "inline",
           "GAME2048_MOD_PASSWORD_HASH": password_hash(MOD_PASSWORD)}
    # a fresh clone compiles the solver once (numba: 30 s or more of CPU) at its first use; done here,
    # before the server starts, the server loads it from numba's cache, and its first finishes (each
    # checked against the solver) do not wait for a compile while the page's requests time out
    subprocess.run([sys.executable, "-c", "from game2048.solver import warm_up; warm_up()"],
                   check=True, timeout=900)
    log = (db.parent / "serve.log").open("wb")
    command = Path(sys.executable).with_name("game2048")
    proc = subprocess.Popen(
        [str(command) if command.exists() else "game2048", "serve", "--host", "127.0.0.1",
         "--port", str(port), "--db", f"sqlite:///{db}"],
        stdout=log, stderr=subprocess.STDOUT, env=env,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        # a fresh install compiles the solver once at its first start (about 30 s of CPU, longer on
        # a busy machine), holding the interpreter meanwhile: wait for that, not for a warm start
        _wait_for(url + "/", proc, seconds=180.0)
    except RuntimeError:
        proc.kill()
        log.close()
        raise RuntimeError((db.parent / "serve.log").read_text()[-3000:]) from None
    yield url
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
    log.close()


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


class GamePage:
    """A page with the game loaded, collecting console errors and page errors."""

    def __init__(self, page: Page, base_url: str) -> None:
        self.page = page
        self.base_url = base_url
        self.errors: list[str] = []
        #: Set by a test that cuts the network on purpose: failed requests are then expected.
        self.network_cut = False
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(str(e)))

    def open(self, query: str = "") -> GamePage:
        self.page.goto(f"{self.base_url}/{query}")
        # wait_for_function gets functions, never bare expressions, in these tests: Playwright
        # compiles an expression with eval when it polls, which the site's CSP refuses
        self.page.wait_for_function("() => window.game2048 !== undefined")
        return self

    def state(self) -> dict:
        return self.page.evaluate("window.game2048.state()")

    def settled(self) -> dict:
        """The state once every move made so far has been answered (a ranked game's tiles dealt)."""
        self.page.evaluate("window.game2048.settled()")
        return self.state()

    def ranked(self) -> dict:
        """The state once the game on the board is one the server deals."""
        self.page.wait_for_function("() => window.game2048.state().id !== null")
        return self.state()

    def load(self, board: list[list[int]], score: int = 0) -> None:
        self.page.evaluate("([b, s]) => window.game2048.load(b, s)", [board, score])

    def new_game(self) -> None:
        """Press "New game" and, if a game is in progress (it then asks first), confirm."""
        self.page.locator("#new-game").click()
        confirm = self.page.locator("#confirm")
        if confirm.is_visible():
            confirm.locator("button[value='yes']").click()
            # the dialog's close event (and the new game it starts) comes in a task of its own
            self.page.wait_for_function("() => !document.getElementById('confirm').open")
            self.page.evaluate("new Promise((r) => setTimeout(r, 50))")

    def storage(self, key: str) -> str | None:
        return self.page.evaluate("k => localStorage.getItem(k)", key)


#: Each test's browser plays under a name of its own: a name belongs to the first browser that
#: finished a game under it (its name key), and the server lives for the whole session.
_testers = itertools.count(1)


@pytest.fixture
def game(browser: Browser, base_url: str, request: pytest.FixtureRequest) -> Iterator[GamePage]:
    """A fresh browser context (empty storage) with a nickname already chosen (``tester<n>``)."""
    options = getattr(request, "param", {}) or {}
    context = browser.new_context(**{"viewport": {"width": 480, "height": 900}, **options})
    name = f"tester{next(_testers)}"
    context.add_init_script(
        f"localStorage.getItem('game2048:name') || localStorage.setItem('game2048:name', '\"{name}\"')"
    )
    if not request.node.get_closest_marker("ask_unranking"):
        # the question before the first undo or hint of a ranked game has tests of its own
        context.add_init_script("localStorage.setItem('game2048:askUnranking', 'false')")
    page = context.new_page()
    gp = GamePage(page, base_url)
    gp.name = name
    yield gp
    # a route handler of the test's may still be answering (a slow machine): it stops here, quietly,
    # rather than fail the next test when the closed context cuts its request
    page.unroute_all(behavior="ignoreErrors")
    context.close()
    errors = [e for e in gp.errors if not (gp.network_cut and e.startswith("Failed to load resource"))]
    assert errors == [], f"console errors: {errors}"


@pytest.fixture(scope="session")
def finished_game(browser: Browser, base_url: str) -> str:
    """The id of a game played in the page and sent to the server, for /games/{id} and /leaderboard."""
    context = browser.new_context()
    # a name of its own: a name belongs to the first browser that finished under it
    context.add_init_script("localStorage.setItem('game2048:name', '\"Ada Fixture\"')")
    page = context.new_page()
    try:
        gp = GamePage(page, base_url).open()
        page.wait_for_function("() => window.game2048.state().id !== null")
        page.evaluate("""async () => {
            const g = window.game2048;
            for (let i = 0; i < 60 && !g.state().over; i++) {
                g.move('left') || g.move('down') || g.move('right') || g.move('up');
                await g.settled();  // the server deals each tile
            }
        }""")
        game_id = gp.settled()["id"]
        gp.new_game()
        # the finish is checked against the solver before it answers: allow a slow machine its time
        page.wait_for_function("() => localStorage.getItem('game2048:queue') === '[]'", timeout=120_000)
    finally:
        context.close()
    return game_id


@pytest.fixture(scope="session")
def reviewed_game(base_url: str, finished_game: str) -> str:
    """The id of ``finished_game`` once the server has made its review (for /games/{id}/review)."""
    import json

    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        with urllib.request.urlopen(f"{base_url}/api/games/{finished_game}/review", timeout=30) as r:
            if r.status == 200:
                json.loads(r.read())
                return finished_game
        time.sleep(0.5)
    raise RuntimeError(f"the review of game {finished_game} was not made within 300 s")
