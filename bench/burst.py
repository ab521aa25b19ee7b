"""How fast play feels on a slow network: a burst of keys in headless Chromium behind a delay.

Starts ``game2048 serve`` on a loopback port and, in front of it, a TCP proxy
that holds every chunk of bytes ``--delay`` ms in each direction (a phone on a
poor network: 150 ms each way is a 300 ms round trip). Debian's Chromium,
driven by Playwright, opens the game through the proxy and waits for its
ranked game; then, ``--rounds`` times, it presses one key and times how long
until that move's tile is on the board, and presses a burst of ``--keys`` keys
``--gap`` ms apart and times how long after the last key the last tile is on
the board (the page's ``settled()``). Prints each time against the targets
(one key: 1 round trip + 30 ms; the burst: 2 round trips + 100 ms); never
fails on timing.

    .venv/bin/python bench/burst.py                       # 150 ms each way, 20 keys 30 ms apart
    .venv/bin/python bench/burst.py --delay 50 --keys 40
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

from load import free_port

KEYS = ("ArrowLeft", "ArrowDown", "ArrowRight", "ArrowUp")

#: The page's own clock: when the last key went down, and when a new tile last came onto the board.
WATCH = """() => {
    const seen = window.burstClock = {key: 0, tile: 0};
    document.addEventListener('keydown', () => { seen.key = performance.now(); }, true);
    new MutationObserver((changes) => {
        if (changes.some((c) => [...c.addedNodes].some((n) => n.querySelector?.('.tile-inner.new')))) {
            seen.tile = performance.now();
        }
    }).observe(document.querySelector('[data-testid=board] .tiles'), {childList: true});
}"""


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, delay: float) -> None:
    """Forward bytes, each chunk ``delay`` seconds late (chunks keep their order and overlap in flight)."""
    queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()

    async def later() -> None:
        while True:
            due, data = await queue.get()
            await asyncio.sleep(max(0.0, due - time.monotonic()))
            if not data:
                writer.close()
                return
            writer.write(data)
            await writer.drain()

    sender = asyncio.create_task(later())
    try:
        while data := await reader.read(65536):
            queue.put_nowait((time.monotonic() + delay, data))
    finally:
        queue.put_nowait((time.monotonic() + delay, b""))
        await sender


def run_proxy(listen: int, target: int, delay: float, ready: threading.Event) -> None:
    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", target)
        except OSError:
            writer.close()
            return
        await asyncio.gather(_pipe(reader, up_writer, delay), _pipe(up_reader, writer, delay),
                             return_exceptions=True)

    async def main() -> None:
        server = await asyncio.start_server(handle, "127.0.0.1", listen)
        ready.set()
        async with server:
            await server.serve_forever()

    asyncio.run(main())


def start_server(port: int) -> subprocess.Popen[bytes]:
    db = tempfile.mkdtemp()
    env = {**os.environ, "GAME2048_RATE_LIMIT": "0"}
    cmd = [sys.executable, "-c", "from game2048.cli import app; app()", "serve", "--host", "127.0.0.1",
           "--port", str(port), "--db", f"sqlite:///{db}/burst.sqlite"]
    return subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _wait_healthy(port: int, proc: subprocess.Popen[bytes]) -> None:
    import urllib.request

    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1):
                return
        except OSError:
            time.sleep(0.3)
    raise SystemExit("the server did not start")


def _each(times: list[float]) -> str:
    return " ".join(f"{t:.0f}" for t in times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--delay", type=float, default=150.0, help="ms added in each direction")
    parser.add_argument("--keys", type=int, default=20)
    parser.add_argument("--gap", type=float, default=30.0, help="ms between the keys of a burst")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    server_port, proxy_port = free_port(), free_port()
    server = start_server(server_port)
    ready = threading.Event()
    threading.Thread(target=run_proxy, args=(proxy_port, server_port, args.delay / 1000, ready),
                     daemon=True).start()
    ready.wait()
    rtt = 2 * args.delay
    singles, bursts, in_page = [], [], []
    try:
        _wait_healthy(server_port, server)
        chromium = shutil.which("chromium") or "/usr/bin/chromium"
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, args=[
                "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"])
            page = browser.new_page()
            # a player with a name: a game over is sent without the name dialog, and R starts the next
            page.add_init_script("localStorage.setItem('game2048:name', '\"Bench\"')")
            page.goto(f"http://127.0.0.1:{proxy_port}/", timeout=60_000)
            page.wait_for_function("() => window.game2048 && window.game2048.state().id", timeout=60_000)
            page.locator("body").focus()
            page.evaluate(WATCH)
            for round_ in range(args.rounds):
                page.evaluate("() => window.game2048.settled()")
                if page.evaluate("() => window.game2048.state().over"):
                    page.keyboard.press("r")
                    # a ranked game, dealt by the server (a practice game stands in until it comes)
                    fresh = "() => !window.game2048.state().moves && window.game2048.state().id"
                    page.wait_for_function(fresh)
                before = page.evaluate("() => window.game2048.state().log.length")
                for key in KEYS:  # one key that changes the board
                    t0 = time.perf_counter()
                    page.keyboard.press(key)
                    if page.evaluate("() => window.game2048.state().log.length") > before:
                        break
                page.evaluate("() => window.game2048.settled()")
                singles.append((time.perf_counter() - t0) * 1000)
                # (a tile that came before its slide ended is drawn when it ends)
                page.wait_for_function("() => window.burstClock.tile > window.burstClock.key")
                in_page.append(page.evaluate("() => window.burstClock.tile - window.burstClock.key"))
                for i in range(args.keys):
                    page.keyboard.press(KEYS[(i + round_) % 4])
                    last = time.perf_counter()
                    time.sleep(args.gap / 1000)
                page.evaluate("() => window.game2048.settled()")
                bursts.append((time.perf_counter() - last) * 1000)
            browser.close()
    finally:
        server.terminate()
        server.wait()
    print(f"round trip {rtt:.0f} ms (+{args.delay:.0f} ms each way), {args.rounds} rounds")
    # the first round's key goes over HTTP while the game's WebSocket opens (socket_link.js)
    print(f"one key, its tile on the board: median {statistics.median(singles):.0f} ms "
          f"(max {max(singles):.0f}); target {rtt + 30:.0f} ms; each round: {_each(singles)}")
    # the same by the page's clock, from keydown to the tile in the board's DOM: without the
    # driver's own round trips (pressing, asking the page)
    print(f"  by the page's clock: median {statistics.median(in_page):.0f} ms; each round: {_each(in_page)}")
    print(f"{args.keys} keys {args.gap:.0f} ms apart, the last tile after the last key: median "
          f"{statistics.median(bursts):.0f} ms (max {max(bursts):.0f}); target {2 * rtt + 100:.0f} ms; "
          f"each round: {_each(bursts)}")


if __name__ == "__main__":
    main()
