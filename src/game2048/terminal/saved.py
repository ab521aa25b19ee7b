"""The terminal game in progress per board size, kept when the player quits, resumed by ``game2048 play``.

A game is kept as its record ``{size, seed, log}`` in ``games.json`` beside
the best scores; resuming replays it, so a saved game is exactly the game
that was left, undos included, and a file that does not replay (broken,
edited, from elsewhere) is discarded with a note rather than stopping the game.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from ..game import Game
from ..record import replay
from .scores import default_path as scores_path


def default_path() -> Path:
    """``games.json`` in the user data directory, beside ``terminal.json``."""
    return scores_path().with_name("games.json")


class SavedGames:
    """``take(size)`` the kept game of a size, ``keep(game)``, ``forget(size)``."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or default_path()

    def _load(self) -> dict[str, object]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError):
            return {"broken": True}
        games = data.get("games") if isinstance(data, dict) else None
        return games if isinstance(games, dict) else {"broken": True}

    def take(self, size: int) -> tuple[Game | None, str]:
        """The game kept for ``size`` (None if there is none) and a note for the player."""
        games = self._load()
        record = games.get(str(size))
        if record is None and "broken" not in games:
            return None, ""
        try:
            if not isinstance(record, dict):
                raise ValueError("not a record")
            game = replay(size, record["seed"], record["log"])
        except (KeyError, TypeError, ValueError):
            self.forget(size)
            return None, f"The saved {size}x{size} game could not be read: discarded, a new game starts."
        if game.over:
            self.forget(size)
            return None, ""
        return game, f"Resumed your {size}x{size} game ({game.moves} moves); play --new starts afresh."

    def keep(self, game: Game) -> None:
        """Keep ``game`` for its size (a finished game is forgotten instead)."""
        if game.over:
            self.forget(game.size)
            return
        self._write(game.size, game.record())

    def forget(self, size: int) -> None:
        self._write(size, None)

    def _write(self, size: int, record: object) -> None:
        games = {k: v for k, v in self._load().items() if k != "broken"}
        if record is None:
            games.pop(str(size), None)
        else:
            games[str(size)] = record
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_suffix(".tmp")
            tmp.write_text(json.dumps({"games": games}, sort_keys=True), encoding="utf-8")
            os.replace(tmp, self.path)
        except OSError:
            pass  # a read-only home still plays; the game is just not kept
