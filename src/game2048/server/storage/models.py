"""The database tables (SQLAlchemy 2). The schema itself is made by the Alembic migrations."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any, ClassVar

from sqlalchemy import (
    BigInteger,
    Boolean,
    Date,
    DateTime,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    false,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.types import TypeDecorator

from ...limits import NAME_MAX
from ...spawn import Seed, seed_from_text


class SeedColumn(TypeDecorator[Seed]):
    """A seed as text: a secret seed's 32 hex digits, or an integer seed's decimal digits
    (at most 16), read back as the ``str`` or ``int`` it was."""

    impl = String(32)
    cache_ok = True

    def process_bind_param(self, value: Any, dialect: Any) -> str | None:
        return None if value is None else str(value)

    def process_result_value(self, value: Any, dialect: Any) -> Seed | None:
        return None if value is None else seed_from_text(value)


class Base(DeclarativeBase):
    pass


class GameRow(Base):
    """One game: issued by the server (classic, daily) or sent finished (practice).

    While a game is in play, ``at`` is the length of its log and ``live`` its
    position (``Game.snapshot`` as JSON); each move rewrites them, only if ``at``
    is still what the mover read, and appends its letters to ``game_moves`` (on
    SQLite to the row's ``tail`` first, taken there every few moves, and the
    position written only by those moves, at ``live_at``, see ``live.stores.tail``;
    ``log`` holds only what a game had before moves were appended). The finish
    writes the whole ``log`` and drops ``live``, the tail and the appended moves.
    (With ``REDIS_URL`` the game in play lives in Redis instead, see ``live.stores``.)
    """

    __tablename__ = "games"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    size: Mapped[int] = mapped_column(Integer)
    mode: Mapped[str] = mapped_column(String(8))
    #: The UTC date of a daily game; None for a classic one.
    day: Mapped[date | None] = mapped_column(Date, nullable=True)
    seed: Mapped[Seed] = mapped_column(SeedColumn)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    name: Mapped[str | None] = mapped_column(String(NAME_MAX), nullable=True)
    log: Mapped[str | None] = mapped_column(Text, nullable=True)
    score: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    max_tile: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    moves: Mapped[int | None] = mapped_column(Integer, nullable=True)
    ranked: Mapped[bool] = mapped_column(Boolean, default=False)
    at: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    live: Mapped[str | None] = mapped_column(Text, nullable=True)
    #: SQLite: the newest moves of a game in play, waiting in its row (``live.stores.tail``) until a move
    #: takes them to ``game_moves``; '' elsewhere and once finished.
    tail: Mapped[str] = mapped_column(Text, default="", server_default="")
    #: SQLite: the ``at`` that ``live`` stands at when it is behind ``at`` (the tail's letters since
    #: then bring it there, ``live.stores.tail``); None when ``live`` is at ``at``, and elsewhere.
    live_at: Mapped[int | None] = mapped_column(Integer, nullable=True)
    #: When each letter of the log arrived, as ``records.arrivals`` writes it (ms after the letter
    #: before, the first after the game's start); None for practice games and older games.
    times: Mapped[str | None] = mapped_column(Text, nullable=True)
    #: The last move (or the start); games idle for GAME2048_IDLE_DAYS are removed.
    touched_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    #: The place a ranked game took on its leaderboard when it finished (the finish answer says it again).
    finish_rank: Mapped[int | None] = mapped_column(Integer, nullable=True)
    #: A practice game from a position: ``{"board": rows, "score": n}`` as JSON; None for an opening.
    start: Mapped[str | None] = mapped_column(Text, nullable=True)
    #: The leaderboard a ranked game is on: ``players`` (people), or ``engines`` (bot games, and
    #: players' games that play like the solver).
    board: Mapped[str] = mapped_column(String(8), default="players", server_default="players")
    #: Started as a bot game (``POST /api/games {bot: ...}``): always on the engines board.
    bot: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    #: A hint was asked for through this game: it is never ranked. Only ever set, never cleared,
    #: and apart from ``live``, so a move saved at the same moment cannot undo it.
    helped: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    #: Why a game that kept to the rules is not ranked, where its log does not say (undo, help):
    #: ``abandoned`` (a daily try left for a new game before it ended), ``tries`` (a daily try started
    #: past its network's allowance), or None.
    unranked: Mapped[str | None] = mapped_column(String(16), nullable=True)
    #: Where a finished game stands (``records.standing``): ``checking`` until its engine-like check is
    #: done, ``listed`` on its board, ``held`` for an operator (``held_for`` says why), ``hidden``.
    standing: Mapped[str] = mapped_column(String(8), default="listed", server_default="listed")
    held_for: Mapped[str | None] = mapped_column(String(16), nullable=True)
    #: An operator set the standing: no check or report moves the game again.
    decided: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    #: The check found the game plays like the solver: it is on the engines board, marked so.
    engine_like: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    #: The check's figures as JSON (``solver.likeness``): positions that matter, agreement, slips.
    likeness: Mapped[str | None] = mapped_column(Text, nullable=True)

    __table_args__ = (
        Index("ix_games_board", "board", "size", "mode", "day", "ranked", "score", "finished_at"),
        Index("ix_games_touched", "touched_at"),
        Index("ix_games_standing", "standing", "finished_at"),
    )


class GameMoveRow(Base):
    """Letters of a game in play, appended by each move: ``at`` is the log length they start at.

    On SQLite the rows live in their primary key's own tree (``WITHOUT ROWID``): a move's append
    writes one page, not a table page and an index page (migration 0008)."""

    __tablename__ = "game_moves"
    __table_args__: ClassVar[dict[str, Any]] = {"sqlite_with_rowid": False}

    game_id: Mapped[str] = mapped_column(String(16), primary_key=True)
    at: Mapped[int] = mapped_column(Integer, primary_key=True)
    letters: Mapped[str] = mapped_column(String(64))
    #: When they arrived, in ms since the Unix epoch (None for moves kept before arrival times were).
    ms: Mapped[int | None] = mapped_column(BigInteger, nullable=True)


class DailyTryRow(Base):
    """Daily games started per client, size and day; the client is a keyed hash of its address.
    Size 0 counts the names a network newly held that day (``records.owners.NAMES_COUNTED``)."""

    __tablename__ = "daily_tries"

    client: Mapped[str] = mapped_column(String(64), primary_key=True)
    day: Mapped[date] = mapped_column(Date, primary_key=True)
    size: Mapped[int] = mapped_column(Integer, primary_key=True)
    tries: Mapped[int] = mapped_column(Integer)


class AskedBoardRow(Base):
    """A board a client asked the solver about bare (``POST /api/hint``), kept a while so that its
    finished games can be checked against it (``live.asked``): both as hashes, never the address or
    the board."""

    __tablename__ = "asked_boards"

    client: Mapped[str] = mapped_column(String(64), primary_key=True)
    board: Mapped[str] = mapped_column(String(32), primary_key=True)
    asked_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)


class NameRow(Base):
    """A name held by whoever first finished a game under it: only the hash of its key is kept.

    ``first_game`` is the game whose finish took the name: that finish's retries get the key
    again (it is derived from the server's secret and that game). A name unused for
    ``records.owners.HELD_FOR`` is free again.
    """

    __tablename__ = "names"

    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    #: TR39's skeleton of the name (``names.skeleton``): a new name with the same one is refused.
    skeleton: Mapped[str] = mapped_column(String(256), index=True)
    #: SHA-256 of the name key; indexed: a key finds its name (recovery, release).
    key_hash: Mapped[str] = mapped_column(String(64), index=True)
    first_game: Mapped[str] = mapped_column(String(16))
    used_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class SecretRow(Base):
    """Server-wide values made once and shared by every worker (the signing secret)."""

    __tablename__ = "server_secrets"

    name: Mapped[str] = mapped_column(String(32), primary_key=True)
    value: Mapped[str] = mapped_column(String(128))


class ReviewRow(Base):
    """The solver's review of one finished game: queued, running, done or failed (``server/reviews.py``)."""

    __tablename__ = "reviews"

    game_id: Mapped[str] = mapped_column(String(16), primary_key=True)
    status: Mapped[str] = mapped_column(String(8))
    preset: Mapped[str] = mapped_column(String(8))
    #: Who asked first (the client address), for the per-client limit on waiting reviews.
    client: Mapped[str] = mapped_column(String(64))
    #: Moves to grade, and how many are graded so far.
    total: Mapped[int] = mapped_column(Integer)
    done: Mapped[int] = mapped_column(Integer, default=0)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    requested_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    #: The process that claimed the review, and when it last showed it is still at work.
    worker: Mapped[str | None] = mapped_column(String(64), nullable=True)
    heartbeat_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    #: The review as JSON text (``game2048.solver.review``'s dict), once done.
    result: Mapped[str | None] = mapped_column(Text, nullable=True)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)

    __table_args__ = (
        Index("ix_reviews_queue", "status", "requested_at"),
        Index("ix_reviews_client", "client", "status"),
    )


class ReportRow(Base):
    """A visitor's report of a finished game (``moderation.reports``): one per game and client, the
    client a keyed hash of its address; closed when an operator decides the game."""

    __tablename__ = "reports"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(String(16), index=True)
    reason: Mapped[str] = mapped_column(String(16))
    client: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    closed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)

    __table_args__ = (UniqueConstraint("game_id", "client", name="uq_reports_game_client"),)


class ModActionRow(Base):
    """One operator's action, as the audit log keeps it: who, when, what, why, before and after."""

    __tablename__ = "mod_actions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    operator: Mapped[str] = mapped_column(String(64))
    action: Mapped[str] = mapped_column(String(16))
    #: A game id, or a name.
    target: Mapped[str] = mapped_column(String(64))
    why: Mapped[str] = mapped_column(Text)
    #: The target's fields before and after, as JSON.
    before: Mapped[str | None] = mapped_column(Text, nullable=True)
    after: Mapped[str | None] = mapped_column(Text, nullable=True)


class BarredKeyRow(Base):
    """A name key an operator barred from the players' board (its hash, as ``names`` keeps it)."""

    __tablename__ = "barred_keys"

    key_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    barred_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
