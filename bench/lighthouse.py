"""Lighthouse (mobile profile) on the site's pages: the four category scores and the load metrics.

    (cd bench/lighthouse && npm ci)          # Lighthouse 12.2.3, once
    python bench/lighthouse.py [--runs 3] [--url http://127.0.0.1:8000] [--pages / /rules]

Without ``--url`` it starts ``game2048 serve`` on a free port with a
throw-away SQLite database and plays and sends one game first, so that the
leaderboard is not empty. Lighthouse runs with its default mobile profile
(Moto G Power screen, simulated slow 4G: 150 ms round trips, 1.6 Mbit/s, and a
4× slower CPU) against Debian's Chromium (``CHROME_PATH``, default
``/usr/bin/chromium``). Each page is measured ``--runs`` times and the median
run (by performance score, then time to interactive) is printed, and every
run's TTI below it:

- performance, accessibility, best practices, SEO (0-100);
- FCP, LCP, TBT, CLS, and TTI, Lighthouse's time to interactive: on ``/`` a
  bound on when the first move is possible (the game's keys and swipes are
  live once its scripts have run, before the page goes quiet);
- ready: on ``/``, when the page marked ``game2048:ready`` (its scripts have
  run and a move is possible), from the start of navigation. With
  ``--throttling devtools`` the page really loads on the throttled link and
  CPU, so this is the time a player on that phone waits; with the default
  simulated throttling it is the unthrottled time, and TTI is the figure.

Figures only: nothing here passes or fails. Timings depend on the machine's
load; say under what load they were taken.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from browser_frame import CHROMIUM, start_server

HERE = Path(__file__).resolve().parent
LIGHTHOUSE = HERE / "lighthouse" / "node_modules" / ".bin" / "lighthouse"
PAGES = ["/", "/leaderboard", "/rules", "/strategy", "/boards", "/solver"]
CATEGORIES = ["performance", "accessibility", "best-practices", "seo"]
METRICS = {
    "FCP": "first-contentful-paint",
    "LCP": "largest-contentful-paint",
    "TTI": "interactive",
    "TBT": "total-blocking-time",
    "CLS": "cumulative-layout-shift",
}


def lighthouse(url: str, out: Path, throttling: str = "simulate") -> dict:
    """One Lighthouse run on ``url`` (mobile, the four categories); its JSON report."""
    env = {**os.environ, "CHROME_PATH": os.environ.get("CHROME_PATH", CHROMIUM)}
    command = [str(LIGHTHOUSE), url, "--quiet", "--output=json", f"--output-path={out}",
               f"--only-categories={','.join(CATEGORIES)}", f"--throttling-method={throttling}",
               "--chrome-flags=--headless=new --no-sandbox --disable-gpu"]
    if subprocess.run(command, env=env, timeout=300).returncode != 0:
        # Lighthouse now and then loses the trace of a load (NO_NAVSTART): once more, then give up
        print(f"  Lighthouse failed on {url}; running it again", file=sys.stderr)
        subprocess.run(command, check=True, env=env, timeout=300)
    return json.loads(out.read_text())


def summary(report: dict) -> dict[str, float | str]:
    row: dict[str, float | str] = {c: round(report["categories"][c]["score"] * 100) for c in CATEGORIES}
    for name, audit in METRICS.items():
        row[name] = report["audits"][audit].get("displayValue", "")
    row["tti_ms"] = report["audits"]["interactive"].get("numericValue", 0)
    timings = report["audits"].get("user-timings", {}).get("details", {}).get("items", [])
    ready = [t["startTime"] for t in timings if t.get("name") == "game2048:ready"]
    row["ready"] = f"{ready[0] / 1000:.2f} s" if ready else "-"
    row["failing"] = ", ".join(
        ref["id"]
        for cat in report["categories"].values()
        for ref in cat["auditRefs"]
        if ref["weight"] > 0 and (report["audits"][ref["id"]].get("score") or 0) < 1
        and report["audits"][ref["id"]].get("score") is not None
        and cat["id"] != "performance"
    )
    return row


def play_one_game(url: str) -> None:
    """Play and send one game, so that /leaderboard has a row."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page()
        page.add_init_script("localStorage.setItem('game2048:name', '\"Ada\"')")
        page.goto(url + "/")
        page.wait_for_function("() => window.game2048 && window.game2048.state().id !== null")
        page.evaluate("""() => {
            const g = window.game2048;
            for (let i = 0; i < 40; i++) g.move('left') || g.move('down') || g.move('right') || g.move('up');
        }""")
        page.locator("#new-game").click()
        if page.locator("#confirm").is_visible():
            page.locator("#confirm button[value='yes']").click()
        page.wait_for_function("() => localStorage.getItem('game2048:queue') === '[]'")
        browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="a running game2048 serve (default: start one)")
    parser.add_argument("--runs", type=int, default=3, help="runs per page; the median is printed")
    parser.add_argument("--pages", nargs="*", default=PAGES)
    parser.add_argument("--throttling", choices=["simulate", "devtools"], default="simulate",
                        help="simulate (Lighthouse's default: timings computed from an unthrottled load) "
                             "or devtools (the page really loads throttled, so its own marks are "
                             "throttled times)")
    args = parser.parse_args()
    if not LIGHTHOUSE.exists():
        raise SystemExit(f"Lighthouse is not installed: cd {HERE / 'lighthouse'} && npm ci")
    with tempfile.TemporaryDirectory() as tmp:
        proc, url = (None, args.url.rstrip("/")) if args.url else start_server(Path(tmp))
        try:
            if proc:
                play_one_game(url)
            print(f"Lighthouse, mobile profile ({args.throttling} throttling), median of {args.runs} run(s) "
                  f"per page; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs at the start")
            print("| page | perf | a11y | best pr. | SEO | FCP | LCP | TTI | TBT | CLS | ready |")
            print("|---|---|---|---|---|---|---|---|---|---|---|")
            for page in args.pages:
                rows = [summary(lighthouse(url + page, Path(tmp) / f"run{i}.json", args.throttling))
                        for i in range(args.runs)]
                rows.sort(key=lambda r: (-r["performance"], r["tti_ms"]))
                row = rows[len(rows) // 2]
                cells = [row[c] for c in CATEGORIES] + [row[m] for m in METRICS] + [row["ready"]]
                print(f"| `{page}` | " + " | ".join(str(c) for c in cells) + " |")
                failing = {r["failing"] for r in rows if r["failing"]}
                if failing:
                    print(f"  not 100 because of: {'; '.join(sorted(failing))}", file=sys.stderr)
                scores = sorted(r["performance"] for r in rows)
                ready = f", ready {', '.join(str(r['ready']) for r in rows)}" if row["ready"] != "-" else ""
                print(f"  over the runs: performance {statistics.median(scores)} (min {scores[0]},"
                      f" max {scores[-1]}), TTI {', '.join(str(r['TTI']) for r in rows)}{ready}",
                      file=sys.stderr)
        finally:
            if proc:
                proc.terminate()
                proc.wait(timeout=10)


if __name__ == "__main__":
    main()
