"""SQLite: a game's newest moves kept in its own row, so that a move writes one row.

A move on SQLite is one statement: the compare-and-set ``UPDATE`` of the game's
row that sets ``at`` and ``live`` also appends the move to the row's ``tail``
(``tail = tail || ?``), where it waits with the few moves before it. The move
that carries the log past a multiple of ``TAIL_LETTERS`` letters moves the
whole tail into ``game_moves`` (one row a move, as PostgreSQL writes them) in
its own transaction. So a move writes one page (the row's) where it wrote two
(the row's and an appended row's), in one statement where it took four (BEGIN,
UPDATE, INSERT, COMMIT), and the row stays small however long the game: every
write of a move is independent of the game's length.

An entry is ``{at}.{ms}{letters}``: the log length the letters start at, the
Unix millisecond they arrived, and the letters (of ``UDLRZ``), e.g.
``"12.1733478123456LD"``. Readers (the log, the arrival times, the finish)
take ``game_moves`` and the tail together.

The same move that takes the tail to ``game_moves`` writes the row's position
(``live``), as does a move on a game read from the store; the others leave it
as it was and note in ``live_at`` the ``at`` it stands at, so the usual move
builds and writes no snapshot. A read of the game plays the tail's letters
since ``live_at`` on it (``letters_since``): at most ``TAIL_LETTERS`` and the
last message's.
"""

from __future__ import annotations

import re

#: The tail is moved to ``game_moves`` by the move that carries the log past a multiple of this:
#: at most this many moves wait in a row (about 20 bytes each), plus the last message's.
TAIL_LETTERS = 32

_ENTRY = re.compile(r"(\d+)\.(\d+)([UDLRZ]+)")


def entry(at: int, ms: int, letters: str) -> str:
    """One move's entry in the tail.

    >>> entry(12, 1733478123456, "LD")
    '12.1733478123456LD'
    """
    return f"{at}.{ms}{letters}"


def entries(tail: str | None) -> list[tuple[int, int, str]]:
    """The moves of a tail: ``(at, ms, letters)`` each, in the order they were saved.

    >>> entries("0.1733478123456L1.1733478123500DR")
    [(0, 1733478123456, 'L'), (1, 1733478123500, 'DR')]
    >>> entries("")
    []
    """
    if not tail:
        return []
    found, end = [], 0
    for match in _ENTRY.finditer(tail):
        if match.start() != end:
            break
        at, ms, letters = match.groups()
        found.append((int(at), int(ms), letters))
        end = match.end()
    if end != len(tail):
        raise ValueError(f"a stored tail of moves is not in its format: {tail[:80]!r}")
    return found


def moves_out(expected_at: int, letters: str) -> bool:
    """Whether the save of ``letters`` at log length ``expected_at`` moves the tail to
    ``game_moves`` (it carries the log past a multiple of ``TAIL_LETTERS``).

    >>> [moves_out(at, "L") for at in (0, 30, 31, 32)]
    [False, False, True, False]
    """
    return expected_at // TAIL_LETTERS != (expected_at + len(letters)) // TAIL_LETTERS


def letters_since(tail: str | None, at: int) -> str:
    """The letters of a tail's moves saved from log length ``at`` on, in order (the moves before
    ``at``, saved when the row's position was written with every move, are left out).

    >>> letters_since("0.1733478123456L1.1733478123500DR3.1733478123600U", 1)
    'DRU'
    """
    return "".join(letters for start, _, letters in entries(tail) if start >= at)
