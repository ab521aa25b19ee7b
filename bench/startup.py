"""CPU time to start: ``import game2048`` and ``game2048 --help``, in fresh processes.

    python bench/startup.py [--runs 21]

Prints the least and the median CPU time (user + system, from getrusage) of
each over ``--runs`` runs, beside a bare ``python -c pass``. The README's
figures come from it; it never fails on timing.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import subprocess
import sys
from pathlib import Path


def cpu_ms(command: list[str], runs: int) -> tuple[float, float]:
    spent = []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        spent.append(1000 * (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime))
    spent.sort()
    return spent[0], spent[len(spent) // 2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args()
    beside = Path(sys.executable).parent / "game2048"
    script = str(beside) if beside.exists() else shutil.which("game2048") or "game2048"
    print("what: least / median CPU ms")
    for name, command in (
        ("python -c pass", [sys.executable, "-c", "pass"]),
        ("import game2048", [sys.executable, "-c", "import game2048"]),
        ("game2048 --help", [script, "--help"]),
    ):
        least, median = cpu_ms(command, args.runs)
        print(f"{name}: {least:.0f} / {median:.0f}")


if __name__ == "__main__":
    main()
