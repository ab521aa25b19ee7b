"""docs/bots.md's bot is a complete program: its code block plays a bot game on a real server
(``game2048 serve``) onto the engines board."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from ..serving import Server

DOC = Path(__file__).resolve().parents[3] / "docs" / "bots.md"


@pytest.fixture
def server(database_url: str, tmp_path: Path):  # type: ignore[no-untyped-def]
    running = Server(database_url, tmp_path / "server.log")
    yield running
    running.kill()


def test_the_bot_in_the_docs_is_about_twenty_lines():
    code = re.search(r"```python\n(.*?)```", DOC.read_text(), re.S)[1]  # type: ignore[index]
    lines = [line for line in code.splitlines() if line.strip()]
    assert len(lines) <= 22, len(lines)


def test_the_bot_in_the_docs_plays_a_game_onto_the_engines_board(server, tmp_path: Path):
    code = re.search(r"```python\n(.*?)```", DOC.read_text(), re.S)[1]  # type: ignore[index]
    # the same program, on this server and a 3x3 board (a 4x4 game is some 1,000 moves)
    code = code.replace('"http://127.0.0.1:8000"', repr(server.url)).replace('"size": 4', '"size": 3')
    bot = tmp_path / "bot.py"
    bot.write_text(code)
    run = subprocess.run([sys.executable, str(bot)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "on the engines board" in run.stdout and "#1" in run.stdout
    engines = httpx.get(f"{server.url}/api/leaderboard", params={"size": 3, "board": "engines"}).json()
    assert [e["name"] for e in engines["entries"]] == ["my-first-bot"]
    assert httpx.get(f"{server.url}/api/leaderboard", params={"size": 3}).json()["entries"] == []
