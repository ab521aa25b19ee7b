"""``game2048 serve`` in a subprocess, for the tests that need the real server (workers, SIGKILL)."""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """``game2048 serve --workers N`` in a process group of its own, so a kill takes every worker."""

    def __init__(self, db: str, log: Path, workers: int = 1, env: dict[str, str] | None = None) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {**os.environ, "GAME2048_RATE_LIMIT": "0", "GAME2048_SECRET": "serving",
               "GAME2048_WARM_SOLVER": "0", **(env or {})}
        self.proc = subprocess.Popen(
            [sys.executable, "-c", "from game2048.cli import app; app()", "serve",
             "--host", "127.0.0.1", "--port", str(self.port), "--db", db, "--workers", str(workers)],
            env=env, stdout=log.open("ab"), stderr=subprocess.STDOUT, start_new_session=True,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server exited: {log.read_text()[-2000:]}")
            try:
                if httpx.get(f"{self.url}/api/leaderboard", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.1)
        self.kill()
        raise RuntimeError("the server did not start in 60 s")

    def kill(self) -> None:
        """SIGKILL to the whole group: the parent and every worker, with no chance to clean up."""
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)
        time.sleep(0.2)  # let the kernel reap the workers too


@dataclass
class Answer:
    status_code: int
    text: str

    def json(self) -> Any:
        return json.loads(self.text)


def fresh_post(url: str, path: str, body: dict) -> Answer:
    """One request on a TCP connection of its own (so consecutive moves may reach either worker).

    Plain ``http.client``: a new HTTP client object per request would spend more
    time setting itself up than the server spends on the move.
    """
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=20)
    try:
        headers = {"Content-Type": "application/json", "Connection": "close"}
        conn.request("POST", path, json.dumps(body), headers)
        response = conn.getresponse()
        return Answer(response.status, response.read().decode())
    except OSError as exc:
        raise httpx.TransportError(str(exc)) from exc
    finally:
        conn.close()
