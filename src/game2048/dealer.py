"""Who deals the tiles: one seam, two dealers (a seeded local game, or the server's ranked game).

Both have the same small interface (``open``, ``move``, ``undo``, ``finish``)
and answer with a ``State``; the terminal game never asks which one it holds.

>>> dealer = LocalDealer(4, seed=5)
>>> dealer.open().board == Game(4, 5).board
True
"""

from __future__ import annotations

import json
import secrets
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any, Protocol

from .game import Game
from .rules import DIRECTIONS, LETTERS, MAX_UNDOS, UNDO_LETTER, Direction, slide
from .spawn import MAX_SEED


@dataclass(frozen=True)
class State:
    """What a player sees of a game after each step."""

    board: list[list[int]]
    score: int
    over: bool
    won: bool
    undos_left: int
    ranked: bool


@dataclass(frozen=True)
class Finished:
    """A finished game: its seed is known now, and the server may have ranked it."""

    score: int
    seed: int | str | None  # a ranked game's revealed seed is a secret seed (a string)
    ranked: bool
    rank: int | None = None
    #: Where a ranked game stands (``checking``, ``listed``, ``held``, ``moved``, ``hidden``):
    #: a rank only once ``listed``.
    standing: str = "listed"


class DealerError(Exception):
    """The dealer could not do what was asked (a refused request, an unreachable server)."""


class Dealer(Protocol):
    size: int

    def open(self) -> State:
        """Start a new game and show its opening."""
        ...

    def move(self, direction: Direction) -> State | None:
        """Play a move; None (and nothing changes) if it would not change the board."""
        ...

    def undo(self) -> State | None:
        """Take back the last move; None if there is none or no undo is left."""
        ...

    def finish(self, name: str) -> Finished:
        """End the game (its score counts) under the player's name."""
        ...


def _state(game: Game) -> State:
    return State(game.board, game.score, game.over, game.won, game.undos_left, game.ranked)


class LocalDealer:
    """Tiles drawn here from a seed: practice games, never ranked by a server.

    The first game uses ``seed`` (a random one if None), or goes on with
    ``resume``, a game left in progress; each later game a fresh random seed.
    """

    def __init__(self, size: int, seed: int | None = None, *, resume: Game | None = None) -> None:
        self.size = size
        self._next_seed = seed
        #: a game left in progress: the first ``open`` goes on with it
        self._resume = resume
        self.game: Game | None = None

    def open(self) -> State:
        if self._resume is not None:
            self.game, self._resume = self._resume, None
            return _state(self.game)
        seed = secrets.randbelow(MAX_SEED) if self._next_seed is None else self._next_seed
        self._next_seed = None
        self.game = Game(self.size, seed)
        return _state(self.game)

    def move(self, direction: Direction) -> State | None:
        assert self.game is not None, "open() first"
        return _state(self.game) if self.game.move(direction) else None

    def undo(self) -> State | None:
        assert self.game is not None, "open() first"
        return _state(self.game) if self.game.undo() else None

    def finish(self, name: str) -> Finished:
        assert self.game is not None, "open() first"
        return Finished(score=self.game.score, seed=self.game.seed, ranked=False)


class ServerDealer:
    """A ranked game dealt by the server (``POST /api/games``, ``.../moves``, ``.../finish``).

    The seed stays on the server until the finish; every move is sent and the
    server answers with the new board, its new tile included. A move that
    would not change the board is refused here, without a request. A request
    that fails in transit is sent again with the same ``at``: the server
    answers a repeated request as it did the first time.
    """

    def __init__(
        self, base_url: str, size: int, *, mode: str = "classic", timeout: float = 10.0, retries: int = 3,
        bot: str | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.size = size
        self.mode = mode
        #: A declared bot's name: its games are ranked on the engines board (docs/bots.md).
        self.bot = bot
        self.timeout = timeout
        self.retries = retries
        self.game_id: str | None = None
        self._token = ""
        self._at = 0
        self._in_play = 0  # moves not taken back: what an undo can take back
        self._state: State | None = None

    def open(self) -> State:
        body: dict[str, Any] = {"size": self.size, "mode": self.mode}
        if self.bot is not None:
            body["bot"] = self.bot
        answer = self._post("/api/games", body)
        self.game_id, self._token = str(answer["id"]), str(answer["token"])
        self._at = int(answer.get("at", 0))
        self._in_play = 0
        self._state = self._read(answer)
        return self._state

    def move(self, direction: Direction) -> State | None:
        state = self._require()
        if direction not in DIRECTIONS:
            raise ValueError(f"direction must be one of {', '.join(DIRECTIONS)}, got {direction!r}")
        if state.over or slide(state.board, direction)[0] == state.board:
            return None
        self._state = self._send(LETTERS[direction])
        self._in_play += 1
        return self._state

    def undo(self) -> State | None:
        state = self._require()
        if not self._in_play or not state.undos_left:
            return None
        self._state = self._send(UNDO_LETTER)
        self._in_play -= 1
        return self._state

    def finish(self, name: str) -> Finished:
        self._require()
        answer = self._post(f"/api/games/{self.game_id}/finish", {"token": self._token, "name": name})
        return Finished(
            score=int(answer["score"]),
            seed=answer.get("seed"),
            ranked=bool(answer.get("ranked", False)),
            rank=answer.get("rank"),
            standing=str(answer.get("standing", "listed")),
        )

    # -- the wire -------------------------------------------------------

    def _require(self) -> State:
        if self._state is None:
            raise DealerError("no game: open() first")
        return self._state

    def _send(self, letters: str) -> State:
        answer = self._post(
            f"/api/games/{self.game_id}/moves", {"token": self._token, "at": self._at, "moves": letters}
        )
        self._at = int(answer["at"])
        return self._read(answer)

    def _read(self, answer: dict[str, Any]) -> State:
        try:
            return State(
                board=[[int(v) for v in row] for row in answer["board"]],
                score=int(answer["score"]),
                over=bool(answer["over"]),
                won=bool(answer["won"]),
                undos_left=int(answer.get("undos_left", MAX_UNDOS)),
                ranked=bool(answer.get("ranked", True)),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise DealerError(f"the server's answer is not a game state: {exc}") from None

    def _post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        data = json.dumps(body).encode()
        request = urllib.request.Request(
            self.base_url + path,
            data=data,
            method="POST",
            headers={"Content-Type": "application/json", "Accept": "application/json"},
        )
        for attempt in range(self.retries + 1):
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    answer = json.loads(response.read() or b"{}")
                break
            except urllib.error.HTTPError as exc:
                raise DealerError(_refusal(exc)) from None
            except (urllib.error.URLError, ConnectionError, TimeoutError, json.JSONDecodeError) as exc:
                if attempt == self.retries:
                    raise DealerError(f"cannot reach {self.base_url}: {_reason(exc)}") from None
                time.sleep(0.2 * (attempt + 1))
        if not isinstance(answer, dict):
            raise DealerError("the server's answer is not a JSON object")
        return answer


def _reason(exc: BaseException) -> str:
    return str(getattr(exc, "reason", None) or exc)


def _refusal(exc: urllib.error.HTTPError) -> str:
    """The server's own words for a refused request ({"error": ...}), with the status."""
    try:
        message = json.loads(exc.read()).get("error")
    except (ValueError, AttributeError, OSError):
        message = None
    return f"the server refused ({exc.code}): {message or exc.reason}"
