"""Boards a client asked the solver about bare (``POST /api/hint``), and the ranked games they helped.

A bare board is tied to no game, so the server keeps, as long as an idle game is kept, the boards
each client asked about (``note``): hashes, under a keyed hash of the client's network as
``limits.daily`` keeps its tries. A game finished by that client is checked against them
(``helped``): one that stood on an asked board finishes helped, kept and never ranked, as if the
hint had been asked through it.

Why at the finish: a move is the hot path and knows nothing of who plays it, and a hint request
cannot find the client's games in play (the stores keep games by id, and a client may hold any
number of them). The finish replays the game anyway, on the client's CPU budget, and the check
costs it one read, plus a walk of its positions only when the client asked about a board while
it was in play.

A hint tells as much about a board turned or mirrored, and about one with every tile doubled or
halved, so each asked board is kept as each of those a game's position can be: turned and
mirrored eight ways, with its smallest tile a 2 or a 4 (a position always holds the tile just dealt).

>>> len(fingerprints([[2, 0], [0, 4]]))  # a diagonal: 4 layouts, 2 scales
8
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime, timedelta

from ...record import positions
from ..clients.address import network_of
from ..limits.daily import client_key
from .stores import Live, LiveStore

#: Boards asked this long before a game began count too: a daily game opens on a board every try of
#: the day shares, which a client may have asked about before its next try.
ASKED_BEFORE = timedelta(minutes=10)


def client_of(secret: str, address: str) -> str:
    """Who asked, as the store keeps it: a keyed hash of the address's network (IPv6: its /64)."""
    return client_key(secret, f"asked:{network_of(address)}")


def _digest(board_text: str) -> str:
    return hashlib.blake2b(board_text.encode(), digest_size=16).hexdigest()


def fingerprints(board: list[list[int]]) -> set[str]:
    """The hashes of ``board``'s rows as a game's position would be written (``Game.board_json``),
    turned and mirrored eight ways, at the scales where its smallest tile is a 2 and a 4."""
    smallest = min((v for row in board for v in row if v), default=2)
    found = set()
    for lowest in (2, 4):
        rows = [[v * lowest // smallest for v in row] for row in board]
        for _ in range(4):
            rows = [list(row) for row in zip(*rows[::-1], strict=True)]  # a quarter turn
            for layout in (rows, [row[::-1] for row in rows]):
                found.add(_digest(json.dumps(layout, separators=(",", ":"))))
    return found


def note(store: LiveStore, secret: str, address: str, board: list[list[int]], now: datetime) -> None:
    """Keep that the client at ``address`` asked the solver about ``board``."""
    store.note_asked(client_of(secret, address), fingerprints(board), now)


def helped(store: LiveStore, client: str, game: Live, started: datetime) -> bool:
    """Whether ``game`` (its log read) stood on a board ``client`` (``client_of``) asked about
    while it was in play, or just before it began."""
    asked = store.asked_since(client, started - ASKED_BEFORE)
    return bool(asked) and any(_digest(position.board_json()) in asked
                               for _, position in positions(game.size, game.seed, game.log))
