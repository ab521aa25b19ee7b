"""Choosing a move: presets, time limits and the public ``analyse`` / ``best_move``.

Preliminary version: a one-ply look-ahead in plain Python, so that callers can
code against the final signatures while the expectimax search is written.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..rules import DIRECTIONS, Direction, slide

PRESETS: tuple[str, ...] = ("fast", "normal", "strong")


def _check_preset(preset: str) -> str:
    if preset not in PRESETS:
        raise ValueError(f"preset must be one of {', '.join(PRESETS)}, got {preset!r}")
    return preset


def analyse(
    board: Sequence[Sequence[int]], *, preset: str = "fast", time_limit: float | None = None
) -> tuple[Direction | None, dict[str, float]]:
    """The best direction for ``board`` and a score for every legal direction.

    Returns ``(None, {})`` when no direction changes the board. The same board
    and setting always give the same answer.
    """
    _check_preset(preset)
    scores: dict[str, float] = {}
    for d in DIRECTIONS:
        moved, points = slide(board, d)
        if moved != [list(r) for r in board]:
            empty = sum(1 for row in moved for v in row if v == 0)
            scores[d] = float(points + 10 * empty)
    if not scores:
        return None, {}
    best = max(scores, key=lambda d: scores[d])
    return best, scores  # type: ignore[return-value]


def best_move(board: Sequence[Sequence[int]], *, preset: str = "fast") -> Direction | None:
    """The direction ``analyse`` picks, or None when no move is legal."""
    return analyse(board, preset=preset)[0]
