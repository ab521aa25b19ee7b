"""The games a worker keeps in memory between their moves: the next move on a game usually comes to
the worker that played the last one (a WebSocket stays with its worker), and then needs neither a
read of the store nor a resume from the stored position."""

from __future__ import annotations

import threading
from collections import OrderedDict

from ...game import Game, Snapshot
from ..config import DEFAULT_RECENT_BYTES
from .stores import Live

#: The ``snapshot`` of a game ``RecentGames`` keeps: its position is the kept ``Game``'s (a move does
#: not build the snapshot's lists only to keep them; the store has its text).
IN_MEMORY: Snapshot = {"in_memory": True}


#: A kept game is compacted (``Game.compact``) once it holds more than this many positions or
#: letters: every eighth move or so, where doing it at every move cost a move about 1 %.
COMPACT_SLACK = 8


class RecentGames:
    """Games this process saved lately, by (id, at), as the store has them (without the log and
    with ``IN_MEMORY`` for the snapshot) and as a ``Game``: the next move usually comes here
    again (a WebSocket stays with one worker), and then needs neither a read of the store nor a
    resume from the snapshot.

    Sound because the log only grows: a game has one position for each ``at``,
    ever; another worker's move makes the compare-and-set fail, and the mover
    reads the store again. A game is taken out while a request works on it and
    put back under its new ``at`` once that is saved, compacted (``Game.compact``, at most
    ``COMPACT_SLACK`` positions more than undo reaches): each entry takes a few kilobytes at
    most, whatever the game's length. At most
    ``size`` games and ``max_bytes`` bytes (an estimate, ``entry_bytes``) are kept,
    the least recently saved going first.
    """

    def __init__(self, size: int = 2048, max_bytes: int = DEFAULT_RECENT_BYTES) -> None:
        self.size = size
        self.max_bytes = max_bytes
        self.bytes = 0
        self._games: OrderedDict[tuple[str, int], tuple[Live, Game, int]] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._games)

    def take(self, game_id: str, at: int) -> tuple[Live, Game] | None:
        with self._lock:
            held = self._games.pop((game_id, at), None)
            if held is None:
                return None
            self.bytes -= held[2]
        return held[0], held[1]

    def bound(self, max_bytes: int) -> None:
        """Keep at most about ``max_bytes`` from now on, the least recently saved going first."""
        with self._lock:
            self.max_bytes = max_bytes
            while self._games and self.bytes > max_bytes:
                self.bytes -= self._games.popitem(last=False)[1][2]

    def forget(self, game_id: str | None) -> None:
        with self._lock:
            for key in [k for k in self._games if game_id is None or k[0] == game_id]:
                self.bytes -= self._games.pop(key)[2]

    def put(self, live: Live, game: Game) -> None:
        game.compact(slack=COMPACT_SLACK)
        cost = entry_bytes(live)
        with self._lock:
            old = self._games.pop((live.id, live.at), None)
            if old is not None:
                self.bytes -= old[2]
            if cost > self.max_bytes:
                return  # never kept: the bound holds even for an entry larger than it
            self._games[(live.id, live.at)] = (live, game, cost)
            self.bytes += cost
            while len(self._games) > self.size or self.bytes > self.max_bytes:
                self.bytes -= self._games.popitem(last=False)[1][2]


def entry_bytes(live: Live) -> int:
    """What one game kept by ``RecentGames`` takes in memory, over-estimated: its ``Live`` (the
    snapshot: the board and at most 3 undo positions), the compacted ``Game`` (the position and
    at most ``COMPACT_SLACK`` of its history and letters), and their strings. Measured with
    tracemalloc, whatever its length: 2.4 to 3.3 KB for a 3x3 game, 3.1 to 4.9 KB for 6x6,
    compacted; about 1 KB more at most between compactions (tests/server/live/test_recent_games.py)."""
    return (3000 + 150 * COMPACT_SLACK + 60 * live.size * live.size
            + 2 * (len(live.id) + len(live.mode) + len(live.bot or "")))

