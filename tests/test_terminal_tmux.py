"""``game2048 play`` in a real terminal: tmux runs it at 80x24, sends keys and reads the screen."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from game2048 import Game

TMUX = shutil.which("tmux")
pytestmark = [
    pytest.mark.tmux,
    pytest.mark.skipif(
        TMUX is None,
        reason="tmux is not installed (apt-get install tmux; scripts/test.sh installs it when run as root)",
    ),
]
GAME2048 = Path(sys.executable).parent / "game2048"


class Terminal:
    """One tmux server of our own (its own socket), one window, 80x24."""

    def __init__(self, tmp: Path) -> None:
        self.socket = f"game2048-test-{uuid.uuid4().hex[:8]}"
        self.exit_file = tmp / "exit-status"
        self.data = tmp / "data"

    def tmux(self, *args: str) -> str:
        done = subprocess.run(
            [TMUX or "tmux", "-L", self.socket, "-f", "/dev/null", *args],
            capture_output=True, text=True, timeout=30, check=True,
        )  # fmt: skip
        return done.stdout

    def start(self, *args: str, prefix: str = "", **extra_env: str) -> None:
        if self.exit_file.exists():  # a game ran before: its tmux server must be gone first
            self.close()
            self.exit_file.unlink()
        command = f"{prefix}{GAME2048} play {' '.join(args)}; echo $? > {self.exit_file}"
        env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
        env.update({"XDG_DATA_HOME": str(self.data), "TERM": "xterm-256color", **extra_env})
        subprocess.run(
            [TMUX or "tmux", "-L", self.socket, "-f", "/dev/null",
             "new-session", "-d", "-x", "80", "-y", "24", "-s", "play", command],
            env=env, check=True, timeout=30,
        )  # fmt: skip

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "play")

    def styled_screen(self) -> str:
        """The screen with its colour escapes (SGR sequences)."""
        return self.tmux("capture-pane", "-e", "-p", "-t", "play")

    def quit(self, *then: str) -> str:
        self.keys("q", *then)
        self.wait_for("the game to exit",
                      lambda: self.exit_file.exists() and self.exit_file.read_text().strip())
        return self.exit_file.read_text().strip()

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", "play", *keys)

    def board(self, n: int) -> list[list[int]] | None:
        """The board on screen: the lines holding exactly n tiles (numbers) or empty cells (dots)."""
        rows = []
        for line in self.screen().splitlines():
            cells = line.split()
            if len(cells) == n and all(c == "." or c.isdigit() for c in cells):
                rows.append([0 if c == "." else int(c) for c in cells])
        return rows if len(rows) == n else None

    def wait_for(self, what: str, check, timeout: float = 60.0):  # type: ignore[no-untyped-def]
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            got = check()
            if got:
                return got
            time.sleep(0.1)
        pytest.fail(f"waited {timeout:.0f} s for {what}; the screen shows:\n{self.screen()}")

    def close(self) -> None:
        subprocess.run([TMUX or "tmux", "-L", self.socket, "kill-server"], capture_output=True, timeout=30)


@pytest.fixture
def term(tmp_path: Path) -> Iterator[Terminal]:
    t = Terminal(tmp_path)
    try:
        yield t
    finally:
        t.close()


def test_play_shows_the_seeded_opening_moves_with_arrows_and_vim_keys_and_q_exits_0(term):
    term.start("--size", "4", "--seed", "5")
    game = Game(4, 5)
    term.wait_for("the opening board", lambda: term.board(4) == game.board)
    assert "score 0" in term.screen() and "best 0" in term.screen()
    for key, direction in (("Left", "left"), ("k", "up"), ("l", "right"), ("j", "down"), ("h", "left")):
        game.move(direction)
        term.keys(key)
        term.wait_for(f"the board after {key}", lambda: term.board(4) == game.board)
        assert f"score {game.score}" in term.screen()
    game.undo()
    term.keys("u")
    term.wait_for("the board after undo", lambda: term.board(4) == game.board and "undo 2" in term.screen())
    term.keys("q")
    term.wait_for("the game to exit", lambda: term.exit_file.exists() and term.exit_file.read_text().strip())
    assert term.exit_file.read_text().strip() == "0"
    best = json.loads((term.data / "game2048" / "terminal.json").read_text())
    assert best["best"]["4"] >= game.score > 0


def test_r_asks_before_starting_a_new_game(term):
    term.start("--size", "3", "--seed", "7")
    game = Game(3, 7)
    term.wait_for("the opening board", lambda: term.board(3) == game.board)
    term.keys("r")
    term.wait_for("the question", lambda: "Start a new game? (y/n)" in term.screen())
    term.keys("n")
    term.wait_for("the question to go", lambda: "Start a new game?" not in term.screen())
    assert term.board(3) == game.board
    move = game.legal_moves()[0]
    game.move(move)
    term.keys({"up": "k", "down": "j", "left": "h", "right": "l"}[move])
    term.wait_for("three tiles", lambda: term.board(3) == game.board)
    term.keys("r")
    term.wait_for("the question", lambda: "Start a new game? (y/n)" in term.screen())
    term.keys("y")
    term.wait_for(
        "a new opening: two tiles, score 0",
        lambda: (b := term.board(3)) is not None and sum(v > 0 for row in b for v in row) == 2
        and "score 0" in term.screen(),
    )
    term.keys("q")
    term.wait_for("the game to exit", lambda: term.exit_file.exists() and term.exit_file.read_text().strip())
    assert term.exit_file.read_text().strip() == "0"


def test_a_6x6_board_fits_80x24(term):
    term.start("--size", "6", "--seed", "1")
    game = Game(6, 1)
    term.wait_for("the opening board", lambda: term.board(6) == game.board)
    term.keys("q")
    term.wait_for("the game to exit", lambda: term.exit_file.exists() and term.exit_file.read_text().strip())


def test_a_ranked_game_through_a_server_is_finished_under_the_name_typed(term, fake):
    state, url = fake
    term.start("--size", "4", "--server", url)
    game = Game(4, 5)  # the fake server deals seed 5 to its first game
    term.wait_for("the dealt opening", lambda: term.board(4) == game.board and "ranked" in term.screen())
    game.move("left")
    term.keys("Left")
    term.wait_for("the board the server dealt", lambda: term.board(4) == game.board)
    term.keys("r")
    term.wait_for("the question", lambda: "Start a new game? (y/n)" in term.screen())
    term.keys("y")
    term.wait_for("the name prompt", lambda: "Your name for the leaderboard:" in term.screen())
    term.keys("ada", "Enter")
    term.wait_for("the second game", lambda: len(state.games) == 2 and term.board(4) == Game(4, 6).board)
    assert state.games["g1"]["name"] == "ada" and state.games["g1"]["log"] == "L"
    assert f"Last game: {game.score} points. Rank 1. Seed 5." in term.screen()
    term.keys("q")
    term.wait_for("the game to exit", lambda: term.exit_file.exists() and term.exit_file.read_text().strip())
    assert term.exit_file.read_text().strip() == "0"


def test_q_keeps_the_game_and_play_resumes_it_and_new_starts_afresh(term):
    term.start("--size", "4", "--seed", "5")
    game = Game(4, 5)
    term.wait_for("the opening board", lambda: term.board(4) == game.board)
    for key, direction in (("Left", "left"), ("Up", "up")):
        game.move(direction)
        term.keys(key)
        term.wait_for(f"the board after {key}", lambda: term.board(4) == game.board)
    game.undo()
    term.keys("u")
    term.wait_for("the board after undo", lambda: term.board(4) == game.board and "undo 2" in term.screen())
    assert term.quit() == "0"
    saved = json.loads((term.data / "game2048" / "games.json").read_text())
    assert saved["games"]["4"] == game.record()

    term.start("--size", "4")
    term.wait_for("the same game",
                  lambda: term.board(4) == game.board and "Resumed your 4x4 game" in term.screen())
    assert f"score {game.score}" in term.screen() and "undo 2" in term.screen()
    game.undo()
    term.keys("u")  # what undo could reach came back too
    term.wait_for("the board after a second undo",
                  lambda: term.board(4) == game.board and "undo 1" in term.screen())
    assert term.quit() == "0"

    term.start("--size", "4", "--new")
    term.wait_for(
        "a new opening",
        lambda: (b := term.board(4)) is not None and sum(v > 0 for row in b for v in row) == 2
        and "score 0" in term.screen() and "undo 3" in term.screen(),
    )
    assert term.quit() == "0"


def test_a_broken_saved_game_is_discarded_with_a_note(term):
    (term.data / "game2048").mkdir(parents=True)
    broken = {"games": {"3": {"size": 3, "seed": 1, "log": "QQ"}}}
    (term.data / "game2048" / "games.json").write_text(json.dumps(broken))
    term.start("--size", "3")
    term.wait_for("the note", lambda: "could not be read" in term.screen() and term.board(3) is not None)
    assert term.quit() == "0"


def test_no_color_draws_the_board_without_colours(term):
    term.start("--size", "4", "--seed", "5")
    term.wait_for("the opening board", lambda: term.board(4) == Game(4, 5).board)
    assert "[48;5;" in term.styled_screen() or "[4" in term.styled_screen()
    assert term.quit() == "0"
    term.start("--size", "4", "--seed", "5", NO_COLOR="1")
    term.wait_for("the opening board", lambda: term.board(4) == Game(4, 5).board)
    assert "[48;5;" not in term.styled_screen() and "[38;5;" not in term.styled_screen()
    assert term.quit() == "0"


def test_a_dumb_terminal_gets_the_board_line_by_line(term):
    term.start("--size", "3", "--seed", "4", prefix="TERM=dumb ")
    game = Game(3, 4)

    def last_board() -> list[list[int]]:
        rows = [[0 if c == "." else int(c) for c in line.split()] for line in term.screen().splitlines()
                if len(line.split()) == 3 and all(c == "." or c.isdigit() for c in line.split())]
        return rows[-3:]

    term.wait_for("the plain board", lambda: "cannot redraw" in term.screen() and last_board() == game.board)
    game.move("left")
    term.keys("h", "Enter")
    term.wait_for("the board after h",
                  lambda: last_board() == game.board and f"score {game.score}" in term.screen())
    assert term.quit("Enter") == "0"
