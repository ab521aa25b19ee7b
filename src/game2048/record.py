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
from .rules import DIRECTION_OF_LETTER, UNDO_LETTER
from .spawn import Seed, check_seed


class RecordError(ValueError):
    """A game record the rules do not allow; ``position`` is the 0-based log index."""

    def __init__(self, position: int, reason: str) -> None:
        super().__init__(f"bad record at log position {position}: {reason}")
        self.position = position
        self.reason = reason


def replay(size: int, seed: Seed, log: str, *, start: Sequence[Sequence[int]] | None = None,
           start_score: int = 0) -> Game:
    """Rebuild the game recorded as (size, seed, log).

    ``seed`` is an integer ``0 <= seed < 2^53`` or a secret seed (a string of
    32 lowercase hex digits); each draws its tiles from its own generator
    (``docs/spawns.md``).

    Raises ``RecordError`` naming the position and the reason for an unknown
    letter, an illegal move, a move after game over, a fourth undo or an undo
    with nothing to undo; ``ValueError`` for a bad size or seed. A game that
    began from a position (``Game.from_board``) replays with ``start`` (its
    board) and ``start_score``.
    """
    if not isinstance(log, str):
        raise RecordError(0, f"the log must be a string, got {type(log).__name__}")
    check_seed(seed)  # Game(size, None) would choose a seed: a record has one
    if start is None:
        game = Game(size, seed)
    else:
        game = Game.from_board(start, score=start_score, seed=seed)
        if game.size != size:
            raise ValueError(f"the start board is {game.size}x{game.size}, not {size}x{size}")
    done = game._apply(log)
    if done == len(log):
        return game
    letter = log[done]
    if letter in DIRECTION_OF_LETTER:
        if game.over:
            raise RecordError(done, f"move {letter!r} after game over")
        raise RecordError(done, f"move {letter!r} does not change the board")
    if letter == UNDO_LETTER:
        if game.undos_left == 0:
            raise RecordError(done, "a fourth undo (3 per game)")
        raise RecordError(done, "undo with no move to take back")
    raise RecordError(done, f"unknown letter {letter!r} (expected U, D, L, R or Z)")
