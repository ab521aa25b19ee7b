"""A hint asked for through a game in play: over HTTP and over the socket, the same call.

The solver's time counts against the asking client's hint budget, and the
game is marked helped (``mover.hint``) before anything is answered.
"""

from __future__ import annotations

from typing import Any

from . import mover


def hint_through_game(state: Any, client: str, game_id: str, *, token: str, at: int) -> mover.Hinted:
    """The solver's move for game ``game_id`` at log length ``at``; ``state`` is the app's state."""
    from ...solver import hint

    def solve(board: list[list[int]]):  # type: ignore[no-untyped-def]
        with state.hint_budget.spend(client, "hint"):
            return hint(board, state.settings.hint_time)

    return mover.hint(state.store, state.secret, game_id, token=token, at=at, solve=solve)
