"""Database engine and schema: SQLite (WAL) or PostgreSQL, migrated with Alembic at start."""

from __future__ import annotations

import os
import secrets
import threading
from contextlib import AbstractContextManager, nullcontext
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import Engine, create_engine, event, select, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from .models import SecretRow

try:
    import fcntl
except ImportError:  # not on Windows: SQLite's own busy wait orders the processes there
    fcntl = None  # type: ignore[assignment]

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"

#: Any fixed number: the PostgreSQL advisory lock that lets one worker at a time migrate.
_MIGRATION_LOCK = 2048_0001


#: Seconds to connect to PostgreSQL or Redis before the request is answered 503.
STORE_TIMEOUT = 3


def make_engine(url: str) -> Engine:
    """An engine for ``url``; SQLite files get WAL, ``synchronous=NORMAL`` and a busy timeout.

    NORMAL in WAL mode: a commit survives a killed process, not a power cut;
    commits that must survive that too (finishes) run in ``durable``.
    """
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        # a database that is down or refusing answers within seconds (a 503 to the player), never a hang
        return create_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=20, pool_timeout=5,
                             connect_args={"connect_timeout": STORE_TIMEOUT})
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


#: Set by ``serve --workers N`` for its worker processes: N server processes share the database.
WORKERS_ENV = "GAME2048_WORKERS"


def _several_workers() -> bool:
    try:
        return int(os.environ.get(WORKERS_ENV, "1")) > 1
    except ValueError:
        return True  # not a number: take the lock, which is always safe


class _Writer:
    """SQLite lets one writer in at a time and makes the others sleep and retry (1 ms, then
    longer); queueing writers on a lock instead wakes each one the moment the previous commit
    is done. A thread lock queues this process's writers, and, when several server processes
    share the database (``serve --workers N``), an exclusive ``flock`` on a file beside it queues
    the processes behind each other. A lone server takes no file lock (two system calls a move):
    any other process that writes now and then (a command) waits in SQLite's own way."""

    def __init__(self, database: str | None) -> None:
        # reentrant: the event loop's thread holds it across a group commit's batch
        # (``live.commits``) and may write again meanwhile; only the outermost hold takes the file
        self.threads = threading.RLock()
        self.depth = 0
        in_file = fcntl is not None and database and database != ":memory:" and _several_workers()
        self.path = f"{database}.writer-lock" if in_file else None
        self.fd: int | None = None

    def __enter__(self) -> None:
        self.threads.acquire()
        self.depth += 1
        if self.path is None or self.depth > 1:
            return
        try:
            if self.fd is None:
                self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
            fcntl.flock(self.fd, fcntl.LOCK_EX)
        except OSError:  # no file lock here (a read-only folder): SQLite's own wait still orders writers
            pass
        except BaseException:
            self.depth -= 1
            self.threads.release()
            raise

    def __exit__(self, *exc: object) -> None:
        try:
            if self.fd is not None and self.depth == 1:
                fcntl.flock(self.fd, fcntl.LOCK_UN)
        finally:
            self.depth -= 1
            self.threads.release()


_WRITERS: dict[str | None, _Writer] = {}
_WRITERS_LOCK = threading.Lock()


def one_writer_for(engine: Engine) -> AbstractContextManager[object]:
    """Hold around a write transaction: the database file's writer lock on SQLite, nothing on
    PostgreSQL (which has row locks and group commit of its own)."""
    if engine.dialect.name != "sqlite":
        return nullcontext()
    database = engine.url.database
    with _WRITERS_LOCK:
        writer = _WRITERS.get(database)
        if writer is None:
            writer = _WRITERS[database] = _Writer(database)
    return writer


def one_writer(session: Session) -> AbstractContextManager[object]:
    """``one_writer_for`` the engine a session is bound to."""
    return one_writer_for(session.get_bind())  # type: ignore[arg-type]


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


class durable:
    """A write transaction whose commit is on disk before it ends (SQLite: synchronous=FULL
    for this commit only; the connection goes back to NORMAL afterwards)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.sqlite = engine.dialect.name == "sqlite"
        self.writer = one_writer_for(engine)

    def __enter__(self):  # type: ignore[no-untyped-def]
        self.writer.__enter__()
        self.conn = self.engine.connect()
        if self.sqlite:  # must come before the transaction's BEGIN to count for its commit
            self.conn.exec_driver_sql("PRAGMA synchronous=FULL")
        return self.conn

    def __exit__(self, kind, value, tb) -> None:  # type: ignore[no-untyped-def]
        try:
            if kind is None:
                self.conn.commit()
            else:
                self.conn.rollback()
        finally:
            try:
                if self.sqlite:
                    self.conn.exec_driver_sql("PRAGMA synchronous=NORMAL")
                    self.conn.commit()
                self.conn.close()
            finally:
                self.writer.__exit__(None, None, None)


def utc_now() -> datetime:
    return datetime.now(UTC)
