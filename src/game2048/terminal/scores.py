"""Best scores per board size, kept in a small JSON file in the user data directory.

A broken or foreign file never stops the game: it is read as "no best yet"
and written afresh.
"""

from __future__ import annotations

import json
import os
from pathlib import Path


def default_path() -> Path:
    """``terminal.json`` in the user data directory (e.g. ``~/.local/share/game2048`` on Linux)."""
    from platformdirs import user_data_path

    return user_data_path("game2048", appauthor=False) / "terminal.json"


class BestScores:
    """``best(size)`` and ``offer(size, score)``; saved at once when a best improves."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or default_path()
        self._best = self._load()

    def _load(self) -> dict[str, int]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            best = data["best"]
            return {str(k): v for k, v in best.items() if type(v) is int and v >= 0}
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return {}

    def best(self, size: int) -> int:
        return self._best.get(str(size), 0)

    def offer(self, size: int, score: int) -> bool:
        """Keep ``score`` if it beats the best for ``size``; True if it did."""
        if score <= self.best(size):
            return False
        self._best[str(size)] = score
        self._save()
        return True

    def _save(self) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_suffix(".tmp")
            tmp.write_text(json.dumps({"best": self._best}, sort_keys=True), encoding="utf-8")
            os.replace(tmp, self.path)
        except OSError:
            pass  # a read-only home still plays; the best is kept for this session
