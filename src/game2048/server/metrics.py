"""Prometheus metrics: requests by route template, latency, errors, rate-limit refusals,
verifications and moves dealt with the time they took.

Every counter is made once per process at import. With several workers
(``game2048 serve --workers N``) each worker writes its samples to files in
``PROMETHEUS_MULTIPROC_DIR`` (the command makes a fresh one) and ``/metrics``
sums them, so any worker answers for all of them.

Other modules count through the small functions here, e.g. when the server
has dealt moves of a live game::

    from .. import metrics
    metrics.count_moves(len(letters), perf_counter() - started)
"""

from __future__ import annotations

import atexit
import os
import threading
import time

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)
from prometheus_client import multiprocess as _multiprocess

REGISTRY = CollectorRegistry(auto_describe=True)

REQUESTS = Counter("game2048_requests", "HTTP requests answered, by route template and status.",
                   ["method", "route", "status"], registry=REGISTRY)
LATENCY = Histogram("game2048_request_seconds", "Time from request to the end of the answer, by route.",
                    ["method", "route"], registry=REGISTRY,
                    buckets=(.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10))
ERRORS = Counter("game2048_errors", "Answers with a 4xx or 5xx status, by status.", ["status"],
                 registry=REGISTRY)
RATE_LIMITED = Counter("game2048_rate_limited", "Requests refused with 429, by limit "
                       "(games, moves, hint: request rates; cpu, hint-cpu: the CPU budgets).", ["limit"],
                       registry=REGISTRY)
VERIFICATIONS = Histogram("game2048_verification_cpu_seconds", "Verifications (replays of records, "
                          "renders of long games' pages) and the CPU time each cost, by kind and outcome.",
                          ["kind", "outcome"], registry=REGISTRY,
                          buckets=(.001, .005, .01, .05, .1, .25, .5, 1, 2, 5))
MOVES = Counter("game2048_moves_dealt", "Moves of live games applied by the server.", registry=REGISTRY)
MOVES_TIME = Counter("game2048_moves_seconds", "Time spent applying and storing moves of live games.",
                     registry=REGISTRY)


def observe_request(method: str, route: str, status: int, seconds: float) -> None:
    REQUESTS.labels(method, route, str(status)).inc()
    LATENCY.labels(method, route).observe(seconds)
    if status >= 400:
        ERRORS.labels(str(status)).inc()


def observe_verification(kind: str, outcome: str, cpu_seconds: float) -> None:
    """One verification of ``kind`` ("finish", "record", "retry", "page", "hint") that was accepted,
    refused, repeated (refused at once as a record refused before) or ended in another error."""
    VERIFICATIONS.labels(kind, outcome).observe(cpu_seconds)


#: Seconds at most between a move and its count in the Prometheus counters (``_MoveCounts``).
MOVES_EVERY = 1.0


class _MoveCounts:
    """Moves dealt and their time, added to ``MOVES`` and ``MOVES_TIME`` by a thread of their own
    every ``MOVES_EVERY`` seconds (and before this process answers ``/metrics``, and at its exit):
    a move is counted on its hot path, where the two counters' increments cost more than the rest
    of its bookkeeping (bench/server.md)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.moves = 0
        self.seconds = 0.0
        self.started = False  # this process's flushing thread (a forked child has none)
        os.register_at_fork(after_in_child=self._forked)

    def add(self, moves: int, seconds: float) -> None:
        with self.lock:
            self.moves += moves
            self.seconds += seconds
        if not self.started:
            self._start()

    def flush(self) -> None:
        with self.lock:
            moves, seconds = self.moves, self.seconds
            self.moves, self.seconds = 0, 0.0
        if moves:
            MOVES.inc(moves)
            MOVES_TIME.inc(seconds)

    def _forked(self) -> None:
        self.lock = threading.Lock()
        self.moves, self.seconds, self.started = 0, 0.0, False  # the parent counts its own

    def _start(self) -> None:
        with self.lock:
            if self.started:
                return
            self.started = True
        threading.Thread(target=self._run, name="move-counts", daemon=True).start()

    def _run(self) -> None:
        while True:
            time.sleep(MOVES_EVERY)
            self.flush()


_moves = _MoveCounts()
atexit.register(_moves.flush)


def count_moves(moves: int, seconds: float) -> None:
    """Count ``moves`` moves dealt by the server, which took ``seconds`` to apply and store."""
    _moves.add(moves, seconds)


def exposition() -> tuple[bytes, str]:
    """The text ``/metrics`` answers, and its content type: this process's counters, or every
    worker's summed when ``PROMETHEUS_MULTIPROC_DIR`` is set (the other workers' moves of the last
    ``MOVES_EVERY`` seconds may not be in yet)."""
    _moves.flush()
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        _multiprocess.MultiProcessCollector(registry)
        return generate_latest(registry), CONTENT_TYPE_LATEST
    return generate_latest(REGISTRY), CONTENT_TYPE_LATEST
