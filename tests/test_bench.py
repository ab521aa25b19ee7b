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


def test_the_server_cpu_meter_counts_a_thread_to_the_millisecond_and_keeps_what_an_ended_one_ran():
    """``load.server_cpu_seconds``, which every move bench reads: a thread's 30 ms of CPU come out
    as 30 ms (clock ticks would say 20, 30 or 40), and a thread that ends takes nothing back.
    Measured in a process of its own, where no other thread runs meanwhile."""
    done = subprocess.run([sys.executable, "-c", METERED, str(BENCH)], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    before, during, after, spent = map(float, done.stdout.split())
    assert after >= during >= before + spent * 0.95
    if Path("/proc/self/schedstat").exists():  # else the meter counts clock ticks, as it says
        assert during - before < spent + 0.005  # the main thread only waited meanwhile


#: The process ``test_the_server_cpu_meter_...`` measures: a thread burns 30 ms of CPU, is counted,
#: then ends and is counted again; prints the three readings and the thread's own CPU time.
METERED = """
import os, sys, threading, time
sys.path.insert(0, sys.argv[1])
from load import server_cpu_seconds

burned, release, spent = threading.Event(), threading.Event(), []

def worker():
    start = time.thread_time()
    while time.thread_time() - start < 0.03:
        pass
    spent.append(time.thread_time() - start)
    burned.set()
    release.wait()

pid = os.getpid()
before = server_cpu_seconds(pid)
thread = threading.Thread(target=worker)
thread.start()
burned.wait()
during = server_cpu_seconds(pid)
release.set()
thread.join()
after = server_cpu_seconds(pid)
print(before, during, after, spent[0])
"""


def test_the_floor_server_commits_each_move_before_it_answers(tmp_path: Path) -> None:
    """``floor.py``, the least server that stores every move: each answer comes after its move is
    committed (another connection reads it), and the row's tail is emptied every ``TAIL`` moves."""
    import importlib.util
    import json
    import sqlite3
    from contextlib import closing

    from starlette.testclient import TestClient

    spec = importlib.util.spec_from_file_location("floor", BENCH / "floor.py")
    floor = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(floor)  # type: ignore[union-attr]
    path = tmp_path / "floor.sqlite"
    letters = "LDRU" * 10
    with TestClient(floor.floor_app(str(path))) as client, client.websocket_connect("/floor") as ws:
        for i, letter in enumerate(letters):
            ws.send_text(json.dumps({"op": "moves", "token": "t", "at": i, "moves": letter}))
            answer = json.loads(ws.receive_text())
            assert answer["at"] == i + 1 and len(answer["board"]) == 4
            with closing(sqlite3.connect(path)) as reader:
                at, tail = reader.execute("SELECT at, tail FROM floor").fetchone()
            assert at == i + 1 and tail.endswith(f"{i}.1733478123456{letter}")
    assert tail.count(".") == len(letters) - (floor.TAIL - 1)  # emptied at the 32nd move, which it holds


def test_the_move_cost_bench_measures_the_echo_the_floor_and_the_game() -> None:
    lines = run("move_cost.py", "--floor", "--sockets", "2", "--moves", "5", "--rounds", "1").splitlines()
    assert [line.split()[3] for line in lines[1:3]] == ["floor", "game2048"]
    assert lines[3].startswith("  median ratio ") and lines[4].startswith("  median ratio of the floor")
