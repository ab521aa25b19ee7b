"""Game records ``(size, seed, log)`` and their replay: how a score is verified.

The log is a string over ``U D L R`` (moves) and ``Z`` (undo). Replaying it
rebuilds the game exactly; any step the rules forbid makes it a bad record.

>>> g = replay(4, 7, "")
>>> g.score, len([v for row in g.board for v in row if v])
(0, 2)
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from .game import Game
from .limits import ALPHABET
from .rules import DIRECTION_OF_LETTER, MAX_UNDOS, UNDO_LETTER
from .spawn import Seed, check_seed


class RecordError(ValueError):
    """A game record the rules do not allow; ``position`` is the 0-based log index."""

    def __init__(self, position: int, reason: str) -> None:
        super().__init__(f"bad record at log position {position}: {reason}")
        self.position = position
        self.reason = reason


def opening(size: int, seed: Seed, start: Sequence[Sequence[int]] | None = None,
            start_score: int = 0) -> Game:
    """The game as a record begins: dealt from ``seed``, or from the position ``start`` (a game that
    began from a position) with ``start_score``."""
    check_seed(seed)  # Game(size, None) would choose a seed: a record has one
    if start is None:
        return Game(size, seed)
    game = Game.from_board(start, score=start_score, seed=seed)
    if game.size != size:
        raise ValueError(f"the start board is {game.size}x{game.size}, not {size}x{size}")
    return game


def refusal(game: Game, letter: str) -> str:
    """Why the rules refuse ``letter`` in ``game`` as it stands: the one wording every part uses
    (replay, the server's moves, the review).

    >>> refusal(Game.from_board([[2, 4, 2], [4, 2, 4], [2, 4, 2]]), "L")
    "move 'L' after game over"
    >>> refusal(Game(4, 7), "Z")
    'undo with no move to take back'
    """
    if letter in DIRECTION_OF_LETTER:
        if game.over:
            return f"move {letter!r} after game over"
        return f"move {letter!r} does not change the board"
    if letter == UNDO_LETTER:
        if game.undos_left == 0:
            return f"a fourth undo ({MAX_UNDOS} per game)"
        return "undo with no move to take back"
    return unknown_letter(letter)


def unknown_letter(letter: str) -> str:
    """The refusal of a letter that is no move and no undo, in every part's words.

    >>> unknown_letter("X")
    "unknown letter 'X' (expected U, D, L, R or Z)"
    """
    return f"unknown letter {letter!r} (expected {', '.join(ALPHABET[:-1])} or {ALPHABET[-1]})"


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
    game = opening(size, seed, start, start_score)
    done = game.play(log)
    if done != len(log):
        raise RecordError(done, refusal(game, log[done]))
    return game


def positions(size: int, seed: Seed, log: str, *, start: Sequence[Sequence[int]] | None = None,
              start_score: int = 0) -> Iterator[tuple[int, Game]]:
    """Walk a record: ``(0, game)`` at its opening, then ``(n, game)`` after each letter ``n`` (1-based).

    The same ``Game`` is yielded each time, played on between yields: read it
    (``board``, ``score``) before asking for the next. A letter the rules refuse
    raises ``RecordError`` as ``replay`` does.

    >>> [(n, g.score) for n, g in positions(4, 7, "LR")][0]
    (0, 0)
    """
    game = opening(size, seed, start, start_score)
    yield 0, game
    for n, letter in enumerate(log, start=1):
        if game.play(letter) != 1:
            raise RecordError(n - 1, refusal(game, letter))
        yield n, game


def undone(log: str) -> set[int]:
    """The 1-based positions of the moves in ``log`` that a later undo took back.

    >>> sorted(undone("LRZZUD"))
    [1, 2]
    """
    stack: list[int] = []
    taken: set[int] = set()
    for n, letter in enumerate(log, start=1):
        if letter == UNDO_LETTER:
            taken.add(stack.pop())
        else:
            stack.append(n)
    return taken
