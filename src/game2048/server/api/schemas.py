"""The API's typed requests and answers: every body is checked here, at the edge.

Strict models: "4" is not 4 and true is not 1. The bounds come from the
project's one table of limits (``game2048.limits``).
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, create_model

from ...limits import MAX_LOG, MAX_MOVES, MAX_SEED, MAX_SIZE, MIN_SIZE, NAME_MAX
from ...rules import DEFAULT_SIZE, Direction
from ...solver.review import Class
from .. import live
from ..live.answer import PARTS, Position, answer
from ..moderation.reports import REASONS
from ..records.records import Board as Standing
from ..records.records import Mode, RecordMode, Unranked
from ..records.standing import Shown

#: A record's seed: a secret seed (what the server deals from: 32 lowercase hex digits, 128 bits,
#: a string so that JSON carries it exactly) or an integer seed below 2^53 (practice games, and
#: ranked games from before secret seeds).
SecretSeed = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{32}$")]
AnySeed = Annotated[int, Field(ge=0, lt=MAX_SEED)] | SecretSeed


class _Strict(BaseModel):
    # "4" is not 4 and true is not 1: a wrong type is the client's mistake to hear about
    model_config = ConfigDict(strict=True)


class NewGameIn(_Strict):
    size: int = Field(DEFAULT_SIZE, ge=MIN_SIZE, le=MAX_SIZE, description="Board size: 3, 4, 5 or 6.")
    mode: Mode = Field("classic", description="classic: a fresh random seed; daily: the day's shared seed.")
    bot: str | None = Field(None, max_length=200, description=(
        "A bot game, under this name (the name rule applies): dealt and verified like any game, "
        "ranked on the engines board, never the players' (docs/bots.md). A name a player holds, or "
        "one like it, is refused (409 `name_held`, `name_confusable`) without its `name_key`."))
    name_key: str | None = Field(None, max_length=64, description=(
        "With `bot`: the key of the bot's name, where its author holds that name as a player."))


Board = list[list[int]]
NAME_HELP = (f"Nickname, 1 to {NAME_MAX} characters after cleaning (see `game2048.server.records.names`); "
             "a refused name answers 422 with a `code` that starts with `name_`.")
#: Characters in a game token at most (the server's are 36).
MAX_TOKEN = 128
Token = Field(max_length=MAX_TOKEN, description="The token from POST /api/games; it is never put in a URL.")


class TileOut(BaseModel):
    row: int = Field(description="0-based, from the top.")
    col: int = Field(description="0-based, from the left.")
    value: int = Field(description="2 or 4.")


#: Each kind of a move answer's part (``live.answer.PARTS``) as the schema types it.
_TYPES: dict[str, object] = {"count": int, "flag": bool, "board": Board, "tile": TileOut | None,
                             "tiles": list[TileOut | None] | None, "letters": str | None}


def _parts(at_start: bool = False) -> dict[str, Any]:
    return {p.name: (_TYPES[p.kind], Field(p.default, description=p.doc))
            for p in PARTS if p.at_start or not at_start}


class _Answer(BaseModel):
    @classmethod
    def of(cls, p: Position) -> Self:
        return cls.model_validate(answer(p))


#: The answer to a move: ``live.answer.PARTS``.
PositionOut = create_model("PositionOut", __base__=_Answer, **_parts())


class _Started(BaseModel):
    id: str
    token: str = Field(description="Send it with every move and the finish; keep it out of URLs.")
    size: int
    mode: Mode
    date: dt.date | None = Field(None, description="The UTC date of a daily game.")
    bot: str | None = Field(None, description="The bot's name, for a bot game (the engines board).")
    tries_left: int | None = Field(None, description=(
        "For a daily game: how many more of today's daily games of this size this browser may start."))

    @classmethod
    def of(cls, started: live.Started) -> Self:
        given = {name: getattr(started, name) for name in _Started.model_fields}
        return cls.model_validate(given | answer(started.position))


#: The answer that starts a game: its own fields, and the parts of a move's answer marked ``at_start``
#: (the board is the opening: two tiles the server dealt).
NewGameOut = create_model("NewGameOut", __base__=_Started, **_parts(at_start=True))


class MovesIn(_Strict):
    token: str = Token
    at: int = Field(ge=0, le=MAX_LOG, description="The length of the game's log as the client knows it.")
    moves: str = Field(min_length=1, max_length=MAX_MOVES,
                       description=f"1 to {MAX_MOVES} letters: U D L R moves, Z undo; applied in order.")
    skip_illegal: bool = Field(False, description=(
        "Drop a letter the rules refuse instead of refusing the request (keys pressed before their "
        "tiles were known); the answer's `applied` and `tiles` say what was played."))


class TokenIn(_Strict):
    token: str = Token


class StateOut(PositionOut):
    log: str = Field(description="The game's log so far.")


class GameHintIn(_Strict):
    token: str = Token
    at: int = Field(ge=0, le=MAX_LOG, description="The length of the game's log: the position to hint for.")


class FinishIn(_Strict):
    token: str = Token
    name: str | None = Field(None, max_length=200, description=(
        NAME_HELP + " Required, except in a bot game (recorded under its bot's name). A name held by "
        "another (its first finish took it) answers 409 `name_held`, a look-alike of one 409 "
        "`name_confusable`."))
    name_key: str | None = Field(None, max_length=64, description=(
        "The name key the first finish under this name answered: needed for a held name."))
    log: str | None = Field(None, max_length=MAX_LOG, description=(
        "Optional: the log as the client has it. It must be the server's log (409 otherwise), "
        f"or go on from it by at most {MAX_MOVES} letters, which are played first."))
    helped: bool = Field(False, description="True if a solver hint or autoplay chose a move: not ranked.")
    abandoned: bool = Field(False, description=(
        "True if the player left the game for a new one before it ended (the page says so of a daily "
        "try it replaces): kept, not ranked. A game that is over, or won, is not abandoned."))


class NameNotHeldOut(BaseModel):
    error: str = Field(description="Why, in words a person can act on.")
    code: Literal["names_per_day"] = "names_per_day"
    limit: int = Field(description="Names one network may newly hold a UTC day.")
    next_at: str = Field(description="When the next day begins (ISO 8601, UTC).")


class FinishOut(BaseModel):
    verified: bool
    ranked: bool
    score: int
    max_tile: int
    rank: int | None = Field(description=(
        "Place on the leaderboard; null when not ranked, or not on a board (yet): see standing."))
    seed: AnySeed | None = Field(description=(
        "The game's seed, now public: a secret seed (32 hex digits, 128 bits) for every game the server "
        "deals; null for a daily game until no more moves for its day can come (everyone plays that seed "
        "today)."))
    board: Standing = Field("players", description=(
        "The leaderboard it is on: players, or engines (a bot game)."))
    name_key: str | None = Field(None, description=(
        "On the finish that first used this name (and its retries): the key later finishes under it send. "
        "Keep it: only its hash is stored."))
    standing: Shown = Field("listed", description=(
        "Where the game stands: checking (its engine-like check is not done yet: not on a board), "
        "listed (on its board), moved (the check put it on the engines board), held (it waits for an "
        "operator: an outcome people rarely reach, see held_for) or hidden (an operator took it off the "
        "boards). docs/bots.md."))
    helped: bool = Field(False, description=(
        "The solver helped: a hint through the game, a hint for a board it stood on asked bare "
        "(`POST /api/hint`) by the same client, or the finish's own `helped`. Kept, never ranked."))
    unranked: Unranked | None = Field(None, description=(
        "Why a game that kept to the rules is not ranked, where undo and help do not say: "
        "`abandoned` (left for a new game before it ended), `tries` (a daily try started past its "
        "network's allowance)."))
    name_not_held: NameNotHeldOut | None = Field(None, description=(
        "Set when the name was free but this finish did not take it: its network newly held "
        "GAME2048_NAMES_PER_DAY names today. The game is recorded under the name all the same; "
        "a finish under it after `next_at` can hold it."))


class StartIn(_Strict):
    board: Board = Field(max_length=MAX_SIZE, description="The position the game began from.")
    score: int = Field(0, ge=0, lt=MAX_SEED, description="Its score at the start.")


class StartOut(BaseModel):
    board: Board
    score: int


class RecordIn(_Strict):
    size: int = Field(ge=MIN_SIZE, le=MAX_SIZE)
    seed: int = Field(ge=0, lt=MAX_SEED)
    log: str = Field(max_length=MAX_LOG, description="Moves U D L R and undos Z, in order.")
    score: int = Field(ge=0, lt=MAX_SEED, description="The score the player saw.")
    name: str = Field(max_length=200, description=NAME_HELP)
    start: StartIn | None = Field(None, description="For a game begun from a position (the browser's load).")
    name_key: str | None = Field(None, max_length=64, description="The key of a name this client holds.")


class RecordKeptOut(BaseModel):
    id: str
    verified: bool
    ranked: bool = Field(description="Always false: practice games are kept and shown, never ranked.")
    score: int
    max_tile: int


#: A name key as the server hands it out: 32 lowercase hex digits (``records.owners.name_key``).
NameKey = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{32}$")]


class RecoverIn(_Strict):
    code: NameKey = Field(description="A name key as /me shows it (its recovery code): 32 hex digits.")


class RecoveredOut(BaseModel):
    names: list[str] = Field(description="The names the code holds; the code is each one's `name_key`.")
    name_key: str = Field(description="The code, to send as `name_key` with finishes under these names.")


class ReleaseIn(_Strict):
    name: str = Field(max_length=200, description=NAME_HELP)
    name_key: NameKey = Field(description="The name's key: only its holder can free it.")


class ReleasedOut(BaseModel):
    name: str = Field(description="The name as held, now free for anyone (its records stay under it).")


class EntryOut(BaseModel):
    rank: int
    name: str
    score: int
    max_tile: int
    moves: int
    game_id: str | None = Field(description="Links to /games/{id}; null until no more moves for a daily "
                                            "game's day can come.")
    finished_at: dt.datetime
    engine_like: bool = Field(False, description="On the engines board because it plays like the solver.")


class LeaderboardOut(BaseModel):
    board: Standing = Field(description="players: people; engines: bot games and engine-like games.")
    size: int
    mode: Mode
    date: dt.date | None
    entries: list[EntryOut]


class RecordOut(BaseModel):
    id: str
    size: int
    seed: AnySeed
    mode: RecordMode
    date: dt.date | None
    log: str
    score: int
    max_tile: int
    moves: int
    ranked: bool
    name: str
    finished_at: dt.datetime
    start: StartOut | None = Field(None, description="Where a practice game began; null for an opening.")
    board: Standing = Field("players", description="The leaderboard a ranked game is on.")
    engine_like: bool = Field(False, description=(
        "A players' game the engine-like check moved to the engines board (docs/bots.md)."))
    likeness: dict[str, object] | None = Field(None, description=(
        "The engine-like check's figures, once done: moves, mattering (positions where the choice "
        "matters), agreement (the share of those where the solver's move was played), slips, engine_like."))
    times: list[int] | None = Field(None, description=(
        "When each letter of the log reached the server, in ms since the game was issued (letters sent "
        "together share one time); null for practice games and games from before times were kept."))
    standing: Shown = Field("listed", description=(
        "Where the game stands: checking (its engine-like check is not done yet: not on a board), "
        "listed (on its board), moved (the check put it on the engines board), held (it waits for an "
        "operator: an outcome people rarely reach, see held_for) or hidden (an operator took it off the "
        "boards). docs/bots.md."))
    held_for: str | None = Field(None, description="Why a held game waits for an operator: outcome.")


class ReportIn(_Strict):
    reason: Literal[REASONS] = Field(description=(  # type: ignore[valid-type]
        "program (it plays like a program), name (the name is offensive or impersonates someone), or other."))


class ReportOut(BaseModel):
    reports: int = Field(description="Clients whose reports of this game wait for an operator's decision.")


class HintIn(_Strict):
    size: int = Field(ge=MIN_SIZE, le=MAX_SIZE)
    board: list[list[int]] = Field(max_length=MAX_SIZE, description="Rows of tile values, 0 for empty.")
    seed: int | None = Field(None, ge=0, lt=MAX_SEED, description=(
        "With log: the practice game (an integer seed, from its opening) the board comes from. The "
        "server replays it; such a board is no ranked game's, and is answered at autoplay's pace."))
    log: str | None = Field(None, max_length=MAX_LOG, description="The practice game's log (U D L R Z).")


class HintOut(BaseModel):
    move: Literal["up", "down", "left", "right"] | None = Field(description="null when no move is legal.")
    scores: dict[str, float]


class MoveOut(BaseModel):
    n: int = Field(description="1-based position of the move's letter in the log (undos count).")
    played: Direction
    best: Direction = Field(description="The solver's move; equal to played when the played move is as good.")
    loss: float = Field(ge=0, description="0 exactly when played == best; see docs/review.md.")
    class_: Class = Field(alias="class")


class ReviewOut(BaseModel):
    size: int
    seed: AnySeed
    preset: str
    accuracy: float = Field(ge=0, le=100)
    counts: dict[Class, int]
    moves: list[MoveOut] = Field(description="One entry per U D L R letter of the log, in order.")


class PendingOut(BaseModel):
    status: Literal["pending"]
    done: int = Field(description="Moves graded so far.")
    total: int = Field(description="Moves to grade.")
