"""The bounds every part of game2048 agrees on, each stated once.

The rules' facts live in ``rules`` (sizes, targets, the move alphabet, undos)
and the seeds' in ``spawn``; this module adds the bounds of records and
requests, and gathers all of them in ``as_json()``. ``tests/vectors/limits.json``
is that table: pytest checks it against this module, and ``node --test``
against the browser's constants, so the two sides cannot drift apart.

>>> as_json()["name_max"], as_json()["sizes"]
(24, [3, 4, 5, 6])
"""

from __future__ import annotations

import re
from typing import Any

from .rules import DEFAULT_SIZE, LETTERS, MAX_UNDOS, SIZES, TARGETS, UNDO_LETTER
from .spawn import MAX_SEED

#: The longest move log accepted. A 4x4 game that builds 131072 (the largest
#: tile the board can hold) takes about 60,000 moves; 6x6 games by a strong
#: solver run longer, so the bound leaves room while keeping a replay under a
#: couple of seconds.
MAX_LOG = 200_000
#: Moves one request (HTTP or WebSocket message) may carry.
MAX_MOVES = 64
#: A player's name, in code points after cleaning (``server.records.names``).
NAME_MAX = 24
#: What the server issues as game ids (``server.live.seeds.new_game_id``); anything else is no game.
GAME_ID_MAX = 64
GAME_ID = re.compile(rf"[A-Za-z0-9_-]{{1,{GAME_ID_MAX}}}")
#: The letters of a record's log: the four moves, then undo.
ALPHABET = "".join(LETTERS.values()) + UNDO_LETTER

MIN_SIZE, MAX_SIZE = min(SIZES), max(SIZES)


def as_json() -> dict[str, Any]:
    """Every bound, as ``tests/vectors/limits.json`` holds it."""
    return {
        "sizes": list(SIZES),
        "default_size": DEFAULT_SIZE,
        "targets": {str(n): t for n, t in TARGETS.items()},
        "max_seed": MAX_SEED,
        "max_log": MAX_LOG,
        "max_moves": MAX_MOVES,
        "max_undos": MAX_UNDOS,
        "name_max": NAME_MAX,
        "game_id": GAME_ID.pattern,
        "alphabet": ALPHABET,
    }
