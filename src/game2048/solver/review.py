"""Game review: the solver grades every move of a game, like a chess engine's analysis.

``review(size, seed, log)`` replays the record and, before each move (undone
moves too), asks the solver for the value of every legal direction. The
played move's *loss* is how far its value falls short of the best one's, in
units of a live board's value (below); the loss gives the move a class and a
score, and the game an accuracy. Definitions, thresholds and how they were
chosen: ``docs/review.md``.

>>> r = review(3, 0, "LURD")
>>> [m["n"] for m in r["moves"]], sorted(r["counts"]) == sorted(CLASSES)
([1, 2, 3, 4], True)
>>> all(m["loss"] == 0 for m in r["moves"] if m["played"] == m["best"])
True
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal

from ..record import RecordError, positions, refusal, replay
from ..rules import DIRECTION_OF_LETTER, UNDO_LETTER, exponent
from ..spawn import Seed
from .search import PRESETS, analyse, heuristic_for

Class = Literal["best", "good", "inaccuracy", "mistake", "blunder"]
#: From best to worst.
CLASSES: tuple[Class, ...] = ("best", "good", "inaccuracy", "mistake", "blunder")

#: The loss at which each class begins (a move with a smaller loss is in the
#: class before). Chosen by ``bench/review_calibration.py`` from the losses of
#: solver, corner-method, greedy and random games; see ``docs/review.md``.
THRESHOLDS: dict[Class, float] = {"inaccuracy": 0.01, "mistake": 0.02, "blunder": 0.2}

#: A move's accuracy is ``100 * exp(-loss / ACCURACY_SCALE)``; the game's is the mean.
ACCURACY_SCALE = 0.01

#: How a review shows a direction (the command's report and the review page).
ARROWS: dict[str, str] = {"up": "↑", "down": "↓", "left": "←", "right": "→"}

#: The default review preset.
DEFAULT_PRESET = "normal"

Progress = Callable[[int, int], None]


def board_weight(board: Sequence[Sequence[int]]) -> float:
    """What the solver's evaluation puts at stake on ``board``: the unit of loss there.

    Two terms of the evaluation change from move to move: order (it charges
    ``monotonicity * e ** power`` per step of exponent ``e`` along every row
    and column) and room (``empty`` per empty cell of every row and column).
    The weight of the board is their full size: every tile's order charge
    plus every empty cell's credit, each counted once for its row and once
    for its column. A careless move costs the evaluation in proportion to
    what it puts out of order, so dividing by this weight makes an early
    slip with small tiles and a late one with big tiles, and slips on
    different board sizes, comparable (``docs/review.md``).

    >>> board_weight([[2, 4, 0], [0, 0, 0], [0, 0, 0]])  # 2 * (47 * (1 + 2 ** 4) + 270 * 7)
    5378.0
    """
    h = heuristic_for(len(board))
    order = sum(exponent(v) ** h.monotonicity_power for row in board for v in row if v)
    room = sum(1 for row in board for v in row if not v)
    return 2 * (h.monotonicity * order + h.empty * room)


def grade(loss: float, *, same: bool = False) -> Class:
    """The class of a move that loses ``loss``; ``same``: it is the solver's own move.

    >>> grade(0.0, same=True), grade(0.0), grade(THRESHOLDS["mistake"]), grade(10.0)
    ('best', 'good', 'mistake', 'blunder')
    """
    if same:
        return "best"
    cls: Class = "good"
    for name, start in THRESHOLDS.items():
        if loss >= start:
            cls = name
    return cls


def move_accuracy(loss: float) -> float:
    """0 to 100: 100 for a loss of 0, falling by a factor e every ``ACCURACY_SCALE`` of loss."""
    return 100.0 * math.exp(-loss / ACCURACY_SCALE)


def _check_preset(preset: str) -> str:
    if preset not in PRESETS:
        raise ValueError(f"preset must be one of {', '.join(PRESETS)}, got {preset!r}")
    return preset


def _round(loss: float) -> float:
    """Four significant figures, and never a positive loss rounded to 0."""
    return float(f"{loss:.4g}") if loss > 0 else 0.0


def graded_count(log: str) -> int:
    """How many entries a review of ``log`` has: one per move letter, none for undo."""
    return sum(1 for letter in log if letter in DIRECTION_OF_LETTER)


def grade_moves(
    size: int,
    seed: Seed,
    log: str,
    preset: str = DEFAULT_PRESET,
    *,
    start: int = 0,
    stop: int | None = None,
    start_board: Sequence[Sequence[int]] | None = None,
) -> Iterator[dict[str, Any]]:
    """The entry of every move letter of ``log[start:stop]``, in order, as the solver sees it.

    ``log`` must be a valid record (``review`` checks it first); the game is
    replayed from the start to ``start`` without the solver, so a long review
    can be made in pieces. Each entry is ``{n, played, best, loss, class}``,
    ``n`` being the 1-based position of the letter in the log. A game that
    began from a position (a practice game) gives it as ``start_board``.
    """
    _check_preset(preset)
    stop = len(log) if stop is None else stop
    for i, game in positions(size, seed, log[:stop], start=start_board):
        if i >= stop:
            break
        letter = log[i]  # the letter played from this position
        if letter == UNDO_LETTER or i < start:
            continue
        played = DIRECTION_OF_LETTER[letter]
        board = game.board
        best, values = analyse(board, preset=preset)
        if best is None or played not in values:
            raise RecordError(i, refusal(game, letter))
        gap = values[best] - values[played]
        if gap <= 0:
            best, gap = played, 0.0  # a tie: the played move is as good as any
        loss = _round(gap / board_weight(board))
        yield {"n": i + 1, "played": played, "best": best, "loss": loss,
               "class": grade(loss, same=best == played)}


def summarise(size: int, seed: Seed, preset: str, moves: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The review dict for ``moves`` (entries from ``grade_moves``): accuracy and counts added."""
    counts = dict.fromkeys(CLASSES, 0)
    for m in moves:
        counts[m["class"]] += 1
    accuracy = sum(move_accuracy(m["loss"]) for m in moves) / len(moves) if moves else 100.0
    return {"size": size, "seed": seed, "preset": preset, "accuracy": round(accuracy, 1),
            "counts": counts, "moves": list(moves)}


def review(
    size: int,
    seed: Seed,
    log: str,
    preset: str = DEFAULT_PRESET,
    *,
    start_board: Sequence[Sequence[int]] | None = None,
    progress: Progress | None = None,
) -> Review:
    """Grade every move of the game ``(size, seed, log)`` with the solver's ``preset``.

    Returns ``{size, seed, preset, accuracy, counts, moves}``: ``moves`` has
    one entry ``{n, played, best, loss, class}`` per ``U D L R`` letter of the
    log (undone moves too; ``Z`` has none), ``n`` the letter's 1-based
    position in the log, ``played`` and ``best`` direction names; ``loss`` is
    0 and ``class`` ``"best"`` exactly when ``played == best``. ``accuracy``
    (0 to 100) is the mean of the moves' accuracies; ``counts`` the number of
    moves in each class. ``progress(done, total)`` is called after each move.
    A game that began from a position (``Game.from_board``) gives it as ``start_board``.

    Raises ``RecordError`` (a ``ValueError``) for a record the rules do not
    allow, before any search; ``ValueError`` for a bad size, seed or preset.
    The dict is a ``Review``: a notebook shows it as a summary and the worst moves.
    """
    _check_preset(preset)
    replay(size, seed, log, start=start_board)
    total = graded_count(log)
    moves: list[dict[str, Any]] = []
    for entry in grade_moves(size, seed, log, preset, start_board=start_board):
        moves.append(entry)
        if progress is not None:
            progress(len(moves), total)
    return Review(summarise(size, seed, preset, moves), log=log, start_board=start_board)


class Review(dict):  # type: ignore[type-arg]
    """The dict ``review`` returns, which a notebook shows as its summary and its worst moves.

    It is exactly the JSON dict (``json.dumps`` gives the same text); the log
    and start board it was made from ride along as attributes, to draw the
    boards before the worst moves.
    """

    def __init__(self, result: dict[str, Any], *, log: str = "",
                 start_board: Sequence[Sequence[int]] | None = None) -> None:
        super().__init__(result)
        self.log = log
        self.start_board = [list(row) for row in start_board] if start_board is not None else None

    def _repr_html_(self) -> str:
        from html import escape

        from ..svg import svg

        size, counts = self["size"], self["counts"]
        head = (f"<p><b>{size}×{size} game, seed {self['seed']}</b>: {len(self['moves'])} moves reviewed "
                f"({escape(self['preset'])} preset), accuracy <b>{self['accuracy']:.1f}</b></p>")
        table = "".join(f"<td style='padding:0 8px'>{name}: {counts[name]}</td>" for name in CLASSES)
        bad = worst(self["moves"])
        if not bad:
            return f"{head}<table><tr>{table}</tr></table><p>Every move was as good as the solver's.</p>"
        boards = boards_before(size, self["seed"], self.log, {m["n"] for m in bad}, self.start_board)
        figures = "".join(
            f'<figure style="margin:0 6px;flex:none;text-align:center">'
            f'{svg(boards[m["n"]], size=150, arrow=m["best"]) if m["n"] in boards else ""}'
            f'<figcaption style="font:12px sans-serif">move {m["n"]}: played {m["played"]} '
            f'{ARROWS[m["played"]]}, better {m["best"]} {ARROWS[m["best"]]}<br>{m["class"]}, '
            f'loss {m["loss"]:.3g}</figcaption></figure>'
            for m in bad
        )
        return (f"{head}<table><tr>{table}</tr></table><p>Worst moves (the arrow is the better move):</p>"
                f'<div style="display:flex;overflow-x:auto">{figures}</div>')


def boards_before(size: int, seed: Seed, log: str, wanted: set[int],
                  start: Sequence[Sequence[int]] | None = None) -> dict[int, list[list[int]]]:
    """The board before the letters at 1-based positions ``wanted`` of ``log`` (played from ``start``)."""
    from ..record import positions

    return {n + 1: game.board for n, game in positions(size, seed, log, start=start) if n + 1 in wanted}


def worst(moves: Iterable[dict[str, Any]], count: int = 5) -> list[dict[str, Any]]:
    """The ``count`` moves with the largest loss, worst first (ties: earlier first); none with loss 0."""
    return sorted((m for m in moves if m["loss"] > 0), key=lambda m: (-m["loss"], m["n"]))[:count]
