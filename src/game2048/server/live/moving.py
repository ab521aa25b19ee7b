"""Playing a game the server deals: moves, where a game stands, hints through it.

``play`` applies moves to a game in play (the one function every transport's
move reaches, through ``runner.Runner``; the finish calls it too); ``state``
says where a game stands; ``hint`` marks the game helped and asks the solver.

A move costs the same however long the game is: the store keeps a snapshot
of the position (``Game.snapshot``) beside the log (SQLite writes it every few
moves, and a read brings it up to date, ``live.stores.tail``), new letters are
applied to it and appended to the log, and the game this process played last is
kept in memory (``recent.RecentGames``), so the next move on it is one write. ``at`` is
the length of the log; a request names the ``at`` it was made from, so a
retry is recognised and answered as the first time, and a fork (other letters
from an earlier ``at``) is refused.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from time import perf_counter

from ...game import Game, Snapshot
from ...limits import ALPHABET, MAX_LOG, MAX_MOVES
from ...record import refusal, replay, unknown_letter
from .. import metrics
from ..errors import ClientError
from ..limits.rate import Hit
from ..records.records import could_be_game_id, deadline_for
from ..storage.db import utc_now
from .answer import Position, position
from .commits import GroupCommit
from .recent import IN_MEMORY, RecentGames
from .seeds import check_token
from .stores import Live, LiveStore

#: Times a request re-reads a game that another request changed at the same moment.
ATTEMPTS = 3
_LETTERS = frozenset(ALPHABET)
#: What a replay for a retry from far back is run inside: ``with charge(): ...`` counts its cost.
Charge = Callable[[], AbstractContextManager[None]]

#: The games this process played lately, kept in memory (``recent.RecentGames``).
recent = RecentGames()


def keep_recent(max_bytes: int) -> None:
    """Bound the games this process keeps in memory to about ``max_bytes`` (GAME2048_RECENT_BYTES)."""
    recent.bound(max_bytes)


def forget(game_id: str | None = None) -> None:
    """Drop what this process keeps in memory of game ``game_id`` (of every game when None): for
    whoever changes a game in the store by hand, so that its next move reads the store again."""
    recent.forget(game_id)


def _position(live: Live, at: int, game: Game, tile: tuple[int, int, int] | None = None,
              **given: object) -> Position:
    return position(game, at=at, ranked=game.ranked and not live.helped and live.unranked is None,
                    tile=tile or game.last_tile(), helped=live.helped, **given)


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



def _uncounted(hit: Hit | None) -> Hit | None:
    """``hit`` if the store still has to make that count, else None."""
    return hit if hit is not None and not hit.counted else None


def open_game(store: LiveStore, secret: str, game_id: str, token: str, *, log: bool = True,
              hit: Hit | None = None) -> Live:
    """The game ``game_id`` as the store has it, for the holder of its token (404, 403 otherwise)."""
    live = store.load(game_id, log=log, hit=_uncounted(hit)) if could_be_game_id(game_id) else None
    if live is None:
        raise ClientError(404, f"there is no game {game_id!r} (or it was idle too long and removed); "
                               "start one with POST /api/games", code="game_gone")
    if not _tokens.check(secret, game_id, token):
        raise ClientError(403, "the token does not belong to this game")
    return live


def in_play(live: Live) -> dict[str, object]:
    """The position of a game still in play (409 once it is finished)."""
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

    ``hit`` is the request's rate-limit count (``runner.Runner.count_move``): the
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
    kept = recent.take(game_id, at) if _tokens.check(secret, game_id, token) else None
    for _ in range(ATTEMPTS):
        if kept is not None:  # this process made the game's last move: nothing to read
            live, game = kept
            kept = None
        else:
            live = open_game(store, secret, game_id, token, log=False, hit=hit)
            game = None
        snapshot = in_play(live)
        new = moves
        if at > live.at:
            raise ClientError(409, f"at is {at} but the game has {live.at} moves; "
                                   "ask for its state and go on from there")
        if at < live.at:
            live = open_game(store, secret, game_id, token)  # a retry or a fork: the log tells which
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
            held = recent.take(live.id, live.at)
            resumed = held is None
            game = held[1] if held is not None else Game.resume(snapshot)
        if skip_illegal:
            new, tiles = _skipping(game, new)
            if not new:  # every key met a wall: nothing to store
                if remembered:
                    continue  # unless the store says otherwise (a game finished elsewhere)
                recent.put(live, game)
                return _position(live, live.at, game, _stored_tile(snapshot), applied="", tiles=[])
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
    answer = position(game, at=at, ranked=game.ranked and not live.helped and live.unranked is None,
                      lazy=True, tile=tile, helped=live.helped, applied=new if skip_illegal else None,
                      tiles=tiles)
    live.at, live.log, live.snapshot = at, "", IN_MEMORY
    recent.put(live, game)
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
    kept = recent.take(game_id, at)
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
        recent.forget(game_id)
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
    return _position(live, at + len(applied), game, applied=applied, tiles=tiles)


def _answer_at(live: Live, at: int, charge: Charge | None) -> Position:
    if at == live.at:
        return _position(live, at, Game.resume(live.snapshot), _stored_tile(live.snapshot))  # type: ignore[arg-type]
    with charge() if charge is not None else nullcontext():
        return _position(live, at, replay(live.size, live.seed, live.log[:at]))


@dataclass(frozen=True)
class State:
    position: Position
    log: str


def state(store: LiveStore, secret: str, game_id: str, *, token: str) -> State:
    """Where the game stands, and its log so far (for the player who holds the token)."""
    live = open_game(store, secret, game_id, token)
    snapshot = in_play(live)
    return State(_position(live, live.at, Game.resume(snapshot), _stored_tile(snapshot)),
                 live.log)


def _stored_tile(snapshot: Snapshot) -> tuple[int, int, int] | None:
    """The last letter's tile as the snapshot keeps it (see ``play``)."""
    tile = snapshot.get("tile")
    return tuple(tile) if isinstance(tile, (list, tuple)) and len(tile) == 3 else None  # type: ignore[return-value]


#: A hint: the solver's move (None when no move is legal), and its score for each direction.
Hint = tuple[str | None, dict[str, float]]


def hint(store: LiveStore, secret: str, game_id: str, *, token: str, at: int,
         solve: Callable[[list[list[int]]], Hint]) -> Hint:
    """The solver's move for the game's position at log length ``at`` (its current one; 409
    otherwise), ``solve(board)`` thinking. The game is marked helped before the answer leaves,
    so it is never ranked, whatever its finish says.
    """
    live = open_game(store, secret, game_id, token)
    snapshot = in_play(live)
    if at != live.at:
        raise ClientError(409, f"at is {at} but the game has {live.at} moves; a hint is for the position "
                               "the game is in")
    store.mark_helped(live.id)
    recent.forget(live.id)  # its next move reads the store, which says it was helped
    return solve(Game.resume(snapshot).board)

