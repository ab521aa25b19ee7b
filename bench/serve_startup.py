"""Wall time from launching ``game2048 serve`` to its first 200 on ``/healthz``, with CPU hogs.

    python bench/serve_startup.py [--workers 1 2] [--hogs 0 1 2] [--runs 3]

Each run starts ``serve`` on a fresh SQLite file and a free port, with
``--hogs`` busy-loop processes at normal priority beside it, and polls
``/healthz`` every 20 ms. Prints the least and the median over ``--runs`` for
each (workers, hogs). It never fails on timing; the compiled solver is loaded
once before the runs, so a first compile is not what it measures.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path


def _hog() -> None:  # pragma: no cover - a busy loop until killed
    while True:
        pass


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def one_start(workers: int, deadline: float = 120.0) -> float:
    port = _free_port()
    folder = Path(tempfile.mkdtemp())
    command = Path(sys.executable).with_name("game2048")
    started = time.monotonic()
    proc = subprocess.Popen(
        [str(command) if command.exists() else "game2048", "serve", "--port", str(port),
         "--workers", str(workers), "--db", f"sqlite:///{folder / 'db.sqlite3'}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while time.monotonic() - started < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as r:
                    if r.status == 200:
                        return time.monotonic() - started
            except OSError:
                time.sleep(0.02)
        return float("inf")
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
        shutil.rmtree(folder, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--hogs", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    subprocess.run([sys.executable, "-c", "from game2048.solver import best_move; "
                    "best_move([[2, 0, 0, 0]] + [[0] * 4] * 3)"], check=True)
    print(f"cores: {os.cpu_count()}; seconds from launch to the first 200 of /healthz")
    print("workers  hogs   least  median")
    for hogs in args.hogs:
        busy = [multiprocessing.Process(target=_hog, daemon=True) for _ in range(hogs)]
        for p in busy:
            p.start()
        try:
            for workers in args.workers:
                times = sorted(one_start(workers) for _ in range(args.runs))
                print(f"{workers:7d}  {hogs:4d}  {times[0]:6.2f}  {times[len(times) // 2]:6.2f}")
        finally:
            for p in busy:
                p.kill()


if __name__ == "__main__":
    main()
