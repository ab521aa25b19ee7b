"""The review's benchmarks still run (on tiny inputs): a change to the code they call must not break them."""

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


def test_calibration_prints_distributions_choices_and_targets() -> None:
    out = run("review_calibration.py", "--sizes", "3", "--games", "2", "--max-moves", "40")
    assert "Loss quantiles" in out and "Chosen: thresholds" in out
    assert [line.split()[1] for line in out.splitlines() if line.startswith("   3  ")] == [
        "solver-fast", "corner", "greedy", "random"]
    assert "3x3: solver-fast" in out and "ms a move" in out


def test_calibration_compares_units_of_loss() -> None:
    out = run("review_calibration.py", "--compare-units", "--sizes", "3", "--games", "1", "--max-moves", "20")
    assert "the board's weight" in out and "the value of a live board" in out


def test_speed_bench_prints_a_row_per_size_and_kind_of_game() -> None:
    out = run("review.py", "--sizes", "3,4", "--moves", "20")
    rows = [line for line in out.splitlines() if line.startswith("| 3×3") or line.startswith("| 4×4")]
    assert len(rows) == 4 and all(row.split(" | ")[2] == "20" for row in rows)


def test_server_bench_measures_finishes_with_and_without_reviews() -> None:
    out = run("review_server.py", "--finishes", "3", "--reviews", "1", "--review-moves", "20",
              "--finish-moves", "20")
    assert "| no review running | 3 |" in out and "| reviews being made | 3 |" in out
