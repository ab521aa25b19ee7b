"""Database engine and schema: SQLite (WAL) or PostgreSQL, migrated with Alembic at start."""

from __future__ import annotations

import secrets
import threading
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path

from sqlalchemy import Engine, create_engine, event, select, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from .models import SecretRow

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"

#: Any fixed number: the PostgreSQL advisory lock that lets one worker at a time migrate.
_MIGRATION_LOCK = 2048_0001


def make_engine(url: str) -> Engine:
    """An engine for ``url``; SQLite files get WAL, ``synchronous=NORMAL`` and a busy timeout.

    NORMAL in WAL mode: a commit survives a killed process, not a power cut;
    commits that must survive that too (finishes) run in ``live_store.durable``.
    """
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        return create_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=20)
    if parsed.database and parsed.database != ":memory:":
        Path(parsed.database).expanduser().parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(url, connect_args={"timeout": 30, "check_same_thread": False})

    @event.listens_for(engine, "connect")
    def _sqlite_pragmas(dbapi_conn, _record):  # type: ignore[no-untyped-def]
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        # NORMAL: a commit is in the WAL file (the OS has it) before the answer goes out;
        # finishes switch to FULL for their own commit, so they are on disk as well
        cur.execute("PRAGMA synchronous=NORMAL")
        cur.execute("PRAGMA busy_timeout=30000")
        cur.close()

    return engine


#: SQLite lets one writer in at a time and makes the others sleep and retry; queueing this
#: process's writers on a lock instead wakes each one the moment the previous commit is done.
_SQLITE_WRITER = threading.Lock()


def one_writer(session: Session) -> AbstractContextManager[object]:
    """Hold around a write transaction: a process-wide lock on SQLite, nothing on PostgreSQL."""
    return _SQLITE_WRITER if session.get_bind().dialect.name == "sqlite" else nullcontext()


def one_writer_for(engine: Engine) -> AbstractContextManager[object]:
    """``one_writer`` for code that works on the engine without a session."""
    return _SQLITE_WRITER if engine.dialect.name == "sqlite" else nullcontext()


def migrate(engine: Engine) -> None:
    """Bring the schema to the newest revision (safe to run from several workers at once)."""
    from alembic import command
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _MIGRATION_LOCK})
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")


def load_secret(sessions: sessionmaker[Session], configured: str | None) -> str:
    """The configured secret, else the one kept in the database, made on first start.

    Every worker on the same database reads the same value, so daily seeds and
    game tokens agree across workers and restarts.
    """
    if configured:
        return configured
    with sessions() as s:
        row = s.get(SecretRow, "signing")
        if row is not None:
            return row.value
        s.add(SecretRow(name="signing", value=secrets.token_hex(32)))
        try:
            s.commit()
        except IntegrityError:  # another worker made it first
            s.rollback()
        return s.scalars(select(SecretRow.value).where(SecretRow.name == "signing")).one()

