"""Games in play: the runner every transport calls (``runner``), starting, moving and finishing
a game (``starting``, ``moving``, ``finishing``), a move's answer (``answer``), the stores that keep
games between moves (``stores``) and what the server issues (``seeds``).
"""

from .answer import Position
from .finishing import finish
from .moving import State, committed, forget, keep_recent, play, play_kept, state
from .runner import Runner
from .starting import Started, start

__all__ = ["Position", "Runner", "Started", "State", "committed", "finish", "forget", "keep_recent", "play",
           "play_kept", "start", "state"]
