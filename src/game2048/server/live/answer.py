"""A move's answer: the one table of its parts (``PARTS``), and every shape made from it.

From the table come ``Position`` (what ``moving`` answers), ``answer`` (the JSON
value), ``answer_text`` (the socket's text) and the API's schemas (``api.schemas``:
a move's answer, and the game-start answer with the parts marked ``at_start``);
a test holds the page's reader to it. A new field is one ``Part`` here and the
page's use of it (``of_game``: read from the game; otherwise ``moving`` gives it).

>>> answer(position(__import__("game2048").Game(3, 1), at=0, tile=(0, 1, 2)))["tile"]
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
    Part("board", "board", "Rows of tile values, 0 for empty, the new tile included.", of_game=True,
         at_start=True),
    Part("score", "count", of_game=True, at_start=True),
    Part("over", "flag", "No move changes the board.", of_game=True, at_start=True),
    Part("won", "flag", "The target tile was reached at least once.", of_game=True, at_start=True),
    Part("undos_left", "count", of_game=True, at_start=True),
    Part("ranked", "flag", "No undo was used, no hint asked for through the game, and it is not a daily "
                           "try started past its network's allowance (a hint or autoplay told at the "
                           "finish unranks too).", of_game=True, at_start=True),
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


def _tile(tile: Tile | None) -> dict[str, int] | None:
    return None if tile is None else {"row": tile[0], "col": tile[1], "value": tile[2]}


def _tile_text(tile: Tile | None) -> str:
    return "null" if tile is None else f'{{"row":{tile[0]},"col":{tile[1]},"value":{tile[2]}}}'


def _tiles_text(tiles: list[Tile | None] | None) -> str:
    return "null" if tiles is None else "[" + ",".join(map(_tile_text, tiles)) + "]"


def _letters(letters: str | None) -> str:
    return "null" if letters is None else f'"{letters}"'


def _same(value: object) -> object:
    return value


def _json(value: object) -> str:
    return json.dumps(value, separators=(",", ":"))


#: Each kind as a JSON value where it differs from the attribute (``answer``).
_VALUE: dict[str, Callable[[Any], Any]] = {
    "tile": _tile, "tiles": lambda tiles: None if tiles is None else [_tile(t) for t in tiles]}
_VALUES = tuple((p.name, _VALUE.get(p.kind, _same)) for p in PARTS)

#: Each kind as JSON text, an f-string field for the attribute ``%s`` (``answer_text``). Letters (the
#: move alphabet) and names hold no character JSON escapes. The board: the text the mover had at
#: hand, else the lists.
_TEXT = {"count": "{%s}", "flag": "{_BOOL[%s]}", "tile": "{_tile_text(%s)}",
         "letters": "{_letters(%s)}", "tiles": "{_tiles_text(%s)}",
         "board": "{p.board_text if p.board_text is not None else _json(p.board)}"}


def _written_out(source: str) -> Callable[..., Any]:
    """A function the table writes, as ``dataclasses`` writes an ``__init__``: every move is answered
    through these two, and a loop over the parts would cost a move more than its answer."""
    scope = {"Position": Position, "_BOOL": {False: "false", True: "true"}, "_json": _json,
             "_tile_text": _tile_text, "_tiles_text": _tiles_text, "_letters": _letters}
    exec(source, scope)
    return scope.pop(source.split()[1].split("(")[0])  # type: ignore[no-any-return]


#: ``position(game, at=..., **parts)``: the answer for ``game``; each ``of_game`` part read from it
#: unless given, the others given (or their default). ``lazy``: the board as text now, and as
#: lists only when read.
position = _written_out(
    "def position(game, *, lazy=False, "
    + ", ".join(p.name + ("=None" if p.of_game else "" if p.default is ... else f"={p.default!r}")
                for p in PARTS)
    + "):\n    return Position("
    + ", ".join("None if lazy else game.board if board is None else board" if p.kind == "board" else
                f"game.{p.name} if {p.name} is None else {p.name}" if p.of_game else p.name for p in PARTS)
    + ", game.board_json() if lazy else None, game.board_later() if lazy else None)")

#: ``answer_text(op, p)``: ``{"op": op, **answer(p)}`` as compact JSON text, exactly what
#: ``json.dumps`` makes of it, written out: the socket sends one for every move, and the encoder's
#: walk over the board's lists costs more than the move's own work.
answer_text = _written_out(
    "def answer_text(op, p):\n    return f'{{\"op\":\"{op}\","
    + ",".join(f'"{p.name}":' + _TEXT[p.kind].replace("%s", f"p.{p.name}") for p in PARTS) + "}}'")


def answer(p: Any) -> dict[str, object]:
    """A position as the API answers it, without building a model: the JSON value of each part."""
    return {name: value(getattr(p, name)) for name, value in _VALUES}
