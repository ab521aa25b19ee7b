"""Take the README's screenshots (docs/images/) of a running game2048 serve, in headless Chromium.

    python scripts/screenshots.py [--url http://127.0.0.1:8000]

Without --url it starts a server on a throw-away database. Each shot plays
the same ranked game for a while (down, left, right, then up when stuck),
so the board shows a spread of tiles, and stops while it is still open.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from browser_frame import CHROMIUM, start_server  # noqa: E402

OUT = ROOT / "docs" / "images"
SHOTS = [
    # name, viewport, colour scheme, language
    ("game-light.png", {"width": 1000, "height": 950}, "light", "en"),
    ("game-dark.png", {"width": 520, "height": 950}, "dark", "en"),
    ("game-sideways.png", {"width": 839, "height": 412}, "light", "he"),
]
PLAY = """(moves) => {
    const g = window.game2048;
    for (let i = 0; i < moves && !g.state().over; i++) {
        g.move('down') || g.move('left') || g.move('right') || g.move('up');
        // stop while the game is still open, rather than on a full board
        if (i > 80 && g.state().board.flat().filter((v) => !v).length <= 3) break;
    }
}"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="a running game2048 serve (default: start one)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        proc, url = (None, args.url.rstrip("/")) if args.url else start_server(Path(tmp))
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
                for name, viewport, scheme, lang in SHOTS:
                    context = browser.new_context(
                        viewport=viewport, color_scheme=scheme, reduced_motion="reduce")
                    context.add_init_script("localStorage.setItem('game2048:name', '\"Ada\"')")
                    page = context.new_page()
                    page.goto(f"{url}/?lang={lang}")
                    page.wait_for_function("window.game2048 && window.game2048.state().id !== null")
                    page.evaluate(PLAY, 160)
                    page.screenshot(path=str(OUT / name))
                    print(OUT / name)
                    context.close()
                browser.close()
        finally:
            if proc:
                proc.terminate()
                proc.wait(timeout=10)


if __name__ == "__main__":
    main()
