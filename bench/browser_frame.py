"""How long a move takes to render in the browser game, measured in headless Chromium.

    python bench/browser_frame.py [--moves 200] [--url http://127.0.0.1:8000]

Without ``--url`` it starts ``game2048 serve`` on a free port with a throw-away
SQLite database. For each board size it plays random legal moves through
``window.game2048.move`` and prints, per move:

- ``script``: the page's own work for a move (engine, tiles, score, saving),
  from the ``game2048:move`` performance measure the game records;
- ``+layout``: the same plus the style recalculation and layout it causes,
  forced at once by reading the board's size;
- ``frame``: from the move to the start of the next animation frame.

A frame at 60 Hz is 16.7 ms. Figures only: nothing here passes or fails.
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import sync_playwright

CHROMIUM = os.environ.get("GAME2048_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]

MEASURE = """async ([size, moves]) => {
  const g = window.game2048;
  g.newGame({ size, seed: 20480 + size });
  const frame = () => new Promise((r) => requestAnimationFrame(r));
  const board = document.querySelector('[data-testid="board"]');
  const out = { script: [], layout: [], frame: [] };
  const dirs = ['up', 'down', 'left', 'right'];
  let rng = 12345;
  for (let i = 0; i < moves; i++) {
    if (g.state().over) g.newGame({ size, seed: 20480 + size + i });
    await frame();
    performance.clearMeasures('game2048:move');
    const t0 = performance.now();
    rng = (rng * 1103515245 + 12345) % 2147483648;
    let moved = false;
    for (let k = 0; k < 4 && !moved; k++) moved = g.move(dirs[(rng + k) % 4]);
    if (!moved) continue;
    board.getBoundingClientRect();
    const t1 = performance.now();
    await frame();
    const t2 = performance.now();
    const m = performance.getEntriesByName('game2048:move');
    if (m.length) out.script.push(m[0].duration);
    out.layout.push(t1 - t0);
    out.frame.push(t2 - t0);
    if (g.state().won && !g.state().keepPlaying) g.keepPlaying();
  }
  return out;
}"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(tmp: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    command = Path(sys.executable).with_name("game2048")
    proc = subprocess.Popen(
        [str(command) if command.exists() else "game2048", "serve", "--port", str(port),
         "--db", f"sqlite:///{tmp / 'bench.sqlite3'}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(150):
        try:
            urllib.request.urlopen(url + "/", timeout=1).close()
            return proc, url
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit("game2048 serve did not start")


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(p * len(values)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=200, help="moves per board size")
    parser.add_argument("--url", help="a running game2048 serve (default: start one)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        proc, url = (None, args.url.rstrip("/")) if args.url else start_server(Path(tmp))
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
                page = browser.new_page(viewport={"width": 480, "height": 900})
                page.goto(url + "/")
                page.wait_for_function("() => window.game2048 !== undefined")
                print(f"{'size':>4} {'moves':>5}  {'script p50/p95/max ms':>22}"
                      f"  {'+layout p50/p95/max ms':>23}"
                      f"  {'frame p50/p95 ms':>16}")
                for size in (3, 4, 5, 6):
                    r = page.evaluate(MEASURE, [size, args.moves])

                    def trio(v: list[float]) -> str:
                        return f"{statistics.median(v):6.2f} {pct(v, 0.95):6.2f} {max(v):6.2f}"

                    print(f"{size:>4} {len(r['layout']):>5}  {trio(r['script']):>22}  {trio(r['layout']):>23}"
                          f"  {statistics.median(r['frame']):7.2f} {pct(r['frame'], 0.95):7.2f}")
                browser.close()
        finally:
            if proc:
                proc.terminate()
                proc.wait(timeout=10)


if __name__ == "__main__":
    main()
