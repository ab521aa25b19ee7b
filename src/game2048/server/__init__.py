"""The game2048 web service: server-issued seeds, replay-verified scores, leaderboards.

``create_app(Settings.from_env())`` builds the ASGI app; ``game2048 serve`` runs it.
Both are imported on first use, so that the ``game2048`` command and the library
do not load the web framework (and work without the ``server`` extra).
"""

from __future__ import annotations

from typing import Any

__all__ = ["Settings", "create_app"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from .app import create_app

        return create_app
    if name == "Settings":
        from .config import Settings

        return Settings
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
