"""The game2048 web service: server-issued seeds, replay-verified scores, leaderboards.

``create_app(Settings.from_env())`` builds the ASGI app; ``game2048 serve`` runs it.
"""

from .app import create_app
from .config import Settings

__all__ = ["Settings", "create_app"]
