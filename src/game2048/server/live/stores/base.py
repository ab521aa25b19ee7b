"""What every store of games in play shares: the game as a store hands it out (``Live``), the
interface (``LiveStore``), and the finished record's write to the database, where both stores keep
records."""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

from sqlalchemy import Connection, Engine, update

from ....game import Snapshot
from ....spawn import Seed
from ...limits.rate import Hit
from ...records.records import rank_query
from ...storage.db import one_writer_for
from ...storage.models import GameRow
from ..commits import GroupCommit

#: Daily-try counters are dropped this long after their day began.
TRIES_KEPT = timedelta(days=2)

#: A move's position as ``save`` takes it: the snapshot, its JSON text, or what makes that text
#: when the store writes it (SQLite writes the position every few moves only, ``stores.tail``).
Stored = Snapshot | str | Callable[[], str]


@dataclass
class Live:
    """A game as the store hands it out; ``snapshot`` is None once it is finished."""

    id: str
    size: int
    seed: Seed
    mode: str
    day: date | None
    at: int
    log: str
    snapshot: Snapshot | None
    finished: bool = False
    #: The leaderboard a ranked finish goes to: ``players``, or ``engines`` for a bot game.
    board: str = "players"
    #: A hint was asked for through the game (``mark_helped``): it is not ranked.
    helped: bool = False
    #: The bot's name, for a game started as a bot's (on the engines board); None for a player's.
    bot: str | None = None
    #: Why it will not be ranked whatever its play (``GameRow.unranked``): "tries", a daily try past
    #: its network's allowance; None for a game that may be.
    unranked: str | None = None


class LiveStore(ABC):
    """The operations live play needs; each one is atomic on its own."""

    #: The database finished records are kept in (and the names they hold).
    engine: Engine

    #: True when a move is only work in this process (an SQLite file), with no network wait.
    in_process = False
    #: The group commit of moves saved on the event loop's thread (SQLite), else None.
    commits: GroupCommit | None = None
    #: True when ``save_async`` saves from the event loop, without a thread (PostgreSQL, Redis).
    saves_async = False

    @abstractmethod
    def create(self, game: Live, now: datetime) -> None:
        """Keep a new game (``at`` 0, its opening snapshot)."""

    @abstractmethod
    def load(self, game_id: str, *, log: bool = True, hit: Hit | None = None) -> Live | None:
        """The game, finished or in play; None if there is no such game (or it was removed).
        With ``log=False`` its ``log`` is left empty: a move needs only the position.
        ``hit``: a request's rate-limit count, made first (429 if refused; see ``save``)."""

    @abstractmethod
    def save(self, game_id: str, expected_at: int, added: str, snapshot: Stored, now: datetime,
             hit: Hit | None = None) -> bool:
        """Append ``added`` to the game's log and store ``snapshot`` (or its compact JSON text) as
        its position, if the stored ``at`` is still ``expected_at`` and the game is not finished (the
        new ``at`` is ``expected_at + len(added)``). A callable ``snapshot`` makes the text when the
        store writes it: SQLite may leave the position behind (``stores.tail``), and ``load`` then
        brings it to ``at``. ``hit``, if not counted yet, is counted first (the Redis store: in the
        same round trip); a refused count is a 429 and nothing is saved."""

    @abstractmethod
    def arrivals(self, game_id: str) -> tuple[datetime | None, list[tuple[int, int | None]]]:
        """When the game was issued, and for each batch of letters saved: ``(at, ms)``, the log
        length it began at and when it arrived (ms since the Unix epoch; None if not kept)."""

    @abstractmethod
    def finish(self, game: Live, expected_at: int, record: dict[str, Any],
               also: Callable[[Connection], None] | None = None) -> bool:
        """Turn the game into its finished record (``record``: the finish columns) if ``at`` is
        still ``expected_at`` and it is not finished yet; flushed to disk before it returns.
        A ranked game's place on its leaderboard is counted and kept in the same transaction,
        and ``also(connection)`` runs in it (the name the record is under is taken there)."""

    @abstractmethod
    def mark_helped(self, game_id: str) -> None:
        """Mark the game helped (a hint was given through it), whatever moves are saved meanwhile."""

    @abstractmethod
    def count_try(self, client: str, day: date, size: int, limit: int) -> int:
        """Count one daily game of ``client``: the tries so far, this one included; 0 (and
        nothing counted) past ``limit``."""

    @abstractmethod
    def uncount_try(self, client: str, day: date, size: int) -> None:
        """Take back one try counted by ``count_try`` (another allowance refused the game)."""

    @abstractmethod
    def note_asked(self, client: str, boards: Iterable[str], now: datetime) -> None:
        """Remember that ``client`` asked the solver about ``boards`` (``live.asked``'s hashes) at ``now``,
        for as long as an idle game is kept."""

    @abstractmethod
    def asked_since(self, client: str, since: datetime) -> set[str]:
        """The boards ``client`` asked about since ``since`` (``note_asked``)."""

    @abstractmethod
    def purge(self, now: datetime, idle: timedelta) -> int:
        """Remove games in play with no move for ``idle``, old try counters and old asked boards; how
        many games went."""

    def close(self) -> None:  # noqa: B027 - most stores hold nothing of their own
        """Let go of the connections the store keeps for itself (when the app stops)."""

    async def save_async(self, game_id: str, expected_at: int, added: str, snapshot: Stored,
                         now: datetime, hit: Hit | None = None) -> bool:
        """``save`` on the event loop (where ``saves_async``; elsewhere it would block the loop)."""
        raise NotImplementedError

    async def aclose(self) -> None:  # noqa: B027 - most stores hold nothing of their own
        """Let go of what ``save_async`` keeps on the running event loop (when the app stops)."""


def live_from_row(row: Any) -> Live:
    return Live(row.id, row.size, row.seed, row.mode, row.day, row.at, row.log or "",
                json.loads(row.live) if row.live else None, row.finished_at is not None, row.board,
                bool(row.helped), row.name if row.bot else None, row.unranked)


GAME_COLUMNS = (GameRow.id, GameRow.size, GameRow.seed, GameRow.mode, GameRow.day, GameRow.at, GameRow.log,
            GameRow.live, GameRow.finished_at, GameRow.board, GameRow.helped, GameRow.bot, GameRow.name,
            GameRow.unranked)


def write_finished(conn: Connection, statement: Any, game: Live, record: dict[str, Any],
              also: Callable[[Connection], None] | None = None) -> bool:
    if conn.execute(statement).rowcount != 1:
        return False
    if also is not None:
        also(conn)
    if record["ranked"] and record.get("standing", "listed") == "listed":  # placed now: its place kept
        rank = conn.execute(rank_query(record.get("board", game.board), game.size, game.mode, game.day,  # type: ignore[arg-type]
                                       record["score"], record["finished_at"], game.id)).scalar()
        conn.execute(update(GameRow).where(GameRow.id == game.id).values(finish_rank=rank))
    return True


def mark_helped_in_database(engine: Engine, game_id: str) -> None:
    with one_writer_for(engine), engine.begin() as conn:
        conn.execute(update(GameRow).where(GameRow.id == game_id).values(helped=True))




def position_text(snapshot: Stored) -> str:
    """A snapshot as the stores keep it: compact JSON text (``Game.snapshot_json`` makes it at once;
    a callable makes it when a store writes it, which SQLite does every few moves only)."""
    if type(snapshot) is str:
        return snapshot
    if callable(snapshot):
        return snapshot()
    return json.dumps(snapshot, separators=(",", ":"))


def epoch_ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


def aware_utc(value: Any) -> datetime:
    """A stored time as an aware UTC datetime (SQLite hands back naive datetimes or their text)."""
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    return value if value.tzinfo else value.replace(tzinfo=UTC)

