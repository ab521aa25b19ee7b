"""Wall time from launching ``game2048 serve`` to its first 200 on ``/healthz``, with CPU hogs.

    python bench/serve_startup.py [--workers 1 2] [--hogs 0 1 2] [--runs 3]

Each run starts ``serve`` on a fresh SQLite file and a free port, with
``--hogs`` busy-loop processes at normal priority beside it, and polls
``/healthz`` every 20 ms. Prints the least and the median over ``--runs`` for
each (workers, hogs), of the wall time and of the CPU seconds the server's
processes had spent at that first answer (all of them: with ``--workers 2`` the
supervisor and both workers, one of which may still be starting; ``worker`` is
the least of the workers', read from ``/proc``, so Linux only). It never fails
on timing; the compiled solver is loaded once before the runs, so a first
compile is not what it measures.
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


def _cpu_seconds(pid: int) -> float:
    """User + system CPU of ``pid`` so far (0 when it is gone), from ``/proc/<pid>/stat``."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(entry.name))
            except (OSError, IndexError, ValueError):
                pass
    return found


def _tree_cpu(pid: int) -> tuple[float, float]:
    """CPU seconds of ``pid`` and its descendants, and the least of its children's (its own with none)."""
    children = _children(pid)
    total = _cpu_seconds(pid) + sum(_tree_cpu(c)[0] for c in children)
    workers = [_cpu_seconds(c) for c in children if "spawn_main" in _cmdline(c)]  # not the resource tracker
    return total, min(workers) if workers else _cpu_seconds(pid)


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_text()
    except OSError:
        return ""


def one_start(workers: int, deadline: float = 120.0) -> tuple[float, float, float]:
    """Seconds to the first 200 of /healthz, and the CPU seconds (all processes, a worker's) then."""
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
                        wall = time.monotonic() - started
                        return (wall, *_tree_cpu(proc.pid))
            except OSError:
                time.sleep(0.02)
        return float("inf"), float("inf"), float("inf")
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
    print(f"cores: {os.cpu_count()}; seconds from launch to the first 200 of /healthz, "
          "and CPU seconds then (all processes; the least worker's)")
    print("workers  hogs  wall least  median   cpu least  median  worker least  median")
    for hogs in args.hogs:
        busy = [multiprocessing.Process(target=_hog, daemon=True) for _ in range(hogs)]
        for p in busy:
            p.start()
        try:
            for workers in args.workers:
                runs = [one_start(workers) for _ in range(args.runs)]
                columns = [sorted(column) for column in zip(*runs, strict=True)]
                print(f"{workers:7d}  {hogs:4d}" + "".join(
                    f"  {c[0]:10.2f}  {c[len(c) // 2]:6.2f}" for c in columns[:2]) + "".join(
                    f"  {c[0]:12.2f}  {c[len(c) // 2]:6.2f}" for c in columns[2:]))
        finally:
            for p in busy:
                p.kill()


if __name__ == "__main__":
    main()
