"""The Alembic migrations build exactly the schema the models describe, and run again harmlessly."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from game2048.server.db import make_engine, migrate
from game2048.server.models import Base


def test_migrations_match_the_models(settings):
    engine = make_engine(settings.database_url)
    try:
        migrate(engine)
        migrate(engine)  # a second start finds nothing to do
        with engine.connect() as conn:
            diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
        assert diff == []
    finally:
        engine.dispose()


def test_sqlite_runs_in_wal_mode_and_finishes_are_flushed(tmp_path):
    from game2048.server.live_store import durable

    engine = make_engine(f"sqlite:///{tmp_path / 'wal.sqlite3'}")
    try:
        with engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == 1  # NORMAL: moves
        with durable(engine) as conn:
            assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == 2  # FULL: finishes
        with engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == 1
    finally:
        engine.dispose()


def test_migration_0002_keeps_the_games_of_0001(tmp_path):
    """A database made by 0001 alone, with a finished game, upgrades without losing it."""
    from alembic import command
    from alembic.config import Config
    from sqlalchemy import text

    from game2048.server.db import MIGRATIONS_DIR

    engine = make_engine(f"sqlite:///{tmp_path / 'old.sqlite3'}")
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    try:
        with engine.begin() as conn:
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, "0001")
            conn.execute(text("INSERT INTO games (id, size, mode, seed, created_at, finished_at, log, "
                              "score, ranked) VALUES ('old', 4, 'classic', 7, '2025-01-01', '2025-01-01', "
                              "'L', 0, 1)"))
        migrate(engine)
        with engine.connect() as conn:
            kept = conn.execute(text("SELECT at, live, log FROM games WHERE id = 'old'")).one()
            assert tuple(kept) == (0, None, "L")
    finally:
        engine.dispose()
