"""Ranked games in play: the server deals every tile, and keeps the seed until the finish.

``start`` issues a game and answers its opening board; ``play`` applies moves
to it (the one function that the HTTP route, the WebSocket and the finish
call); ``state`` says where a game stands; ``finish`` turns it into its
record, checked by the server's own replay, and reveals the seed.

A move costs the same however long the game is: the store keeps a snapshot
of the position (``Game.snapshot``) beside the log (SQLite writes it every few
moves, and a read brings it up to date, ``live.stores.tail``), new letters are
applied to it and appended to the log, and the game this process played last is
kept in memory (``recent.RecentGames``), so the next move on it is one write. ``at`` is
the length of the log; a request names the ``at`` it was made from, so a
retry is recognised and answered as the first time, and a fork (other letters
from an earlier ``at``) is refused.

A game started as a bot's (``bot``) is dealt and verified like any other and
ranked on the engines board; a game that asked for a hint through itself
(``hint``) is never ranked, whatever its finish says.

>>> deadline_for("daily", date(2026, 3, 1)).isoformat()
'2026-03-02T00:10:00+00:00'
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field, fields, replace
from datetime import UTC, date, datetime, time, timedelta
from functools import partial
from time import monotonic, perf_counter
from typing import Any

from sqlalchemy import Connection
from sqlalchemy.orm import Session, sessionmaker

from ...game import Game, Snapshot
from ...limits import ALPHABET, MAX_LOG, MAX_MOVES
from ...record import refusal, replay, unknown_letter
from ...rules import SIZES
from .. import metrics
from ..errors import ClientError
from ..limits.rate import Hit
from ..records import owners
from ..records.arrivals import times_text
from ..records.records import (
    DAILY_GRACE,
    MODES,
    Finished,
    Mode,
    check_name,
    could_be_game_id,
    deadline_for,
    finish_answer,
    new_game_id,
)
from ..storage.db import utc_now
from .commits import GroupCommit
from .recent import IN_MEMORY, RecentGames
from .seeds import check_token, classic_seed, client_key, daily_seed, game_token
from .stores import Live, LiveStore

__all__ = ["DAILY_GRACE", "Position", "Started", "Tries", "deadline_for", "finish", "hint", "play", "start",
           "state"]
#: Times a request re-reads a game that another request changed at the same moment.
ATTEMPTS = 3
#: A finish keeps reading the game again for this many seconds while moves still land on it:
#: they become part of the record (each attempt replays only those), rather than a 409 for a
#: player whose last moves were still arriving. Only the token's holder can make those moves.
FINISH_SECONDS = 2.0
_LETTERS = frozenset(ALPHABET)
#: What a replay for a retry from far back is run inside: ``with charge(): ...`` counts its cost.
Charge = Callable[[], AbstractContextManager[None]]

#: The games this process played lately, kept in memory (``recent.RecentGames``).
_recent = RecentGames()


def keep_recent(max_bytes: int) -> None:
    """Bound the games this process keeps in memory to about ``max_bytes`` (GAME2048_RECENT_BYTES)."""
    _recent.bound(max_bytes)


def forget(game_id: str | None = None) -> None:
    """Drop what this process keeps in memory of game ``game_id`` (of every game when None): for
    whoever changes a game in the store by hand, so that its next move reads the store again."""
    _recent.forget(game_id)


@dataclass(slots=True, eq=False)
class Position:
    """The answer to a move: where the game stands after it (read-only by use: not frozen, whose
    ``__init__`` costs a move more than the rest of its answer)."""

    at: int
    #: ``board``, or None until ``made_board`` makes it.
    _board: list[list[int]] | None
    score: int
    over: bool
    won: bool
    undos_left: int
    ranked: bool
    #: Where the last letter's tile landed, ``(row, col, value)``; None after an undo or at the opening.
    tile: tuple[int, int, int] | None = None
    #: A hint was asked for through this game (the server's own word): it is not ranked.
    helped: bool = False
    #: With ``skip_illegal``: the letters applied (the others were refused and dropped), and the
    #: tile of each (None for an undo), so a client can play them out one by one.
    applied: str | None = None
    tiles: list[tuple[int, int, int] | None] | None = None
    #: ``board`` as compact JSON text, when the mover had it at hand (``api.schemas.answer_text``).
    board_text: str | None = field(default=None, compare=False, repr=False)
    #: Makes ``board`` the first time it is read (``Game.board_later``): a socket's answer is the
    #: text, so the lists of a move's board are made only for an answer that reads them.
    made_board: Callable[[], list[list[int]]] | None = field(default=None, compare=False, repr=False)

    @property
    def board(self) -> list[list[int]]:
        """The board as rows of tile values, 0 for empty."""
        rows = self._board
        if rows is None:
            rows = self._board = self.made_board()  # type: ignore[misc]
        return rows

    def __eq__(self, other: object) -> bool:
        if type(other) is not Position:
            return NotImplemented
        return _compared(self) == _compared(other)


def _compared(p: Position) -> tuple[object, ...]:
    """What two answers are equal by: their compared fields, the board made first."""
    _ = p.board
    return tuple(getattr(p, f.name) for f in fields(p) if f.compare)


@dataclass(frozen=True)
class Started:
    id: str
    token: str
    size: int
    mode: Mode
    date: date | None
    position: Position
    #: The bot's name for a bot game (ranked on the engines board); None for a player's game.
    bot: str | None = None
    #: Daily tries left today for this browser and size after this one; None for a classic game.
    tries_left: int | None = None


@dataclass(frozen=True)
class Tries:
    """Who starts a daily game, as its tries are counted: the browser (an id the server
    issued) and the network (the IPv4 address, the IPv6 /64), each with its allowance."""

    browser: str | None
    network: str | None
    per_browser: int = 3
    per_network: int = 30


def _position(at: int, game: Game, tile: tuple[int, int, int] | None = None,
              board: list[list[int]] | None = None, helped: bool = False) -> Position:
    return Position(at, board or game.board, game.score, game.over, game.won, game.undos_left,
                    game.ranked and not helped, tile or game.last_tile(), helped)


def _count_tries(store: LiveStore, secret: str, tries: Tries, day: date, size: int,
                 now: datetime) -> int | None:
    """Count one daily try against the browser's and the network's allowances, or ClientError
    (429, code ``daily_tries_used``) counting nothing. The answer: tries left for the browser."""
    counted: list[str] = []
    left = None
    for per, who, limit in (("network", tries.network, tries.per_network),
                            ("browser", tries.browser, tries.per_browser)):
        if who is None:
            continue
        key = client_key(secret, f"{per}:{who}")
        used = store.count_try(key, day, size, limit)
        if not used:
            for done in counted:
                store.uncount_try(done, day, size)
            next_day = datetime.combine(day + timedelta(days=1), time(0), UTC)
            wait = int((next_day - now).total_seconds()) + 1
            whom = "this browser has" if per == "browser" else "browsers on this network have"
            raise ClientError(
                429, f"{whom} started today's {size}x{size} daily game {limit} times; the next one comes at "
                     "00:00 UTC", {"Retry-After": str(wait)}, code="daily_tries_used",
                fields={"per": per, "limit": limit, "tries": limit, "size": size, "retry_after": wait,
                        "next_day": next_day.isoformat(),
                        "next_at": next_day.isoformat().replace("+00:00", "Z")})
        counted.append(key)
        if per == "browser":
            left = limit - used
    return left




class _Tokens:
    """Tokens already checked, by game id: a socket's every message carries the same one, and its
    HMAC costs more than the rest of a move's bookkeeping. Bounded; a wrong token is never kept."""

    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self._good: OrderedDict[str, str] = OrderedDict()
        self._lock = threading.Lock()

    def check(self, secret: str, game_id: str, token: str) -> bool:
        with self._lock:
            if self._good.get(game_id) == token:
                return True
        if not check_token(secret, game_id, token):
            return False
        with self._lock:
            self._good[game_id] = token
            if len(self._good) > self.size:
                self._good.popitem(last=False)
        return True


_tokens = _Tokens()


def start(store: LiveStore, secret: str, size: int, mode: Mode, *, client: str | None = None,
          daily_tries: int = 3, tries: Tries | None = None, bot: str | None = None,
          now: datetime | None = None) -> Started:
    """Issue a game: a random seed (classic) or the day's shared one (daily), kept on the server.

    A daily game counts against the tries of ``tries`` (its browser's and its
    network's allowances; ``client`` and ``daily_tries`` stand for a network of
    one address with that allowance) for its size and UTC day: 429 with code
    ``daily_tries_used`` beyond. A ``bot`` game (the bot's name) is ranked on the
    engines board. The answer has no seed and nothing else the spawns could be
    worked out from.
    """
    if size not in SIZES:
        raise ClientError(422, f"size must be one of {', '.join(map(str, SIZES))}, got {size}")
    if mode not in MODES:
        raise ClientError(422, f"mode must be 'classic' or 'daily', got {mode!r}")
    if bot is not None:
        bot = check_name(bot)
    now = now or utc_now()
    day = now.date() if mode == "daily" else None
    if tries is None and client is not None:
        tries = Tries(None, client, daily_tries, daily_tries)
    left = None
    if day is not None and tries is not None:
        left = _count_tries(store, secret, tries, day, size, now)
    seed = daily_seed(secret, day, size) if day else classic_seed()
    game = Game(size, seed)
    live = Live(new_game_id(), size, seed, mode, day, 0, "", game.snapshot(),
                board="engines" if bot is not None else "players", bot=bot)
    store.create(live, now)
    return Started(live.id, game_token(secret, live.id), size, mode, day, _position(0, game), bot, left)


def _uncounted(hit: Hit | None) -> Hit | None:
    """``hit`` if the store still has to make that count, else None."""
    return hit if hit is not None and not hit.counted else None


def _open(store: LiveStore, secret: str, game_id: str, token: str, *, log: bool = True,
          hit: Hit | None = None) -> Live:
    live = store.load(game_id, log=log, hit=_uncounted(hit)) if could_be_game_id(game_id) else None
    if live is None:
        raise ClientError(404, f"there is no game {game_id!r} (or it was idle too long and removed); "
                               "start one with POST /api/games", code="game_gone")
    if not _tokens.check(secret, game_id, token):
        raise ClientError(403, "the token does not belong to this game")
    return live


def _in_play(live: Live) -> dict[str, object]:
    if live.finished:
        raise ClientError(409, "this game is finished; start a new one", code="game_finished")
    if live.snapshot is None:
        raise ClientError(409, "this game was started before the server dealt the tiles; start a new one")
    return live.snapshot


def _check_letters(moves: str) -> None:
    if not 1 <= len(moves) <= MAX_MOVES:
        raise ClientError(422, f"moves must be 1 to {MAX_MOVES} letters, got {len(moves)}")
    for i, letter in enumerate(moves):
        if letter not in _LETTERS:
            raise ClientError(422, f"move {i + 1}: {unknown_letter(letter)}; nothing was applied")


def _apply(game: Game, moves: str) -> None:
    """Play ``moves`` on ``game``, or ClientError (422) naming the first one the rules refuse
    (``game`` is then part-way and must be thrown away)."""
    i = game.play(moves)
    if i != len(moves):
        raise ClientError(422, f"letter {i + 1} of the moves: {refusal(game, moves[i])}; nothing was applied")


def play(store: LiveStore, secret: str, game_id: str, *, token: str, at: int, moves: str,
         now: datetime | None = None, charge: Charge | None = None, skip_illegal: bool = False,
         hit: Hit | None = None) -> Position:
    """Apply ``moves`` (1 to 64 of U D L R Z) to the game at log length ``at``.

    All or nothing: an unknown letter, a move the rules refuse or a fourth
    undo is a 422 and nothing is applied. With ``skip_illegal`` a letter the
    rules refuse is dropped instead, like a key pressed against a wall (a
    client sends the keys pressed while it waited, not knowing the tiles yet),
    and the answer says which letters were applied and the tile of each.

    ``at`` behind the game with exactly the letters played from there is a
    retry: the same answer as the first time (the last answer costs nothing;
    an older one is worked out by a replay, run inside ``with charge():``, so
    it counts against the client's limits). Other letters from behind (a
    fork), or ``at`` ahead of the game, are a 409, as are moves in a finished
    game and moves in a daily game after its day ended plus 10 minutes.

    ``hit`` is the request's rate-limit count (``api.deps.count_move``): the
    store makes it in the move's first round trip (on Redis, in the same
    script); a request that reaches no store makes it before it answers. Either
    way a refused count is the answer (429), and it stored nothing.
    """
    if hit is None:
        return _play(store, secret, game_id, token, at, moves, now, charge, skip_illegal, None)
    try:
        answer = _play(store, secret, game_id, token, at, moves, now, charge, skip_illegal, hit)
    except Exception:
        hit.count()  # a 429 comes first, as if counted before anything
        raise
    hit.count()
    return answer


def _play(store: LiveStore, secret: str, game_id: str, token: str, at: int, moves: str, now: datetime | None,
          charge: Charge | None, skip_illegal: bool, hit: Hit | None) -> Position:
    _check_letters(moves)
    if at < 0:
        raise ClientError(422, f"at must be 0 or more, got {at}")
    now = now or utc_now()
    kept = _recent.take(game_id, at) if _tokens.check(secret, game_id, token) else None
    for _ in range(ATTEMPTS):
        if kept is not None:  # this process made the game's last move: nothing to read
            live, game = kept
            kept = None
        else:
            live = _open(store, secret, game_id, token, log=False, hit=hit)
            game = None
        snapshot = _in_play(live)
        new = moves
        if at > live.at:
            raise ClientError(409, f"at is {at} but the game has {live.at} moves; "
                                   "ask for its state and go on from there")
        if at < live.at:
            live = _open(store, secret, game_id, token)  # a retry or a fork: the log tells which
            if at > live.at:
                continue  # the game changed meanwhile
            played = live.log[at:]
            if skip_illegal:  # which letters were dropped depends on the tiles: replay to see
                return _skipping_retry(live, at, moves, charge)
            if played.startswith(moves):  # a retry: these letters are what was played from `at`
                return _answer_at(live, at + len(moves), charge)
            if not moves.startswith(played):
                raise ClientError(409, f"the game went on from move {at} with other moves; a game cannot "
                                       "fork (undo is the only way back)", code="forked")
            new = moves[len(played):]  # a retry that goes on past what was played
        _extendable(live, new, now)
        # the metric's clock is the wall's: a thread's CPU clock costs more to read (a system call,
        # 6 us to over 100 us on a busy machine) than the rest of a move's bookkeeping
        started = perf_counter()
        remembered, resumed = game is not None, False
        if game is None:
            held = _recent.take(live.id, live.at)
            resumed = held is None
            game = held[1] if held is not None else Game.resume(snapshot)
        if skip_illegal:
            new, tiles = _skipping(game, new)
            if not new:  # every key met a wall: nothing to store
                if remembered:
                    continue  # unless the store says otherwise (a game finished elsewhere)
                _recent.put(live, game)
                stayed = _position(live.at, game, _stored_tile(snapshot), helped=live.helped)
                return replace(stayed, applied="", tiles=[])
        elif remembered:
            if game.play(new) != len(new):
                continue  # refused: the store says why (the game may have been finished elsewhere)
        else:
            _apply(game, new)
        tile = game.last_tile()
        # the position's text made only when the store writes it: SQLite writes it every few moves
        # (``live.stores.tail``), and with a move on a game read from the store, so that a worker that
        # plays a game now and then does not play the tail's letters again at every read
        stored = _stored(game, tile) if resumed else partial(_stored, game, tile)
        # the count, if not made yet, in the same round trip as the move
        if store.save(live.id, live.at, new, stored, now, hit=_uncounted(hit)):
            return _saved(live, game, new, tiles if skip_illegal else None, tile, skip_illegal, started)
    raise ClientError(409, "the game changed while these moves were applied; ask for its state and retry")


def _extendable(live: Live, new: str, now: datetime) -> None:
    """ClientError (409) if ``new`` letters may not be added to the game now: its log is full, or
    it is a daily game whose day is over."""
    if live.at + len(new) > MAX_LOG:
        raise ClientError(409, f"this game has reached the longest log kept ({MAX_LOG} moves and undos); "
                               "finish it", code="log_full", fields={"max": MAX_LOG})
    deadline = deadline_for(live.mode, live.day)
    if deadline is not None and now > deadline:
        raise ClientError(409, "this daily game's day is over: moves are no longer accepted; "
                               "finish it to rank the position it reached", code="day_over")


def _saved(live: Live, game: Game, new: str, tiles: list[tuple[int, int, int] | None] | None,
           tile: tuple[int, int, int] | None, skip_illegal: bool, started: float) -> Position:
    """The answer to ``new`` letters the store has just saved; the game is kept in memory as the
    store now has it (the position is the kept game's, see ``recent.RecentGames``)."""
    at = live.at + len(new)
    answer = Position(at, None, game.score, game.over, game.won, game.undos_left,
                      game.ranked and not live.helped, tile, live.helped,
                      new if skip_illegal else None, tiles, game.board_json(), game.board_later())
    live.at, live.log, live.snapshot = at, "", IN_MEMORY
    _recent.put(live, game)
    metrics.count_moves(len(new), perf_counter() - started)
    return answer


async def play_kept(store: LiveStore, secret: str, game_id: str, *, token: str, at: int, moves: str,
                    skip_illegal: bool = False, hit: Hit | None = None,
                    now: datetime | None = None) -> Position | None:
    """``play`` on the event loop, for a store that saves without a thread (``store.saves_async``)
    and a game this process keeps in memory at ``at``: a socket's usual move, which then needs no
    read and one ``save_async``. None where it cannot answer so (the game not kept here, letters
    or moves the rules refuse, a log full or a day over, another worker's move meanwhile): ``play``
    answers those, reading the store, as it would have from the start. A store error or a refused
    count (429) is raised as by ``play``; the game kept was taken out, so the next move reads the
    store."""
    if not (1 <= len(moves) <= MAX_MOVES and _LETTERS.issuperset(moves)) or at < 0:
        return None
    if not _tokens.check(secret, game_id, token):
        return None
    kept = _recent.take(game_id, at)
    if kept is None:
        return None
    live, game = kept
    now = now or utc_now()
    try:
        _extendable(live, moves, now)
    except ClientError:
        return None
    started = perf_counter()
    tiles = None
    if skip_illegal:
        new, tiles = _skipping(game, moves)
        if not new:
            return None
    elif game.play(moves) == len(moves):
        new = moves
    else:
        return None
    tile = game.last_tile()
    if not await store.save_async(live.id, live.at, new, _stored(game, tile), now, hit=_uncounted(hit)):
        return None
    return _saved(live, game, new, tiles, tile, skip_illegal, started)


async def committed(commits: GroupCommit, game_id: str) -> None:
    """After a move played inside ``with store.commits:`` (on the event loop's thread): wait for
    the commit of the batch its save joined, if it saved one. If that commit fails, nothing of the
    batch was kept: this process forgets what it holds of the game, and the failure is raised
    (a store error: 503 if the database is down, else 500)."""
    batch = commits.joined
    if batch is None:
        return
    try:
        await batch.waiter()
    except Exception:
        _recent.forget(game_id)
        raise


def _stored(game: Game, tile: tuple[int, int, int] | None) -> str:
    """The position a move stores, as JSON text: the game's snapshot and the last letter's tile
    (so that a retry is answered exactly as the first time; ``_stored_tile`` reads it back)."""
    kept = "null" if tile is None else f"[{tile[0]},{tile[1]},{tile[2]}]"
    return f'{game.snapshot_json()[:-1]},"tile":{kept}}}'


def _skipping(game: Game, letters: str) -> tuple[str, list[tuple[int, int, int] | None]]:
    """Play each letter the rules allow, dropping the others: the letters played and their tiles."""
    applied, tiles = [], []
    for letter in letters:
        if game.play(letter) == 1:
            applied.append(letter)
            tiles.append(game.last_tile())
    return "".join(applied), tiles


def _skipping_retry(live: Live, at: int, moves: str, charge: Charge | None) -> Position:
    """A ``skip_illegal`` request from behind the game: a retry if skipping ``moves`` from ``at``
    plays exactly what the log has there (answered as the first time), else a fork."""
    with charge() if charge is not None else nullcontext():
        game = replay(live.size, live.seed, live.log[:at])
    applied, tiles = _skipping(game, moves)
    if not live.log[at:].startswith(applied):
        raise ClientError(409, f"the game went on from move {at} with other moves; a game cannot "
                               "fork (undo is the only way back)", code="forked")
    return replace(_position(at + len(applied), game, helped=live.helped), applied=applied, tiles=tiles)


def _answer_at(live: Live, at: int, charge: Charge | None) -> Position:
    if at == live.at:
        return _position(at, Game.resume(live.snapshot), _stored_tile(live.snapshot),  # type: ignore[arg-type]
                         helped=live.helped)
    with charge() if charge is not None else nullcontext():
        return _position(at, replay(live.size, live.seed, live.log[:at]), helped=live.helped)


@dataclass(frozen=True)
class State:
    position: Position
    log: str


def state(store: LiveStore, secret: str, game_id: str, *, token: str) -> State:
    """Where the game stands, and its log so far (for the player who holds the token)."""
    live = _open(store, secret, game_id, token)
    snapshot = _in_play(live)
    return State(_position(live.at, Game.resume(snapshot), _stored_tile(snapshot), helped=live.helped),
                 live.log)


def _stored_tile(snapshot: Snapshot) -> tuple[int, int, int] | None:
    """The last letter's tile as the snapshot keeps it (see ``play``)."""
    tile = snapshot.get("tile")
    return tuple(tile) if isinstance(tile, (list, tuple)) and len(tile) == 3 else None  # type: ignore[return-value]


@dataclass(frozen=True)
class Hinted:
    """A hint asked for through its game: the solver's move, and its score for each direction."""

    move: str | None
    scores: dict[str, float]


def hint(store: LiveStore, secret: str, game_id: str, *, token: str, at: int,
         solve: Callable[[list[list[int]]], tuple[str | None, dict[str, float]]]) -> Hinted:
    """The solver's move for the game's position at log length ``at`` (its current one; 409
    otherwise), ``solve(board)`` thinking. The game is marked helped before the answer leaves,
    so it is never ranked, whatever its finish says.
    """
    live = _open(store, secret, game_id, token)
    snapshot = _in_play(live)
    if at != live.at:
        raise ClientError(409, f"at is {at} but the game has {live.at} moves; a hint is for the position "
                               "the game is in")
    store.mark_helped(live.id)
    _recent.forget(live.id)  # its next move reads the store, which says it was helped
    move, scores = solve(Game.resume(snapshot).board)
    return Hinted(move, scores)


def finish(store: LiveStore, sessions: sessionmaker[Session], secret: str, game_id: str, *, token: str,
           name: str | None, log: str | None = None, helped: bool = False, name_key: str | None = None,
           now: datetime | None = None, charge: Charge | None = None,
           checking: Callable[[int, int, str], dict[str, Any]] | None = None) -> Finished:
    """Finish the game: the server's own log, replayed, is the record; the seed is revealed.

    ``log``, if sent, must be the server's log (409 otherwise); it may go on
    past it by up to 64 letters, which are played first as by ``play``. A game
    that used undo, that asked for a hint through itself, or that the player
    marks ``helped`` (hint or autoplay), is kept but not ranked. Finishing a
    finished game again gives the same answer (a lost answer can be asked for
    again). A daily game's seed stays hidden (None) while its moves are accepted.

    ``name`` is checked by the name rule and by ``owners``: a held name needs
    its ``name_key`` (409 ``name_held``), a look-alike of a held name is refused
    (409 ``name_confusable``); the finish that first uses a name answers its key.
    A bot game is recorded under its bot's name (``name`` is then that name).

    ``checking(size, seed, log)``, for a ranked players' game, gives the record's
    engine-like check columns (``reviews.checks``: done now, or left to the
    background checker with ``checked`` false, which keeps it off the players'
    board until then).
    """
    now = now or utc_now()
    engine = sessions.kw["bind"]
    bot = _open(store, secret, game_id, token).bot
    if bot is not None:
        name = bot
    elif name is None:
        raise ClientError(422, "name: required")
    else:
        name = check_name(name)
        owners.check(engine, name, name_key, game_id, now)  # before any work: a held name is not a bad game
    taken: dict[str, str | None] = {}

    def take_name(conn: Connection) -> None:
        # in the finish's own transaction: the name is taken by the finish that keeps the record
        taken["key"] = owners.claim(conn, secret, name, name_key, game_id, now)  # type: ignore[arg-type]

    game: Game | None = None  # the replay so far: a move that lands meanwhile only extends it
    until = monotonic() + FINISH_SECONDS
    while True:
        live = _open(store, secret, game_id, token)
        if live.finished:  # by this call, or by a retry of it that won the race: the same answer
            if log is not None and log != live.log:
                raise ClientError(409, "this game was finished with another log")
            with sessions() as session:
                done = finish_answer(session, live.id)
            return replace(done, name_key=owners.key_for(engine, secret, live.id))
        if monotonic() >= until:
            raise ClientError(409, "the game changed while it was being finished; try again")
        snapshot = _in_play(live)
        if log is not None and log != live.log:
            if not log.startswith(live.log) or len(log) - len(live.log) > MAX_MOVES:
                raise ClientError(409, "the log differs from the moves this game was dealt")
            play(store, secret, game_id, token=token, at=live.at, moves=log[live.at:], now=now, charge=charge)
            continue
        # the server's own replay is the verification; the log only grows, so a later attempt
        # replays only the letters played since the last one
        if game is None or not live.log.startswith(game.log):
            game = replay(live.size, live.seed, live.log)
        else:
            since = live.log[len(game.log):]
            if game.play(since) != len(since):
                raise RuntimeError(f"game {live.id}: its log does not replay")
        if (game.board, game.score) != (snapshot["board"], snapshot["score"]):
            raise RuntimeError(f"game {live.id}: the replay of its log is not its position")
        ranked = game.ranked and not helped and not live.helped
        started, batches = store.arrivals(live.id)
        times = None if started is None else times_text(int(started.timestamp() * 1000), batches, live.at)
        record = {"finished_at": now, "name": name, "log": live.log, "at": live.at, "score": game.score,
                  "max_tile": game.max_tile, "moves": game.moves, "ranked": ranked,
                  "helped": live.helped or helped, "times": times}
        if ranked and bot is None and checking is not None:
            record |= checking(live.size, live.seed, live.log)
        _recent.take(live.id, live.at)  # no move after the finish may be played from memory
        if store.finish(live, live.at, record, None if bot is not None else take_name):
            with sessions() as session:
                return replace(finish_answer(session, live.id), name_key=taken.get("key"))
