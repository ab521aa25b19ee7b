"""The terminal game without the terminal: a game in play, its best score and what to tell the player.

The screen (``screen.py``) turns keys into these calls and draws the result;
tests drive a ``Session`` directly with any dealer.

>>> from game2048.dealer import LocalDealer
>>> from game2048.terminal.scores import BestScores
>>> import tempfile, pathlib
>>> s = Session(LocalDealer(4, seed=5), BestScores(pathlib.Path(tempfile.mkdtemp()) / "best.json"))
>>> s.state.score, s.move("left") or s.move("right")
(0, True)
"""

from __future__ import annotations

from collections.abc import Callable

from ..dealer import Dealer, DealerError, Finished, State
from ..rules import TARGETS, Direction
from .scores import BestScores

#: What the summary says of a ranked game not (yet) on its board.
STANDING_NEWS = {
    "checking": "Being checked: it joins its board once that is done.",
    "held": "A score like this joins the board once a person has looked at it.",
    "moved": "On the engines board: the check found it plays like a program.",
    "hidden": "Taken off the boards by an operator.",
}


class Session:
    """One player at one board size: moves, undo, new games, the best score."""

    def __init__(self, dealer: Dealer, scores: BestScores, name: Callable[[], str] = lambda: "") -> None:
        self.dealer = dealer
        self.scores = scores
        self.size = dealer.size
        self.target = TARGETS[dealer.size]
        self._name = name
        self.message = ""
        self.finished: Finished | None = None
        self.state: State = dealer.open()
        self._won_seen = self.state.won
        self._moved = False

    @property
    def best(self) -> int:
        return max(self.scores.best(self.size), self.state.score)

    def move(self, direction: Direction) -> bool:
        """Play a move; False if it changes nothing (or the game is over)."""
        if self.state.over:
            return False
        try:
            state = self.dealer.move(direction)
        except DealerError as exc:
            self.message = str(exc)
            return False
        if state is None:
            return False
        self._moved = True
        self._show(state)
        return True

    def undo(self) -> bool:
        if self.finished is not None:
            self.message = "This game is finished: r starts a new one."
            return False
        try:
            state = self.dealer.undo()
        except DealerError as exc:
            self.message = str(exc)
            return False
        if state is None:
            self.message = "No undo left." if not self.state.undos_left else "Nothing to undo."
            return False
        self.message = f"Undone ({state.undos_left} left; this game is no longer ranked)."
        self.state = state
        return True

    def new_game(self) -> None:
        """Finish the game in play (its score counts) if a move was made, then open a new one."""
        summary = ""
        if self.finished is None and self._moved:
            summary = self._finish()
        elif self.finished is not None:
            summary = self._summary(self.finished)
        try:
            state = self.dealer.open()
        except DealerError as exc:
            self.message = str(exc)
            return
        self.finished = None
        self.message = f"Last game: {summary}" if summary else ""
        self.state = state
        self._won_seen = state.won
        self._moved = False

    def quit(self) -> None:
        """Leave: the best score is already saved; an unfinished server game stays open."""
        self.scores.offer(self.size, self.state.score)

    def _show(self, state: State) -> None:
        self.state = state
        self.message = ""
        self.scores.offer(self.size, state.score)
        if state.won and not self._won_seen:
            self._won_seen = True
            self.message = f"You made {self.target}! Keep playing, or r for a new game."
        if state.over:
            self._finish()

    def _finish(self) -> str:
        """Finish the game with the dealer; its summary ("" if the dealer could not)."""
        self.scores.offer(self.size, self.state.score)
        try:
            self.finished = self.dealer.finish(self._name())
        except DealerError as exc:
            self.message = str(exc)
            return ""
        summary = self._summary(self.finished)
        self.message = f"{'Game over' if self.state.over else 'Game ended'}: {summary} r: new game, q: quit."
        return summary

    @staticmethod
    def _summary(done: Finished) -> str:
        words = [f"{done.score} points."]
        if done.ranked and done.standing in STANDING_NEWS:
            words.append(STANDING_NEWS[done.standing])
        elif done.rank is not None:
            words.append(f"Rank {done.rank}.")
        if done.seed is not None:
            words.append(f"Seed {done.seed}.")
        return " ".join(words)
