"""A WebSocket move's cost inside the app, counted in instructions: the same on a busy machine.

Times on a shared 2-core machine move by 10-20 % from run to run, more than a
change to the move path is worth, so a before-and-after in time needs many
runs and still says little. This counts the instructions instead, under
valgrind (Debian's ``valgrind`` package), which do not depend on the load:
``bench/move_inprocess.py`` run for ``--base`` moves and for ``--base +
--moves`` moves, with the same seeds every time (so the same games, the same
boards, the same number of games started), and the difference divided by
``--moves``. Two runs of the same code agree within about 3,000 instructions
a move (the server's threads that wake on a clock do more under valgrind,
which runs the process some 50 times slower). The figure includes the bench's own client (its JSON and its
choice of move, the same in every run): compare two versions by their
difference, not by their ratio. Runs the two counts at once (two cores):
about a minute and a half per version. Prints figures; never fails on a count.

    .venv/bin/python bench/move_instructions.py                       # this checkout
    .venv/bin/python bench/move_instructions.py --before ../old/src   # and another checkout's
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def drive(moves: int) -> None:
    """In the process valgrind counts: the in-process bench, its games dealt from fixed seeds."""
    sys.path.insert(0, str(HERE))
    try:  # where a game starts: this checkout, or one from before the mover was split (--before)
        from game2048.server.live import starting
    except ImportError:
        from game2048.server.live import mover as starting  # type: ignore[no-redef]

    seeds = (f"{i:032x}" for i in itertools.count(0x1234567))
    starting.classic_seed = lambda: next(seeds)  # type: ignore[assignment]
    import move_inprocess

    asyncio.run(move_inprocess.run(moves))


def _start(moves: int, src: str | None) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONHASHSEED": "0"}  # the same hashes, so the same dict layouts, every run
    if src:
        env["PYTHONPATH"] = src
    cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
           sys.executable, str(Path(__file__).resolve()), "--drive", str(moves)]
    return subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def _instructions(proc: subprocess.Popen[str]) -> int:
    _, err = proc.communicate()
    found = re.search(r"Collected\s*:\s*([\d,]+)", err)
    if proc.returncode != 0 or found is None:
        raise SystemExit(f"the counted run failed:\n{err[-2000:]}")
    return int(found.group(1).replace(",", ""))


def per_move(base: int, moves: int, src: str | None) -> float:
    short, long = _start(base, src), _start(base + moves, src)
    return (_instructions(long) - _instructions(short)) / moves


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--moves", type=int, default=2000, help="the moves counted")
    parser.add_argument("--base", type=int, default=200, help="moves of the run subtracted (start-up)")
    parser.add_argument("--before", metavar="SRC", help="also the package in SRC (another checkout's src)")
    parser.add_argument("--drive", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.drive is not None:
        drive(args.drive)
        return
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (Debian: apt-get install valgrind)")
    print(f"instructions a move in the app, bench client included ({args.moves} moves, same seeds):")
    here = per_move(args.base, args.moves, None)
    if args.before:
        before = per_move(args.base, args.moves, args.before)
        print(f"  before {before:10,.0f}")
    print(f"  this   {here:10,.0f}")
    if args.before:
        print(f"  this - before {here - before:+,.0f} a move")


if __name__ == "__main__":
    main()
