"""Game records ``(size, seed, log)`` and their replay: how a score is verified.

The log is a string over ``U D L R`` (moves) and ``Z`` (undo). Replaying it
rebuilds the game exactly; any step the rules forbid makes it a bad record.

>>> g = replay(4, 7, "")
>>> g.score, len([v for row in g.board for v in row if v])
(0, 2)
"""

from __future__ import annotations

from collections.abc import Sequence

from .game import Game
from .rules import DIRECTION_OF_LETTER, DIRECTIONS, UNDO_LETTER

_INDEX = {letter: DIRECTIONS.index(d) for letter, d in DIRECTION_OF_LETTER.items()}


class RecordError(ValueError):
    """A game record the rules do not allow; ``position`` is the 0-based log index."""

    def __init__(self, position: int, reason: str) -> None:
        super().__init__(f"bad record at log position {position}: {reason}")
        self.position = position
        self.reason = reason


def replay(size: int, seed: int, log: str, *, start: Sequence[Sequence[int]] | None = None,
           start_score: int = 0) -> Game:
    """Rebuild the game recorded as (size, seed, log).

    Raises ``RecordError`` naming the position and the reason for an unknown
    letter, an illegal move, a move after game over, a fourth undo or an undo
    with nothing to undo; ``ValueError`` for a bad size or seed. A game that
    began from a position (``Game.from_board``) replays with ``start`` (its
    board) and ``start_score``.
    """
    if not isinstance(log, str):
        raise RecordError(0, f"the log must be a string, got {type(log).__name__}")
    if start is None:
        game = Game(size, seed)
    else:
        game = Game.from_board(start, score=start_score, seed=seed)
        if game.size != size:
            raise ValueError(f"the start board is {game.size}x{game.size}, not {size}x{size}")
    t = game._t
    history = game._history
    for i, letter in enumerate(log):
        d = _INDEX.get(letter)
        if d is not None:
            if not game._play(d):
                if not t.can_move(game._board):
                    raise RecordError(i, f"move {letter!r} after game over")
                raise RecordError(i, f"move {letter!r} does not change the board")
        elif letter == UNDO_LETTER:
            if game.undos_left == 0:
                raise RecordError(i, "a fourth undo (3 per game)")
            if not history:
                raise RecordError(i, "undo with no move to take back")
            game.undo()
        else:
            raise RecordError(i, f"unknown letter {letter!r} (expected U, D, L, R or Z)")
    return game
