"""The Alembic migrations build exactly the schema the models describe, and run again harmlessly."""

from __future__ import annotations

from datetime import datetime

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from game2048.server.storage.db import make_engine, migrate, utc_now
from game2048.server.storage.models import Base


def _downgrade(engine, revision: str) -> None:  # type: ignore[no-untyped-def]
    """Alembic's downgrade of ``engine``'s database to ``revision``, as an operator would run it."""
    from alembic import command
    from alembic.config import Config

    from game2048.server.storage.db import MIGRATIONS_DIR

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, revision)


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
    from game2048.server.storage.db import durable

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


def _old_database(path, revision: str, seed: int):  # type: ignore[no-untyped-def]
    """An SQLite database migrated only to ``revision``, holding one finished game ``old``."""
    from alembic import command
    from alembic.config import Config
    from sqlalchemy import text

    from game2048.server.storage.db import MIGRATIONS_DIR

    engine = make_engine(f"sqlite:///{path}")
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, revision)
        conn.execute(text("INSERT INTO games (id, size, mode, seed, created_at, finished_at, log, score, "
                          "ranked) VALUES ('old', 4, 'classic', :seed, '2025-01-01', '2025-01-01', 'L', 0, "
                          "1)"), {"seed": seed})
    return engine


def test_migration_0002_keeps_the_games_of_0001(tmp_path):
    """A database made by 0001 alone, with a finished game, upgrades without losing it."""
    from sqlalchemy import text

    engine = _old_database(tmp_path / "old.sqlite3", "0001", 7)
    try:
        migrate(engine)
        with engine.connect() as conn:
            kept = conn.execute(text("SELECT at, live, log FROM games WHERE id = 'old'")).one()
            assert tuple(kept) == (0, None, "L")
    finally:
        engine.dispose()


def test_every_migration_upgrades_and_downgrades_in_turn(settings):
    """0001 → 0002 → ... → head and back down to nothing, step by step, then up to head again."""
    from alembic import command
    from alembic.config import Config
    from alembic.script import ScriptDirectory
    from sqlalchemy import inspect

    from game2048.server.storage.db import MIGRATIONS_DIR

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    chain = [s.revision for s in reversed(list(ScriptDirectory.from_config(cfg).walk_revisions()))]
    assert chain[:4] == ["0001", "0002", "0003", "0004"]
    assert chain == [f"{n:04d}" for n in range(1, len(chain) + 1)]  # one line, numbered in order
    engine = make_engine(settings.database_url)

    def step(action, target: str) -> set[str]:
        with engine.begin() as conn:
            cfg.attributes["connection"] = conn
            action(cfg, target)
        return set(inspect(engine).get_table_names()) - {"alembic_version"}

    try:
        tables = [step(command.upgrade, revision) for revision in chain]
        assert "games" in tables[0] and "daily_tries" not in tables[0]
        assert "daily_tries" in tables[1] and "reviews" not in tables[1]
        assert "reviews" in tables[2] and "game_moves" not in tables[2]
        assert "game_moves" in tables[3] and "names" not in tables[3]
        assert "names" in tables[4]
        for below in reversed(range(len(chain) - 1)):
            assert step(command.downgrade, chain[below]) == tables[below]
        assert step(command.downgrade, "base") == set()
        migrate(engine)
        with engine.connect() as conn:
            assert compare_metadata(MigrationContext.configure(conn), Base.metadata) == []
    finally:
        engine.dispose()


def test_migration_0006_keeps_integer_seeds_beside_secret_ones(tmp_path):
    """Games dealt before secret seeds keep their integer seeds; both kinds read back as they were."""
    from sqlalchemy.orm import Session

    from game2048.server.storage.models import GameRow

    engine = _old_database(tmp_path / "old.sqlite3", "0005", 9007199254740991)
    try:
        migrate(engine)
        secret = "0123456789" * 3 + "01"  # all digits: it must not be read as a number
        with Session(engine) as s:
            s.add(GameRow(id="new", size=4, mode="classic", seed=secret, created_at=datetime(2026, 1, 1),
                          ranked=False))
            s.commit()
        with Session(engine) as s:
            assert s.get(GameRow, "old").seed == 9007199254740991
            assert s.get(GameRow, "new").seed == secret
    finally:
        engine.dispose()


def test_migration_0008_keeps_the_moves_of_games_in_play_in_a_table_without_rowid(tmp_path):
    """Moves appended under 0007 read back the same after 0008, in a table clustered on its key;
    and down again, in a rowid table, still the same rows."""
    from sqlalchemy import text


    engine = _old_database(tmp_path / "moves.sqlite3", "0007", 5)
    rows = [("old", 0, "LR", 1796205600000), ("old", 2, "U", None), ("other", 0, "D", 1796205600123)]

    def table() -> tuple[str, list[tuple[object, ...]]]:
        with engine.connect() as conn:
            sql = conn.execute(text("SELECT sql FROM sqlite_master WHERE name = 'game_moves'")).scalar()
            kept = conn.execute(text("SELECT game_id, at, letters, ms FROM game_moves ORDER BY game_id, at"))
            return sql, [tuple(r) for r in kept]

    try:
        with engine.begin() as conn:
            conn.execute(text("INSERT INTO game_moves (game_id, at, letters, ms) VALUES (:g, :a, :l, :m)"),
                         [dict(zip("galm", r, strict=True)) for r in rows])
        migrate(engine)
        sql, kept = table()
        assert "WITHOUT ROWID" in sql and kept == rows
        _downgrade(engine, "0007")
        sql, kept = table()
        assert "WITHOUT ROWID" not in sql and kept == rows
    finally:
        engine.dispose()


def test_migration_0009_down_moves_what_tails_hold_to_game_moves(tmp_path):
    """Moves waiting in an SQLite row's tail under 0009 are rows of ``game_moves`` after the
    downgrade to 0008, so the older code reads the same log; and up again, the same log."""
    from sqlalchemy import text

    from game2048.server import live
    from game2048.server.live.stores import DatabaseStore

    engine = make_engine(f"sqlite:///{tmp_path / 'tail.sqlite3'}")
    try:
        migrate(engine)
        store = DatabaseStore(engine)
        started = live.start(store, "a" * 32, 4, "classic")
        for at, letters in enumerate("LDLDL"):
            assert store.save(started.id, at, letters, "{}", utc_now())
        with engine.connect() as conn:
            assert conn.execute(text("SELECT count(*) FROM game_moves")).scalar() == 0  # all in the tail
        _downgrade(engine, "0008")
        with engine.connect() as conn:
            kept = conn.execute(text("SELECT at, letters FROM game_moves WHERE game_id = :g ORDER BY at"),
                                {"g": started.id}).all()
        assert [tuple(r) for r in kept] == list(enumerate("LDLDL"))
        migrate(engine)
        assert DatabaseStore(engine).load(started.id).log == "LDLDL"
    finally:
        engine.dispose()


def test_migration_0010_down_writes_each_position_at_its_at(tmp_path, monkeypatch):
    """Positions left behind their ``at`` under 0010 (SQLite writes one every few moves) are
    brought there by the downgrade to 0009, with the tile of the last letter, so the older code
    reads each game where it stands; and up again, the same game."""
    import json

    from sqlalchemy import text

    from game2048 import replay
    from game2048.server import live
    from game2048.server.live.stores import DatabaseStore

    engine = make_engine(f"sqlite:///{tmp_path / 'behind.sqlite3'}")
    try:
        migrate(engine)
        store, secret = DatabaseStore(engine), "a" * 32
        # a deal where these letters all move
        monkeypatch.setattr(live.starting, "classic_seed", lambda: 2048)
        started = live.start(store, secret, 4, "classic")
        at = 0
        for letters in ("L", "D", "LD", "Z", "R"):
            at = live.play(store, secret, started.id, token=started.token, at=at, moves=letters).at
        live.forget(started.id)
        game = replay(4, 2048, "LDLDZR")
        with engine.connect() as conn:
            # written by the first move (its game read from the store), then left behind
            assert conn.execute(text("SELECT live_at FROM games")).scalar() == 1
        _downgrade(engine, "0009")
        with engine.connect() as conn:
            position = json.loads(conn.execute(text("SELECT live FROM games")).scalar())
        assert position == game.snapshot() | {"tile": list(game.last_tile())}
        migrate(engine)
        assert DatabaseStore(engine).load(started.id, log=False).snapshot == position
    finally:
        engine.dispose()


def test_migration_0014_makes_each_held_names_skeleton_again_without_its_marks(settings):
    """A name held under 0013 kept its skeleton with its marks; after 0014 a new name that differs
    from it by a mark alone meets it (``records.names.skeleton``), and its key finds it by index."""
    from sqlalchemy import inspect, text

    from game2048.server.records.names import skeleton

    engine = make_engine(settings.database_url)
    try:
        migrate(engine)
        _downgrade(engine, "0013")
        marked = "Jos\u00e9"
        with engine.begin() as conn:
            conn.execute(text("INSERT INTO names (name, skeleton, key_hash, first_game, used_at) "
                              "VALUES (:n, :s, :k, 'g1', :t)"),
                         {"n": marked, "s": "Jose\u0301", "k": "f" * 64, "t": utc_now()})
        migrate(engine)
        with engine.connect() as conn:
            assert conn.execute(text("SELECT skeleton FROM names")).scalar() == skeleton("Jose") == "Jose"
        assert "ix_names_key_hash" in {i["name"] for i in inspect(engine).get_indexes("names")}
    finally:
        engine.dispose()


def test_migration_0014s_copy_of_the_skeleton_is_the_rules_for_every_stored_name():
    import importlib.util
    import json
    from pathlib import Path

    from game2048.server.records.names import skeleton
    from game2048.server.storage.db import MIGRATIONS_DIR

    path = MIGRATIONS_DIR / "versions" / "0014_names_unmarked.py"
    spec = importlib.util.spec_from_file_location("m0014", path)
    migration = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(migration)
    vectors = Path(__file__).resolve().parents[2] / "vectors" / "names.json"
    stored = [c["stored"] for c in json.loads(vectors.read_text(encoding="utf-8"))["cases"] if "stored" in c]
    table = migration.prototypes()
    marked = ["Jos\u00e9", "Ada\u0323", "\u0e01\u0e48", "\u05d3\u05bc\u05d5\u05b9\u05d3", "p\u0430yp\u0430l"]
    for name in [*stored, *marked]:
        assert migration.skeleton(name, table) == skeleton(name), name
