"""``game2048 serve`` and where its settings come from."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from game2048.cli import app
from game2048.server.config import Settings


def test_serve_is_a_command_with_host_port_and_db():
    result = CliRunner().invoke(app, ["serve", "--help"])
    assert result.exit_code == 0
    for option in ("--host", "--port", "--db", "--workers"):
        assert option in result.output


def test_default_database_is_an_sqlite_file_in_the_user_data_directory(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    url = Settings.from_env(env={}).database_url
    assert url.startswith("sqlite:///") and url.endswith("game2048.sqlite3")
    assert Path(url.removeprefix("sqlite:///")).parent.is_dir()
    assert str(tmp_path) in url


def test_db_option_beats_the_environment():
    settings = Settings.from_env("sqlite:///given.db", env={"DATABASE_URL": "sqlite:///env.db"})
    assert settings.database_url == "sqlite:///given.db"
    assert Settings.from_env(env={"DATABASE_URL": "postgres://u@h/d"}).database_url == "postgresql+psycopg://u@h/d"


def test_secret_and_limits_come_from_the_environment():
    env = {"GAME2048_SECRET": "abc", "GAME2048_RATE_LIMIT": "5/second", "GAME2048_LEADERBOARD_TTL": "0"}
    settings = Settings.from_env("sqlite:///x.db", env=env)
    assert (settings.secret, settings.rate_limit, settings.answer_ttl) == ("abc", "5/second", 0.0)


def test_serve_loads_the_solver_at_start_unless_told_not_to():
    assert Settings.from_env("sqlite:///x.db", env={}).warm_solver
    assert not Settings.from_env("sqlite:///x.db", env={"GAME2048_WARM_SOLVER": "0"}).warm_solver


def test_the_app_warms_the_solver_in_the_background(tmp_path: Path):
    import threading

    from fastapi.testclient import TestClient

    from game2048.server.app import create_app

    settings = Settings(database_url=f"sqlite:///{tmp_path / 'w.db'}", warm_solver=True)
    with TestClient(create_app(settings)) as client:
        assert client.get("/api/leaderboard?size=4").status_code == 200
        warmers = [t for t in threading.enumerate() if t.name == "warm-solver"]
        for t in warmers:
            t.join(timeout=600)  # a cold numba cache compiles the search: ~25 s of CPU, minutes when loaded
        assert not any(t.is_alive() for t in warmers)
    from game2048.solver import search

    assert search.analyse([[2, 2, 0], [0, 0, 0], [0, 0, 0]], depth=1)[0] is not None


def test_healthz_and_pages_answer_while_the_solver_loads_and_the_api_waits_for_it(tmp_path: Path,
                                                                                  monkeypatch):
    # a worker answers at once (the supervisor and a load balancer see it alive); loading holds the
    # GIL, so the game's API waits for it rather than have its moves stalled half-way
    import threading

    from fastapi.testclient import TestClient

    import game2048.solver
    from game2048.server.app import create_app

    release = threading.Event()
    monkeypatch.setattr(game2048.solver, "warm_up", lambda: release.wait(30))
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'w.db'}", warm_solver=True)
    try:
        with TestClient(create_app(settings)) as client:
            assert client.get("/healthz").status_code == 200
            assert client.get("/").status_code == 200
            assert any(t.name == "warm-solver" and t.is_alive() for t in threading.enumerate())
            answers: list[int] = []
            asking = threading.Thread(
                target=lambda: answers.append(client.get("/api/leaderboard?size=4").status_code))
            asking.start()
            asking.join(timeout=0.5)
            assert asking.is_alive() and not answers, "the API answered before the solver was loaded"
            release.set()
            asking.join(timeout=30)
            assert answers == [200]
            assert client.get("/api/leaderboard?size=4").status_code == 200
    finally:
        release.set()


def test_a_worker_does_not_wait_for_a_compile(tmp_path: Path, monkeypatch):
    # a fresh install compiles the search for many seconds: the game is served meanwhile
    import threading

    from fastapi.testclient import TestClient

    import game2048.solver
    from game2048.server import app as app_module

    release = threading.Event()
    monkeypatch.setattr(game2048.solver, "warm_up", lambda: release.wait(30))
    monkeypatch.setattr(app_module, "WARM_WAIT", 0.2)
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'w.db'}", warm_solver=True)
    try:
        with TestClient(app_module.create_app(settings)) as client:
            assert client.get("/api/leaderboard?size=4").status_code == 200  # after WARM_WAIT at most
            assert any(t.name == "warm-solver" and t.is_alive() for t in threading.enumerate())
    finally:
        release.set()


@pytest.mark.parametrize("warm", [False, True])
def test_a_worker_freezes_what_it_loaded_before_it_serves(tmp_path: Path, monkeypatch, warm: bool):
    # a full collection walking the ~200,000 objects of the loaded libraries pauses a worker ~0.1 s;
    # with the solver loading, the freeze comes after it, before the API answers
    import gc

    from fastapi.testclient import TestClient

    import game2048.solver
    from game2048.server.app import create_app

    monkeypatch.setattr(game2048.solver, "warm_up", lambda: None)
    gc.unfreeze()
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'f.db'}", warm_solver=warm)
    try:
        with TestClient(create_app(settings)) as client:
            assert client.get("/api/leaderboard?size=4").status_code == 200
            assert gc.get_freeze_count() > 10_000
    finally:
        gc.unfreeze()


def test_an_app_on_sqlite_loads_neither_psycopg_nor_redis_nor_the_solver_before_it_serves(tmp_path: Path):
    # each costs a worker CPU before its first answer; the solver loads in the background
    import subprocess
    import sys

    code = ("import sys; from game2048.server.app import create_app; "
            "from game2048.server.config import Settings; "
            f"create_app(Settings(database_url='sqlite:///{tmp_path / 'l.db'}')); "
            "print(sorted(m for m in ('psycopg', 'redis', 'numba') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_a_store_error_is_known_once_its_driver_is_loaded():
    import psycopg
    import redis

    from game2048.server.errors import _store_errors, store_down

    assert store_down(psycopg.OperationalError("refused"))
    assert store_down(redis.exceptions.ConnectionError("refused"))
    assert not store_down(ValueError("a bug"))
    assert {psycopg.OperationalError, redis.exceptions.TimeoutError} <= set(_store_errors())


def test_serve_refuses_a_port_outside_1_to_65535_in_one_line(capsys):
    import pytest

    from game2048.cli import main

    for port in ("74257", "0", "-1"):
        with pytest.raises(SystemExit) as done:
            main(["serve", "--port", port])
        err = capsys.readouterr().err
        assert done.value.code == 2, err
        assert err.startswith("error: ") and err.count("\n") == 1 and "--port" in err, err


def test_a_page_module_that_fails_to_import_stops_the_start_with_a_clear_message(monkeypatch, tmp_path: Path):
    import sys

    import pytest
    import uvicorn

    import game2048.server.site as site
    from game2048.server.app import create_app

    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: pytest.fail("the server started"))
    monkeypatch.delattr(site, "router", raising=False)  # built again on the next use
    monkeypatch.delattr(site, "content", raising=False)
    monkeypatch.setitem(sys.modules, "game2048.server.site.content", None)  # as a module that cannot import
    result = CliRunner().invoke(app, ["serve", "--db", f"sqlite:///{tmp_path / 'x.db'}"])
    assert result.exit_code == 1
    assert "the site's pages could not be loaded" in result.output and "content" in result.output
    with pytest.raises(site.PagesMissing, match=r"game2048\.server\.site\.content"):
        create_app(Settings(database_url=f"sqlite:///{tmp_path / 'y.db'}"))
