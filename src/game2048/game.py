"""A game of 2048: board, score, seeded spawns, undo and the move log.

>>> g = Game(size=4, seed=2048)
>>> g.move("left") or g.move("right")
True
>>> g.log in ("L", "R")
True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial

from .engine import tables
from .rules import (
    DEFAULT_SIZE,
    DIRECTIONS,
    LETTERS,
    MAX_UNDOS,
    TARGETS,
    UNDO_LETTER,
    Direction,
    board_exponents,
    check_size,
)
from .spawn import MAX_SEED, Seed, generator

#: A game's position without its log, as plain JSON values (see ``Game.snapshot``).
Snapshot = dict[str, object]

_LETTERS = tuple(LETTERS[d] for d in DIRECTIONS)
_DIRECTION_INDEX: dict[str, int] = {d: i for i, d in enumerate(DIRECTIONS)}
_DIRECTION_INDEX.update({LETTERS[d]: i for i, d in enumerate(DIRECTIONS)})

_LETTER_INDEX: dict[str, int] = {LETTERS[d]: i for i, d in enumerate(DIRECTIONS)}

_JSON_BOOL = {False: "false", True: "true"}

#: Spawns 0 and 1 are the opening tiles.
OPENING_TILES = 2


def direction_index(direction: str) -> int:
    """0 up, 1 down, 2 left, 3 right; accepts names ("left") and log letters ("L")."""
    try:
        return _DIRECTION_INDEX[direction]
    except (KeyError, TypeError):
        raise ValueError(
            f"direction must be one of {', '.join(DIRECTIONS)}, got {direction!r}"
        ) from None


class Game:
    """One game: ``move`` and ``undo`` change it, the properties describe it.

    ``Game(size, seed)`` opens with two tiles drawn from the seed: an integer
    ``0 <= seed < 2^53``, or a secret seed (32 lowercase hex digits, what the
    server deals ranked games from; see ``spawn.secret_seed``). With no seed a
    random integer one is chosen. Spawn k of the game (0 and 1 at the opening, then
    one per move in play) is a pure function of (seed, k, board), so undoing a
    move and making it again brings the same tile.
    """

    __slots__ = (
        "_board",
        "_draw",
        "_history",
        "_key",
        "_log",
        "_over",
        "_spawned",
        "_start",
        "_t",
        "_target_exp",
        "helped",
        "score",
        "seed",
        "size",
        "undos_left",
        "won",
    )

    def __init__(self, size: int = DEFAULT_SIZE, seed: Seed | None = None) -> None:
        if seed is None:
            import secrets  # only here: it costs more to import than the rest of the rules

            seed = secrets.randbelow(MAX_SEED)
        self._setup(size, seed)
        for index in range(OPENING_TILES):
            self._spawn(index)

    def _setup(self, size: int, seed: Seed) -> None:
        self.size = check_size(size)
        self._key, self._draw = generator(seed)
        self.seed = seed
        self.score = 0
        self.undos_left = MAX_UNDOS
        self.won = False
        #: Set by callers when a solver hint or autoplay chose a move; unranks the game.
        self.helped = False
        self._t = tables(size)
        self._board = 0
        # (board, score) before each move in play; its length numbers the next spawn
        self._history: list[tuple[int, int]] = []
        self._log: list[str] = []
        self._target_exp = TARGETS[size].bit_length() - 1
        self._over: bool | None = None
        # the bit offset of the tile the last letter spawned, when this process played it (None
        # after an undo, and for a resumed game's letters: ``last_tile`` then slides again)
        self._spawned: int | None = None
        # (board, score) a game made by from_board began with; None for an opening
        self._start: tuple[list[list[int]], int] | None = None

    @classmethod
    def from_board(cls, board: Sequence[Sequence[int]], *, score: int = 0, seed: Seed = 0) -> Game:
        """A game that starts from any position (for analysis, hints and tests).

        Its spawns are numbered as if the board were a fresh opening: the first
        move brings spawn 2. ``won`` starts True if the target is already on it.
        """
        exps = board_exponents(board)
        n = len(exps)
        if type(score) is not int or score < 0:
            raise ValueError(f"score must be a non-negative integer, got {score!r}")
        game = cls.__new__(cls)
        game._setup(n, seed)
        game.score = score
        game._board = game._t.pack(exps)
        game.won = game._t.max_exponent(game._board) >= game._target_exp
        game._start = (game.board, score)
        return game

    # -- keeping a game in play outside the process ---------------------

    def snapshot(self) -> Snapshot:
        """Everything the game needs to go on, except its log, as JSON values.

        ``undo`` holds (board, score) before each of the last moves in play that
        undo can still take back (at most ``undos_left`` of them), oldest first,
        so a snapshot stays small however long the game is.

        >>> g = Game(3, seed=5); _ = g.move("left") or g.move("right")
        >>> Game.resume(g.snapshot()).board == g.board
        True
        """
        history = self._history
        kept = list.__len__(history)
        tail = history[kept - min(self.undos_left, kept):]
        values = self._t.values
        return {
            "size": self.size, "seed": self.seed, "board": values(self._board), "score": self.score,
            "moves": len(history), "undos_left": self.undos_left, "won": self.won, "helped": self.helped,
            "undo": [[values(board), score] for board, score in tail],
        }

    def snapshot_json(self) -> str:
        """``snapshot()`` as compact JSON text, exactly ``json.dumps(snapshot(), separators=(",", ":"))``,
        built from each row's cached text (a server stores one with every move).

        >>> import json; g = Game(4, seed=9); _ = g.play("LDRU")
        >>> g.snapshot_json() == json.dumps(g.snapshot(), separators=(",", ":"))
        True
        """
        history = self._history
        kept = list.__len__(history)
        tail = history[kept - min(self.undos_left, kept):]
        text = self._t.values_json
        # a seed is an integer or 32 hex digits (``spawn.generator`` takes nothing else): no escapes
        seed = self.seed if type(self.seed) is int else f'"{self.seed}"'
        undo = ",".join(f"[{text(board)},{score}]" for board, score in tail)
        return (f'{{"size":{self.size},"seed":{seed},'
                f'"board":{text(self._board)},"score":{self.score},"moves":{len(history)},'
                f'"undos_left":{self.undos_left},"won":{_JSON_BOOL[self.won]},'
                f'"helped":{_JSON_BOOL[self.helped]},"undo":[{undo}]}}')

    def board_json(self) -> str:
        """``board`` as compact JSON text."""
        return self._t.values_json(self._board)

    def board_later(self) -> Callable[[], list[list[int]]]:
        """What makes ``board`` as it stands now, when called (later moves change nothing): for a
        caller that may never need the lists.

        >>> g = Game(4, seed=3); board, later = g.board, g.board_later(); _ = g.play("LRUD")
        >>> later() == board
        True
        """
        return partial(self._t.values, self._board)

    def compact(self, slack: int = 0) -> None:
        """Forget what no undo can reach and all but the last letter of the log, keeping the
        position, the spawn numbering and ``last_tile``: a game kept in memory between moves
        (a server's) then takes the same room however long it is. Afterwards ``log`` holds the
        letters since, as for a game resumed from its snapshot. With ``slack``, nothing is done
        until more than ``slack`` positions (or letters) could go: a game compacted after every
        move then pays for it once in ``slack`` moves, for at most ``slack`` positions more.

        >>> g = Game(4, 7); _ = g.play("LRLRLR"); board = g.board
        >>> g.compact(); g.play("U") + g.play("Z"), g.board == board, len(g.log)
        (2, True, 3)
        >>> g.compact(slack=8); len(g.log)
        3
        """
        history = self._history
        kept = list.__len__(history)
        if slack and kept <= slack and len(self._log) <= slack:
            return
        reach = min(self.undos_left, len(history), kept)
        # one position more than undo reaches: last_tile slides from the one before the last move
        keep = min(kept, max(reach, 1))
        if type(history) is _Tail:  # compacted before (a game kept between moves): trim in place
            history.skipped += kept - keep
            del history[:kept - keep]
        else:
            tail = list(history[kept - keep:])
            self._history = _Tail(len(history) - len(tail), tail)
        del self._log[:-1]

    @classmethod
    def resume(cls, snapshot: Snapshot, log: str = "") -> Game:
        """The game a ``snapshot`` was taken of: later spawns are the ones it would have had.

        Moves made after resuming go on from the same spawn index, so a game
        resumed any number of times deals exactly what ``replay(size, seed,
        log)`` deals. ``log`` (the log so far, which the snapshot leaves out) only
        starts the resumed game's ``log``. ValueError if the snapshot is not one.
        """
        try:
            size, seed, moves = snapshot["size"], snapshot["seed"], snapshot["moves"]
            undos_left, undo, score = snapshot["undos_left"], snapshot["undo"], snapshot["score"]
            if type(moves) is not int or type(undos_left) is not int:
                raise ValueError("moves and undos_left must be integers")
            if not 0 <= undos_left <= MAX_UNDOS or not isinstance(undo, list):
                raise ValueError(f"undos_left must be 0 to {MAX_UNDOS} and undo a list")
            if len(undo) != min(undos_left, moves):
                raise ValueError("undo must hold the positions the undos left can take back")
            game = cls.__new__(cls)
            game._setup(size, seed)  # type: ignore[arg-type]
            game._board, game.score = _packed(game, snapshot["board"], score)
            tail = [_packed(game, board, before) for board, before in undo]
        except (KeyError, TypeError) as exc:
            raise ValueError(f"not a game snapshot: {exc}") from None
        game._history = _Tail(moves - len(tail), tail)
        game.undos_left = undos_left
        game.won = bool(snapshot["won"])
        game.helped = bool(snapshot.get("helped", False))
        game._log = list(log)
        return game

    # -- play -----------------------------------------------------------

    def _spawn(self, index: int) -> None:
        self._board = self._t.spawn(self._board, index, self._key, self._draw)

    def move(self, direction: str) -> bool:
        """Play one move; False, and nothing changes, if it would not change the board."""
        return self.play(_LETTERS[direction_index(direction)]) == 1

    def _play(self, d: int) -> bool:
        """``move`` by direction index (0 up, 1 down, 2 left, 3 right)."""
        return self.play(_LETTERS[d]) == 1

    def undo(self) -> bool:
        """Take back the last move in play; False if none is left or undos are used up.

        At most three per game, and a game that used one is no longer ranked.
        ``won`` stays True: the target was reached.
        """
        return self.play(UNDO_LETTER) == 1

    def play(self, letters: str) -> int:
        """Play ``letters`` (``U D L R`` moves, ``Z`` undo) in order, as far as the rules allow.

        Returns how many were applied: it stops before the first unknown
        letter, move that changes nothing, or undo that is not allowed, and
        that letter and the rest leave the game as it was. Every move and undo
        of the game goes through here; replay runs a whole log in one call.
        ``record.refusal`` says why the letter it stopped at was refused.

        >>> g = Game(4, 7)
        >>> g.play("LRZ"), g.log
        (3, 'LRZ')
        """
        t, history, key = self._t, self._history, self._key
        steps, index_of = t.steps[self._draw], _LETTER_INDEX
        board, score, won = self._board, self.score, self.won
        target_exp = self._target_exp
        target = 1 << target_exp
        # the k-th move in play brings spawn k + 1 (0 and 1 opened the game)
        spawn = OPENING_TILES + len(history)
        applied = 0
        spawned = self._spawned
        for letter in letters:
            d = index_of.get(letter)
            if d is not None:
                moved = steps[d](board, spawn, key)
                if moved is None:
                    break
                spawn += 1
                history.append((board, score))
                board, points, spawned = moved
                score += points
                if points >= target and not won:
                    # the spawned tile (2 or 4) is never the target: this sees the merge
                    won = t.max_exponent(board) >= target_exp
            elif letter == UNDO_LETTER and history and self.undos_left:
                board, score = history.pop()
                spawn -= 1
                self.undos_left -= 1
                spawned = None
            else:
                break
            applied += 1
        if applied:
            self._board, self.score, self.won, self._spawned = board, score, won, spawned
            self._log.extend(letters[:applied])
            self._over = None
        return applied

    # -- what it looks like ---------------------------------------------

    @property
    def board(self) -> list[list[int]]:
        """The board as rows of tile values, 0 for empty."""
        return self._t.values(self._board)

    @property
    def log(self) -> str:
        """The record of the game: ``U D L R`` for moves, ``Z`` for undo."""
        return "".join(self._log)

    @property
    def moves(self) -> int:
        """Moves in play (a move taken back by undo does not count)."""
        return len(self._history)

    @property
    def over(self) -> bool:
        """True when no direction changes the board."""
        if self._over is None:
            self._over = not self._t.can_move(self._board)
        return self._over

    @property
    def max_tile(self) -> int:
        e = self._t.max_exponent(self._board)
        return 1 << e if e else 0

    @property
    def target(self) -> int:
        return 1 << self._target_exp

    @property
    def ranked(self) -> bool:
        """False once undo was used (or a solver helped): such games are kept, never ranked."""
        return self.undos_left == MAX_UNDOS and not self.helped

    def last_tile(self) -> tuple[int, int, int] | None:
        """Where the tile of the last letter landed, ``(row, col, value)``; None when that letter was
        an undo, or the game has no letter yet (what a server answers, so a client need not diff boards).

        >>> g = Game(4, 7)
        >>> g.move("left") and g.board[g.last_tile()[0]][g.last_tile()[1]] == g.last_tile()[2]
        True
        """
        if not self._log or self._log[-1] == UNDO_LETTER:
            return None
        t, offset = self._t, self._spawned
        if offset is None:  # a letter this game was resumed with: slide again to see the tile
            if not list.__len__(self._history):
                return None  # (a resumed game's history may hold no position: see ``_Tail``)
            slid, _ = t.move(self._history[-1][0], _LETTER_INDEX[self._log[-1]])
            offset = ((self._board ^ slid).bit_length() - 1) // t.bits * t.bits
        row, col = divmod(offset // t.bits, t.n)
        return row, col, 1 << ((self._board >> offset) & t.cell_mask)

    def legal_moves(self) -> list[Direction]:
        """The directions that would change the board, in up, down, left, right order."""
        return [d for i, d in enumerate(DIRECTIONS) if self._t.move(self._board, i)[0] != self._board]

    def record(self) -> dict[str, object]:
        """The game's record ``{size, seed, log}``: ``replay`` rebuilds the game from it.

        A game made by ``from_board`` also has ``start``: ``{"board", "score"}``
        it began with (``replay(..., start=board, start_score=score)``).
        """
        record: dict[str, object] = {"size": self.size, "seed": self.seed, "log": self.log}
        if self._start is not None:
            board, score = self._start
            record["start"] = {"board": [list(row) for row in board], "score": score}
        return record

    # -- copies and pickles ---------------------------------------------

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        """Pickle (and ``copy``) the whole game: board, score, log, undos and what undo can reach.

        The row tables and the spawn key are rebuilt from size and seed on the
        other side, so a pickle is small and a copy deals the same tiles.
        """
        history = self._history
        state = (
            self.size, self.seed, self._board, self.score, self.undos_left, self.won, self.helped,
            list(list.__iter__(history)), getattr(history, "skipped", 0), self.log, self._start,
        )
        return _restore, state

    def __copy__(self) -> Game:
        return _restore(*self.__reduce__()[1])

    def __deepcopy__(self, memo: dict[int, object]) -> Game:
        return _restore(*self.__reduce__()[1])

    def _repr_svg_(self) -> str:
        """The board as SVG: how a notebook shows a game (see ``game2048.svg``)."""
        from .svg import svg

        return svg(self, size=360)

    def __repr__(self) -> str:
        return f"Game(size={self.size}, seed={self.seed!r}, score={self.score}, moves={self.moves})"

    def __str__(self) -> str:
        """The board as text, tiles right-aligned, ``.`` for empty, then the score.

        >>> print(Game.from_board([[2, 0, 0], [0, 16, 0], [0, 0, 128]], score=40))
          2   .   .
          .  16   .
          .   . 128
        score: 40
        """
        board = self.board
        width = max(len(str(v)) for row in board for v in row)
        lines = [" ".join(str(v or ".").rjust(width) for v in row) for row in board]
        return "\n".join([*lines, f"score: {self.score}"])


def _restore(size: int, seed: int, board: int, score: int, undos_left: int, won: bool, helped: bool,
             history: list[tuple[int, int]], skipped: int, log: str,
             start: tuple[list[list[int]], int] | None) -> Game:
    """The game ``Game.__reduce__`` took apart."""
    game = Game.__new__(Game)
    game._setup(size, seed)
    game._board, game.score, game.undos_left, game.won, game.helped = board, score, undos_left, won, helped
    game._history = _Tail(skipped, history) if skipped else list(history)
    game._log = list(log)
    game._start = start
    return game



def _packed(game: Game, board: object, score: object) -> tuple[int, int]:
    """A board of ``game``'s size (rows of tile values) and a score, packed; ValueError if not one."""
    exps = board_exponents(board, game.size)
    if type(score) is not int or score < 0:
        raise ValueError(f"score must be a non-negative integer, got {score!r}")
    return game._t.pack(exps), score


class _Tail(list):  # type: ignore[type-arg]
    """The last few entries of a long move history; ``len`` also counts the ones left out.

    A resumed game keeps only the positions undo can still reach, while its
    length still numbers the next spawn.
    """

    def __init__(self, skipped: int, tail: list[tuple[int, int]]) -> None:
        if skipped < 0:
            raise ValueError("moves must be at least the number of undo positions")
        super().__init__(tail)
        self.skipped = skipped

    def __len__(self) -> int:
        return self.skipped + list.__len__(self)
