"""The solver says when it compiles: only when numba's cache is cold."""

from __future__ import annotations

import os
import subprocess
import sys

from game2048.solver import warm_up
from game2048.solver.compiling import SOLVER_SOURCES, cache_is_cold


def test_an_empty_numba_cache_is_cold(tmp_path):
    code = ("from game2048.solver.compiling import SOLVER_SOURCES, cache_is_cold\n"
            "print(cache_is_cold(SOLVER_SOURCES))")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120,
                          check=True)
    assert done.stdout.strip() == "True"


def test_once_compiled_the_cache_is_warm_and_nothing_is_said(capfd):
    warm_up()
    capfd.readouterr()
    assert not cache_is_cold(SOLVER_SOURCES)
