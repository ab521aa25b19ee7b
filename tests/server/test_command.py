"""``game2048 serve`` and where its settings come from."""

from __future__ import annotations

from pathlib import Path

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
