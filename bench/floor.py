"""The floor of a server that stores every move: what the least such server costs, beside the echo.

A Starlette WebSocket on the same stack as ``move_cost.py``'s echo that does,
for each message, only what any server that keeps every move before it
answers must do: read the message's JSON, append the move to its socket's row
in SQLite (WAL, ``synchronous=NORMAL``, as ``game2048 serve``) with a
compare-and-set ``UPDATE`` (the row's tail emptied every 32 moves, as
game2048's), commit once for the moves that arrived in the same turn of the
event loop (each answer waits for its commit), and answer a JSON object of the
size of a move's answer. No rules, no dealing, no checks, no game kept in
memory: the distance between it and ``game2048 serve`` is the game's own work;
the distance between it and the echo is the store's and the message's.

    .venv/bin/python bench/move_cost.py --floor --unpaced   # echo, floor and game2048 in turn
"""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import tempfile
from typing import Any

#: The moves a row's tail holds before it is emptied (``game2048``'s ``TAIL_LETTERS``).
TAIL = 32
_APPEND = "UPDATE floor SET at = ?, tail = tail || ? WHERE id = ? AND at = ?"
_EMPTY = "UPDATE floor SET at = ?, tail = ? WHERE id = ? AND at = ?"
_BOARD = [[2, 0, 4, 8], [0, 16, 32, 0], [64, 0, 2, 4], [128, 256, 0, 2]]


class _Store:
    """One SQLite connection, on the event loop's thread, with the group commit."""

    def __init__(self, path: str) -> None:
        self.conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA synchronous=NORMAL")
        self.conn.execute("CREATE TABLE IF NOT EXISTS floor (id TEXT PRIMARY KEY, at INTEGER NOT NULL, "
                          "tail TEXT NOT NULL)")
        self.sockets = 0
        self.batch: list[asyncio.Future[None]] | None = None

    def open_row(self) -> str:
        self.sockets += 1
        row = f"socket-{self.sockets}"
        self.conn.execute("INSERT INTO floor VALUES (?, 0, '')", (row,))
        return row

    def save(self, row: str, at: int, letters: str) -> asyncio.Future[None]:
        """Append ``letters`` to ``row`` at ``at`` in the open batch: a future done once it is committed."""
        loop = asyncio.get_running_loop()
        batch = self.batch
        if batch is None:
            batch = self.batch = []
            self.conn.execute("BEGIN IMMEDIATE")
            loop.call_soon(self._commit, batch)
        entry = f"{at}.1733478123456{letters}"
        cur = self.conn.cursor()
        cur.execute(_EMPTY if (at + 1) % TAIL == 0 else _APPEND, (at + 1, entry, row, at))
        if cur.rowcount != 1:
            raise RuntimeError(f"{row} is not at {at}")
        cur.close()
        done = loop.create_future()
        batch.append(done)
        return done

    def _commit(self, batch: list[asyncio.Future[None]]) -> None:
        self.batch = None
        self.conn.execute("COMMIT")
        for done in batch:
            if not done.done():
                done.set_result(None)


def floor_app(path: str | None = None):  # type: ignore[no-untyped-def]
    """The floor server's ASGI app, on a fresh SQLite file (or ``path``)."""
    from starlette.applications import Starlette
    from starlette.routing import WebSocketRoute

    store = _Store(path or os.path.join(tempfile.mkdtemp(), "floor.sqlite"))

    async def play(websocket: Any) -> None:
        await websocket.accept()
        row, at = store.open_row(), 0
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                return
            move = json.loads(message["text"])
            await store.save(row, at, move["moves"])
            at += 1
            answer = {"op": "moves", "at": at, "board": _BOARD, "score": 1234 + at, "over": False,
                      "won": False, "undos_left": 3, "ranked": True, "tile": [2, 3, 2], "helped": False}
            await websocket.send_text(json.dumps(answer, separators=(",", ":")))

    return Starlette(routes=[WebSocketRoute("/floor", play)])
