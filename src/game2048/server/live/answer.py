"""A move's answer: the one table of its parts (``PARTS``), and every shape made from it.

From the table come ``Position`` (what ``moving`` answers), ``answer`` (the JSON
value), ``answer_text`` (the socket's text) and the API's schemas (``api.schemas``:
a move's answer, and the game-start answer with the parts marked ``at_start``);
a test holds the page's reader to it. A new field is one ``Part`` here and the
page's use of it (``of_game``: read from the game; otherwise ``moving`` gives it).

>>> answer(position(3, __import__("game2048").Game(3, 1), tile=(0, 1, 2)))["tile"]
{'row': 0, 'col': 1, 'value': 2}
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import MISSING, dataclass, field, make_dataclass
from typing import Any

Tile = tuple[int, int, int]


@dataclass(frozen=True, slots=True)
class Part:
    """One field of a move's answer: its name, how it is written (``kind``: count, flag, board,
    tile, tiles, letters), what it means, and its value where a mover gives none (``...``: it
    always gives one, as pydantic writes a required field)."""

    name: str
    kind: str
    doc: str | None = None
    default: Any = ...
    #: Read from the game the answer is made from (``getattr(game, name)``).
    of_game: bool = False
    #: Also in the answer that starts a game (``POST /api/games``).
    at_start: bool = False


PARTS: tuple[Part, ...] = (
    Part("at", "count", "The length of the game's log (moves and undos) after this answer.", at_start=True),
    Part("board", "board", "Rows of tile values, 0 for empty, the new tile included.", at_start=True),
    Part("score", "count", of_game=True, at_start=True),
    Part("over", "flag", "No move changes the board.", of_game=True, at_start=True),
    Part("won", "flag", "The target tile was reached at least once.", of_game=True, at_start=True),
    Part("undos_left", "count", of_game=True, at_start=True),
    Part("ranked", "flag", "No undo was used and no hint asked for through the game (a hint or autoplay "
                           "told at the finish unranks too).", of_game=True),
    Part("tile", "tile", "Where the tile dealt by the last letter landed; null when that letter was an undo.",
         None),
    Part("helped", "flag", "A hint was asked for through this game: it will not be ranked.", False),
    Part("applied", "letters", "With skip_illegal: the letters played, in order.", None),
    Part("tiles", "tiles", "With skip_illegal: the tile of each letter played (null for an undo).", None),
)
_OF_GAME = tuple(p.name for p in PARTS if p.of_game)


def _board(p: Any) -> list[list[int]]:
    """The board as rows of tile values, 0 for empty: made the first time it is read, when the
    mover gave ``made_board`` (``Game.board_later``) in its place."""
    rows = p._board
    if rows is None:
        rows = p._board = p.made_board()
    return rows


def _equal(a: Any, b: object) -> bool:
    if type(b) is not type(a):
        return NotImplemented
    return all(getattr(a, p.name) == getattr(b, p.name) for p in PARTS)


#: The answer to a move, as the mover returns it (read-only by use: not frozen, whose ``__init__``
#: costs a move more than the rest of its answer). Its fields are ``PARTS`` in order (the board
#: kept as ``_board``), then ``board_text`` (the board as compact JSON, where the mover had it at
#: hand) and ``made_board`` (see ``_board``): a socket answers with the text, so the lists of a
#: move's board are made only for an answer that reads them.
Position = make_dataclass(
    "Position",
    [("_board" if p.kind == "board" else p.name, Any,
      field(default=MISSING if p.default is ... else p.default)) for p in PARTS]
    + [("board_text", str | None, field(default=None, compare=False, repr=False)),
       ("made_board", Callable[[], list[list[int]]] | None, field(default=None, compare=False, repr=False))],
    namespace={"board": property(_board), "__eq__": _equal, "__module__": __name__},
    slots=True, eq=False)


def position(at: int, game: Any, *, lazy: bool = False, **given: Any) -> Any:
    """The answer for ``game`` at log length ``at``: the ``of_game`` parts read from it unless
    ``given``, the others ``given``. ``lazy``: the board as text now, as lists only when read."""
    values = {name: getattr(game, name) for name in _OF_GAME} | given
    if lazy:
        return Position(at=at, _board=None, **values, board_text=game.board_json(),
                        made_board=game.board_later())
    return Position(at=at, _board=game.board, **values)


def _tile(tile: Tile | None) -> dict[str, int] | None:
    return None if tile is None else {"row": tile[0], "col": tile[1], "value": tile[2]}


def _tile_text(tile: Tile | None) -> str:
    return "null" if tile is None else f'{{"row":{tile[0]},"col":{tile[1]},"value":{tile[2]}}}'


def _same(value: object) -> object:
    return value


def _json(value: object) -> str:
    return json.dumps(value, separators=(",", ":"))


#: Each kind as a JSON value (where it differs from the attribute) and as JSON text. Letters (the
#: move alphabet) and the names hold no character JSON escapes.
_VALUE: dict[str, Callable[[Any], Any]] = {
    "tile": _tile, "tiles": lambda tiles: None if tiles is None else [_tile(t) for t in tiles]}
_TEXT: dict[str, Callable[[Any], str]] = {
    "count": str, "flag": {False: "false", True: "true"}.__getitem__,
    "board": _json, "tile": _tile_text, "letters": lambda s: "null" if s is None else f'"{s}"',
    "tiles": lambda tiles: "null" if tiles is None else "[" + ",".join(map(_tile_text, tiles)) + "]"}
_VALUES = tuple((p.name, _VALUE.get(p.kind, _same)) for p in PARTS)


def _writer(part: Part) -> Callable[[Any], str]:
    """What writes ``part`` of a position as ``"name":value`` text."""
    key, name, text = f'"{part.name}":', part.name, _TEXT[part.kind]
    if part.kind == "board":  # the text the mover had at hand, else the lists
        return lambda p: key + (p.board_text if p.board_text is not None else text(p.board))
    return lambda p: key + text(getattr(p, name))


_WRITERS = tuple(map(_writer, PARTS))


def answer(p: Any) -> dict[str, object]:
    """A position as the API answers it, without building a model: the JSON value of each part."""
    return {name: value(getattr(p, name)) for name, value in _VALUES}


def answer_text(op: str, p: Any) -> str:
    """``{"op": op, **answer(p)}`` as compact JSON text, exactly what ``json.dumps`` makes of it,
    written out: the socket sends one for every move, and the encoder's walk over the board's
    lists costs more than the move's own work."""
    return '{"op":"' + op + '",' + ",".join([write(p) for write in _WRITERS]) + "}"
