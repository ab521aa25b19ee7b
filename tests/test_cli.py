"""The ``game2048`` command as a whole: start-up cost, version, help, one exit-code rule, one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from game2048 import __version__
from game2048.cli import main

WEB_STACK = ("fastapi", "starlette", "sqlalchemy", "uvicorn", "jinja2", "alembic", "pygal")


def run(capsys, *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as done:
        main(list(args))
    out, err = capsys.readouterr()
    return done.value.code, out, err


def test_import_and_help_load_no_web_framework_and_no_compiler():
    code = (
        "import sys, json, game2048\n"
        "from game2048.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "print(json.dumps(sorted(m.split('.')[0] for m in sys.modules)))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          check=True)
    loaded = set(json.loads(done.stdout.splitlines()[-1]))
    assert not loaded & {*WEB_STACK, "numba", "gymnasium"}


def test_serve_without_the_server_extra_says_what_to_install():
    # the server's packages hidden, as in a plain `pip install game2048`
    code = "import sys\nsys.modules['uvicorn'] = None\nfrom game2048.cli import main\nmain(['serve'])"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1 and "pip install 'game2048[server]'" in done.stderr


def test_version_and_short_help(capsys):
    assert run(capsys, "--version") == (0, f"game2048 {__version__}\n", "")
    code, out, _ = run(capsys, "-h")
    assert code == 0 and "replay" in out and "--install-completion" in out
    code, out, _ = run(capsys, "solve", "-h")
    assert code == 0 and "--preset" in out


def test_no_command_shows_the_help_as_bad_usage(capsys):
    code, out, _ = run(capsys)
    assert code == 2 and "Commands:" in out


@pytest.mark.parametrize(
    ("args", "names"),
    [
        (["nope"], "No such command"),
        (["replay"], "Missing argument"),
        (["solve", "--size", "7"], "--size"),
        (["solve", "--games", "0"], "--games"),
        (["solve", "--preset", "quick"], "--preset"),
        (["solve", "--seed", "-1"], "--seed"),
        (["review", "-", "--preset", "quick"], "--preset"),
        (["simulate", "--first-seed", "-1"], "--first-seed"),
        (["simulate", "--first-seed", str(2**53)], "--first-seed"),
        (["simulate", "--sizes", "7"], "--sizes"),
        (["simulate", "--strategies", "best"], "--strategies"),
        (["simulate", "--jobs", "0"], "--jobs"),
        (["play", "--size", "7"], "--size"),
        (["play", "--seed", "-1"], "--seed"),
        (["play", "--server", "http://127.0.0.1:9", "--seed", "3"], "--seed"),
        (["serve", "--port", "70000"], "--port"),
        (["serve", "--workers", "0"], "--workers"),
    ],
)
def test_a_bad_value_is_bad_usage_with_one_line(capsys, args, names):
    code, out, err = run(capsys, *args)
    assert (code, out) == (2, "")
    assert err.startswith("error: ") and err.count("\n") == 1 and names in err


def test_a_bad_record_is_a_failure_with_one_line(capsys, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"size": 4, "seed": 1, "log": "Q"}')
    for command in ("replay", "review"):
        code, out, err = run(capsys, command, str(bad))
        assert (code, out) == (1, "") and err.startswith("error: bad record") and err.count("\n") == 1
    code, _, err = run(capsys, "replay", str(tmp_path / "missing.json"))
    assert code == 1 and err.startswith("error: cannot read")


def test_a_server_that_cannot_start_with_its_settings_fails_with_one_line(capsys, monkeypatch, tmp_path):
    code, _, err = run(capsys, "serve", "--db", "nope://x")
    assert code == 1 and err.startswith("error: cannot start the server:") and err.count("\n") == 1
    monkeypatch.setenv("GAME2048_RATE_LIMIT", "abc")
    code, _, err = run(capsys, "serve", "--db", f"sqlite:///{tmp_path / 'x.db'}")
    assert code == 1 and "rate limit" in err and err.count("\n") == 1


def test_shell_completion_completes_command_names(capsys, monkeypatch):
    code, out, _ = run(capsys, "--show-completion", "bash")
    assert code == 0 and "_game2048_completion" in out
    monkeypatch.setenv("_GAME2048_COMPLETE", "complete_bash")
    monkeypatch.setenv("COMP_WORDS", "game2048 so")
    monkeypatch.setenv("COMP_CWORD", "1")
    code, out, _ = run(capsys)
    assert code == 0 and out.split() == ["solve"]
