"""One environment against the peer package ``gymnasium-2048``, side by side in one run.

    python bench/env_peer.py [--steps 20000] [--rounds 3] [--venv DIR]

The peer is installed into a throwaway virtual environment of this
benchmark's own (a temporary directory, or ``--venv DIR`` to keep and reuse
one); it is never a dependency of game2048. Both environments are made with
``gymnasium.make`` (default wrappers), take the same random actions on a 4x4
board and reset at game over. Rounds alternate between the two, each in a
fresh process; the best round of each (CPU time) is kept, and the ratio is
printed.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import venv
from pathlib import Path

PEER = "gymnasium-2048"
PEER_ID, PEER_MODULE = "gymnasium_2048/TwentyFortyEight-v0", "gymnasium_2048"

# Runs in either interpreter: argv = env id, import to register it, steps.
TIMER = """
import importlib, sys, time
import gymnasium, numpy as np
env_id, module, steps = sys.argv[1], sys.argv[2], int(sys.argv[3])
importlib.import_module(module)
env = gymnasium.make(env_id)
env.reset(seed=0)
actions = [int(a) for a in np.random.default_rng(1).integers(4, size=steps)]
env.step(0)
t0 = time.process_time()
for a in actions:
    if env.step(a)[2]:
        env.reset()
print(steps / (time.process_time() - t0))
print(gymnasium.__version__)
"""


def peer_python(where: Path) -> Path:
    python = where / "bin" / "python"
    if not python.exists():
        print(f"installing {PEER} into a throwaway virtual environment at {where} ...", flush=True)
        venv.create(where, with_pip=True)
        subprocess.run([python, "-m", "pip", "install", "--quiet", PEER], check=True)
    return python


def rate(python: Path | str, env_id: str, module: str, steps: int) -> tuple[float, str]:
    done = subprocess.run(
        [python, "-c", TIMER, env_id, module, str(steps)], capture_output=True, text=True, check=True
    )
    figure, version = done.stdout.split()
    return float(figure), version


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=20_000, help="steps per round (default 20000)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--venv", type=Path, help="where to keep the peer's virtual environment")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="peer-2048-") as tmp:
        peer = peer_python(args.venv or Path(tmp) / "venv")
        ours_best = peer_best = 0.0
        for _ in range(args.rounds):
            peer_rate, peer_gym = rate(peer, PEER_ID, PEER_MODULE, args.steps)
            our_rate, our_gym = rate(sys.executable, "game2048/Game2048-v0", "game2048.env", args.steps)
            peer_best, ours_best = max(peer_best, peer_rate), max(ours_best, our_rate)
    print(f"4x4, {args.steps} random steps a round, best of {args.rounds} alternating rounds (CPU time)")
    print(f"game2048/Game2048-v0:               {ours_best:>10,.0f} steps/s  (gymnasium {our_gym})")
    print(f"gymnasium_2048/TwentyFortyEight-v0: {peer_best:>10,.0f} steps/s  (gymnasium {peer_gym})")
    print(f"ratio:                              {ours_best / peer_best:>10.1f}x")


if __name__ == "__main__":
    main()
