"""Where a finished game stands, and what the player is told of it.

A ranked players' game is ``checking`` from its finish until its engine-like check
is done (``reviews.checks``). Then it is ``listed`` on the players' board, or on the
engines board when it plays like the solver (the player sees it as ``moved``), or
``held`` for an operator when its outcome is one people rarely reach (a tile at or
above the size's threshold, ``GAME2048_HOLD_TILES``): no program, however it plays,
reaches the players' board that way without a person's decision. An operator may
also ``hide`` a game (``moderation``); a standing an operator set is ``decided`` and
no check or report moves it again. Only a ``listed`` game has a rank.
"""

from __future__ import annotations

from typing import Any, Literal

#: A game's standing as the ``games`` table keeps it.
Standing = Literal["checking", "listed", "held", "hidden"]
#: What the player is told: the standing, with a listed game the check moved shown as ``moved``.
Shown = Literal["checking", "listed", "held", "hidden", "moved"]


def parse_hold_tiles(text: str) -> dict[int, int]:
    """``"3:512,4:2048"`` → ``{3: 512, 4: 2048}``; ``""``, ``"0"`` or ``"off"``: nothing is held.

    >>> parse_hold_tiles("3:512, 4:2048")
    {3: 512, 4: 2048}
    """
    if text.strip() in ("", "0", "off"):
        return {}
    try:
        pairs = [part.split(":") for part in text.split(",")]
        tiles = {int(size): int(tile) for size, tile in pairs}
    except ValueError:
        raise ValueError(f"hold tiles: {text!r} is not 'size:tile,...' (e.g. '4:2048')") from None
    if any(tile < 2 or tile & (tile - 1) for tile in tiles.values()):
        raise ValueError(f"hold tiles: {text!r}: each tile must be a power of two")
    return tiles


def after_check(size: int, max_tile: int, engine_like: bool, hold_tiles: dict[int, int]) -> dict[str, Any]:
    """The ``games`` columns that place a ranked players' game once its check is done.

    >>> after_check(4, 4096, False, {4: 2048})
    {'standing': 'held', 'held_for': 'outcome'}
    >>> after_check(4, 4096, True, {4: 2048})["board"]
    'engines'
    """
    if engine_like:
        return {"standing": "listed", "board": "engines"}
    if size in hold_tiles and max_tile >= hold_tiles[size]:
        return {"standing": "held", "held_for": "outcome"}
    return {"standing": "listed"}


def shown(standing: str, engine_like: bool) -> Shown:
    """What the player is told of a game's standing."""
    return "moved" if standing == "listed" and engine_like else standing  # type: ignore[return-value]
