"""A game's positions, to step through in a notebook: an SVG strip, or a slider with ipywidgets.

>>> from game2048 import Game
>>> g = Game(3, seed=5); _ = g.move("left") or g.move("right")
>>> steps = Steps.of(g)
>>> len(steps), steps[0].score, steps[-1].board == g.board
(2, 0, True)

In a notebook ``steps`` shows every position side by side (the move that led
to each under it), ``steps[k]`` draws position k, and ``steps.slider()``
gives a slider over them (``pip install "game2048[notebook]"`` for
ipywidgets; without it, the strip is shown instead).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from .game import Game
from .record import positions
from .rules import DIRECTION_OF_LETTER, UNDO_LETTER
from .svg import svg

#: Pictures in a strip at most; a longer game shows evenly spaced positions and says so.
STRIP_LIMIT = 120


@dataclass(frozen=True)
class Position:
    """Position ``index`` of a game: after ``letter`` (``U D L R`` or ``Z`` for undo; "" for the start)."""

    index: int
    letter: str
    board: list[list[int]]
    score: int

    def _repr_svg_(self) -> str:
        return svg(self.board, size=240)

    @property
    def caption(self) -> str:
        what = {"": "start", UNDO_LETTER: "undo"}.get(self.letter) or DIRECTION_OF_LETTER[self.letter]
        return f"{self.index}: {what}, {self.score}"


class Steps(Sequence[Position]):
    """Every position of the game ``(size, seed, log)``, from its start (or ``start``) to its end."""

    def __init__(self, size: int, seed: int, log: str, *, start: Sequence[Sequence[int]] | None = None,
                 start_score: int = 0) -> None:
        self.size, self.seed, self.log = size, seed, log
        self._positions = [
            Position(n, log[n - 1] if n else "", game.board, game.score)
            for n, game in positions(size, seed, log, start=start, start_score=start_score)
        ]

    @classmethod
    def of(cls, game: Game) -> Steps:
        """The positions of ``game`` so far."""
        record: dict[str, Any] = game.record()
        start = record.get("start") or {}
        return cls(game.size, game.seed, game.log, start=start.get("board"),
                   start_score=start.get("score", 0))

    def __len__(self) -> int:
        return len(self._positions)

    def __getitem__(self, k: int) -> Position:  # type: ignore[override]
        """Position k: 0 the start, k after the log's k-th letter; -1 the last."""
        if not isinstance(k, int):
            raise TypeError("positions are numbered by integers")
        return self._positions[k]

    def __iter__(self) -> Iterator[Position]:
        return iter(self._positions)

    def strip(self, size: int = 120, limit: int = STRIP_LIMIT) -> str:
        """HTML: the positions side by side (a scrolling row), each captioned with its move and score."""
        shown = list(range(len(self._positions)))
        note = ""
        if len(shown) > limit:
            step = -(-len(shown) // limit)
            shown = [*shown[::step][: limit - 1], shown[-1]]
            note = (f"<p>every {step}th of {len(self._positions)} positions; "
                    "<code>steps[k]</code> draws any</p>")
        cells = "".join(
            f'<figure style="margin:0 4px;flex:none;text-align:center">{svg(p.board, size=size)}'
            f'<figcaption style="font:12px sans-serif">{p.caption}</figcaption></figure>'
            for p in (self._positions[k] for k in shown)
        )
        return f'{note}<div style="display:flex;overflow-x:auto;padding:4px 0">{cells}</div>'

    def _repr_html_(self) -> str:
        return self.strip()

    def slider(self) -> Any:
        """An ipywidgets slider over the positions, the board drawn above it; the strip without ipywidgets."""
        try:
            import ipywidgets as widgets
        except ImportError:
            return self  # a notebook shows the strip
        picture = widgets.HTML(svg(self._positions[0].board, size=300))
        caption = widgets.Label(self._positions[0].caption)
        slider = widgets.IntSlider(value=0, min=0, max=len(self._positions) - 1, description="position")

        def show(change: dict[str, Any]) -> None:
            p = self._positions[change["new"]]
            picture.value = svg(p.board, size=300)
            caption.value = p.caption

        slider.observe(show, names="value")
        return widgets.VBox([picture, caption, slider])
