"""The quick benchmarks still run: a change to the code they call must not break them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench"


def run(script: str, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, str(BENCH / script), *args], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def target_share(out: str) -> str:
    """The share of games reaching the target, from the one table row printed."""
    (row,) = [line for line in out.splitlines() if line.startswith("| 3×3 | fast | 2 |")]
    return row.split(" | ")[3]


def test_solver_strength_prints_a_row_and_until_stops_the_games() -> None:
    assert target_share(run("solver_strength.py", "3:fast:2")) == "50 %"  # game 0 makes 256, game 1 128
    assert target_share(run("solver_strength.py", "3:fast:2", "--until", "128")) == "0 %"


def test_engine_bench_measures_every_size() -> None:
    lines = run("engine.py", "--games", "1").splitlines()
    assert [line.split()[0] for line in lines[1:]] == ["3x3", "4x4", "5x5", "6x6"]


def test_env_bench_prints_both_rates_and_their_ratio():
    out = run("env_speed.py", "--boards", "8", "--steps", "20", "--single-steps", "50", "--rounds", "1")
    assert [line.split(":")[0] for line in out.splitlines()[1:]] == ["vector env", "single env", "ratio"]


def test_startup_bench_prints_each_figure():
    out = run("startup.py", "--runs", "1")
    assert [line.split(":")[0] for line in out.splitlines()[1:]] == [
        "python -c pass", "import game2048", "game2048 --help"]


def test_learned_against_strong_times_the_networks_expectimax() -> None:
    """With the installed weights (the test script installs them): strong, the plies and the depths
    timed on the same positions, each line with its agreement."""
    out = run("learned_vs_strong.py", "--shipped", "--positions", "4", "--every", "200", "--games", "0",
              "--plies", "2", "--depths", "1", "2").splitlines()
    assert "strong (one thread)" in out[1]
    assert [line.split(":")[0].strip() for line in out[2:]] == [
        "learned 2-ply", "learned expectimax, depth 1", "learned expectimax, depth 2"]
    assert all("picks strong's move" in line for line in out[2:])


def test_the_counted_move_bench_drives_the_app_on_fixed_seeds():
    """What ``move_instructions.py`` runs under valgrind (valgrind itself is not needed here)."""
    assert run("move_instructions.py", "--drive", "30") == ""
