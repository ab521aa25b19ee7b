"""Training the network: rounds of TD(0) games on one or more threads, the curve, checkpoints.

A *round* is ``ROUND_GAMES`` games on each thread. Threads share one weight
array without locks (Hogwild: numba's compiled games release the GIL, and a
lost update now and then costs nothing measurable). With one thread a run
is deterministic: the same checkpoint and settings give the same weights
after the same number of rounds, however the run was cut into sessions.

>>> run = new_run(seed=1)
>>> train(run, max_games=ROUND_GAMES, log=None).games == ROUND_GAMES
True
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from pathlib import Path

import numpy as np

from . import ntuple
from .checkpoint import Run, new_weights, save

#: Games each thread plays between two looks at the clock (and checkpoint, stop and curve checks).
ROUND_GAMES = 100
#: The curve's tiles: a row gives the share of its window's games reaching each.
CURVE_TILES = (2048, 4096, 8192, 16384, 32768)
#: Longest game a training thread has room for (4-bit cells allow fewer moves).
_PATH = 1 << 18


@cache
def tables() -> tuple[np.ndarray, np.ndarray]:
    """The row tables (``ntuple.line_tables``), built once per process."""
    return ntuple.line_tables()


def _stream(seed: int, i: int) -> int:
    """The initial SplitMix64 state of training thread ``i`` of a run with ``seed``."""
    return int(ntuple.mix64(np.uint64((seed * 1_000_003 + i) & 0xFFFFFFFFFFFFFFFF)))


def new_run(alpha: float = 0.1, seed: int = 0, window: int = 10_000, restart: float = 0.0,
            stages: int = 1, coherence: bool = False) -> Run:
    """A run from an untrained network of ``stages`` stages (``ntuple``)."""
    return Run(weights=new_weights(stages), alpha=alpha, seed=seed, window=window, restart=restart,
               coherence=coherence)


def curve_row(run: Run, scores: list[int], tops: list[int], moves: int) -> dict[str, float]:
    """One row of the curve for a window of games ending at ``run.games`` and ``moves`` moves."""
    row: dict[str, float] = {
        "games": run.games,
        "moves": moves,
        "cpu_seconds": round(run.cpu_seconds, 1),
        "mean_score": round(float(np.mean(scores)), 1),
    }
    top = np.asarray(tops)
    for tile in CURVE_TILES:
        row[str(tile)] = round(float(np.mean(top >= tile.bit_length() - 1)), 4)
    return row


class _Worker:
    """One training thread's buffers and random-number state."""

    def __init__(self, state: int) -> None:
        self.rng = np.array([state], dtype=np.uint64)
        self.path = np.zeros(_PATH, dtype=np.uint64)
        self.rewards = np.zeros(_PATH, dtype=np.int32)
        self.scores = np.zeros(ROUND_GAMES, dtype=np.int64)
        self.tops = np.zeros(ROUND_GAMES, dtype=np.int8)
        self.lengths = np.zeros(ROUND_GAMES, dtype=np.int64)
        self.restarted = np.zeros(ROUND_GAMES, dtype=np.int8)

    def play(self, run: Run) -> int:
        slide, points = tables()
        buffers = (self.path, self.rewards, self.scores, self.tops, self.lengths, self.restarted)
        return int(ntuple.train_games(run.weights, slide, points, self.rng, run.alpha, run.restart, *buffers,
                                      run.learning_state()))


def train(
    run: Run,
    *,
    threads: int = 1,
    seconds: float | None = None,
    max_games: int | None = None,
    checkpoint: Path | None = None,
    checkpoint_every: float = 15 * 60,
    log: Callable[[str], None] | None = print,
    handle_signals: bool = False,
) -> Run:
    """Train ``run`` in place and return it.

    Stops after ``seconds`` of wall-clock time, once ``run.games`` reaches
    ``max_games``, or on SIGTERM / SIGINT if ``handle_signals`` (the round in
    progress is finished first), whichever comes first. With a ``checkpoint``
    path it saves every ``checkpoint_every`` seconds and when it stops. Each
    curve row and each save is reported through ``log``.
    """
    stop = threading.Event()
    previous: dict[int, object] = {}
    if handle_signals and threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGTERM, signal.SIGINT):
            previous[sig] = signal.signal(sig, lambda *_: stop.set())
    say = log or (lambda _: None)
    started = time.monotonic()
    last_save = started
    pool = ThreadPoolExecutor(threads) if threads > 1 else None
    try:
        while len(run.rng) < threads:
            run.rng.append(_stream(run.seed, len(run.rng)))
        workers = [_Worker(run.rng[i]) for i in range(threads)]
        while not stop.is_set():
            if seconds is not None and time.monotonic() - started >= seconds:
                break
            if max_games is not None and run.games >= max_games:
                break
            wall = time.monotonic()
            cpu = time.process_time()
            run.learning_state()  # the accumulators, made before the threads share them
            if pool is None:
                workers[0].play(run)
            else:
                list(pool.map(lambda w: w.play(run), workers))
            run.cpu_seconds += time.process_time() - cpu
            run.wall_seconds += time.monotonic() - wall
            for i, w in enumerate(workers):
                run.rng[i] = int(w.rng[0])
                _record(run, w, say)
            if checkpoint is not None and time.monotonic() - last_save >= checkpoint_every:
                _save(run, checkpoint, say)
                last_save = time.monotonic()
    finally:
        if pool is not None:
            pool.shutdown()
        for sig, handler in previous.items():
            signal.signal(sig, handler)  # type: ignore[arg-type]
    if checkpoint is not None:
        _save(run, checkpoint, say)
    return run


def _record(run: Run, w: _Worker, say: Callable[[str], None]) -> None:
    """Count one worker's round into ``run``, adding a curve row each time a window fills (of games
    from the empty board: a restarted one's score and top tile are not a whole game's)."""
    rounds = zip(w.scores.tolist(), w.tops.tolist(), w.lengths.tolist(), w.restarted.tolist(), strict=True)
    for score, top, length, restarted in rounds:
        run.games += 1
        run.moves += length
        if restarted:
            continue
        run.pending_scores.append(score)
        run.pending_tops.append(top)
        if len(run.pending_scores) >= run.window:
            row = curve_row(run, run.pending_scores, run.pending_tops, run.moves)
            run.curve.append(row)
            run.pending_scores, run.pending_tops = [], []
            say(_row_text(row))


def _row_text(row: dict[str, float]) -> str:
    rate = row["moves"] / row["cpu_seconds"] / 1e6 if row["cpu_seconds"] else 0.0
    shares = "  ".join(f"{t} {100 * row[str(t)]:5.1f}%" for t in CURVE_TILES)
    return (
        f"games {row['games']:>11,}  moves {row['moves']:>15,}  cpu {row['cpu_seconds'] / 3600:7.2f} h"
        f"  ({rate:.2f} M moves/cpu-s)  mean {row['mean_score']:>9,.0f}  {shares}"
    )


def _save(run: Run, path: Path, say: Callable[[str], None]) -> None:
    start = time.monotonic()
    save(run, path)
    say(
        f"{time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime())} UTC  checkpoint {path}: {run.games:,} games,"
        f" {run.moves:,} moves, {run.cpu_seconds / 3600:.2f} cpu h ({time.monotonic() - start:.1f} s to save)"
    )
