"""Finishing a game the server dealt: its own log, replayed, becomes the record (``finish``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from time import monotonic
from typing import Any

from sqlalchemy import Connection
from sqlalchemy.orm import Session, sessionmaker

from ...game import Game
from ...limits import MAX_MOVES
from ...record import replay
from ..errors import ClientError
from ..records import owners
from ..records.arrivals import times_text
from ..records.records import Finished, check_name, finish_answer
from ..storage.db import utc_now
from . import asked
from .moving import Charge, in_play, open_game, play, recent
from .stores import LiveStore

#: A finish keeps reading the game again for this many seconds while moves still land on it:
#: they become part of the record (each attempt replays only those), rather than a 409 for a
#: player whose last moves were still arriving. Only the token's holder can make those moves.
FINISH_SECONDS = 2.0


def finish(store: LiveStore, sessions: sessionmaker[Session], secret: str, game_id: str, *, token: str,
           name: str | None, log: str | None = None, helped: bool = False, abandoned: bool = False,
           name_key: str | None = None,
           now: datetime | None = None, charge: Charge | None = None,
           checking: Callable[[int, Any, str, int], dict[str, Any]] | None = None,
           client: str | None = None, holder: owners.Holder | None = None) -> Finished:
    """Finish the game: the server's own log, replayed, is the record; the seed is revealed.

    ``log``, if sent, must be the server's log (409 otherwise); it may go on
    past it by up to 64 letters, which are played first as by ``play``. A game
    that used undo, that asked for a hint through itself, or that the player
    marks ``helped`` (hint or autoplay), or that stood on a board its finishing
    ``client`` (``asked.client_of``) asked the solver about bare (``asked.helped``),
    is kept but not ranked; so is a game the player ``abandoned`` for a new one
    before it ended (over, or won), recorded with ``unranked`` "abandoned", and a
    daily try started past its network's allowance (``unranked`` "tries"). Finishing a
    finished game again gives the same answer (a lost answer can be asked for
    again). A daily game's seed stays hidden (None) while its moves are accepted.

    ``name`` is checked by the name rule and by ``owners``: a held name needs
    its ``name_key`` (409 ``name_held``), a look-alike of a held name is refused
    (409 ``name_confusable``); the finish that first uses a name answers its key. A free
    name that ``holder`` (the finishing network) may not newly hold today is recorded all the
    same, not held: the answer's ``name_not_held`` says why (``owners.claim``).
    A bot game is recorded under its bot's name (``name`` is then that name).

    ``checking(size, seed, log, max_tile)``, for a ranked players' game, gives
    where it stands (``reviews.checks``: its check done now, or ``checking`` for
    the background checker, which keeps it off the players' board until then).
    """
    now = now or utc_now()
    engine = sessions.kw["bind"]
    bot = open_game(store, secret, game_id, token).bot
    if bot is not None:
        name = bot
    elif name is None:
        raise ClientError(422, "name: required")
    else:
        name = check_name(name)
        owners.check(engine, name, name_key, game_id, now)  # before any work: a held name is not a bad game
    taken: dict[str, Any] = {}

    def take_name(conn: Connection) -> None:
        # in the finish's own transaction: the name is taken by the finish that keeps the record
        try:
            taken["key"] = owners.claim(conn, secret, name, name_key, game_id, now, holder)  # type: ignore[arg-type]
        except ClientError as refused:  # the record is kept; only the name is not held
            taken["not_held"] = refused.body()

    game: Game | None = None  # the replay so far: a move that lands meanwhile only extends it
    until = monotonic() + FINISH_SECONDS
    while True:
        live = open_game(store, secret, game_id, token)
        if live.finished:  # by this call, or by a retry of it that won the race: the same answer
            if log is not None and log != live.log:
                raise ClientError(409, "this game was finished with another log")
            with sessions() as session:
                done = finish_answer(session, live.id)
            key, not_held = owners.told(engine, secret, live.id, holder)
            return replace(done, name_key=key, name_not_held=not_held)
        if monotonic() >= until:
            raise ClientError(409, "the game changed while it was being finished; try again")
        snapshot = in_play(live)
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
        started, batches = store.arrivals(live.id)
        helped = helped or live.helped or (game.ranked and client is not None and started is not None
                                           and asked.helped(store, client, live, started))
        unranked = "abandoned" if abandoned and not (game.over or game.won) else live.unranked
        ranked = game.ranked and not helped and unranked is None
        times = None if started is None else times_text(int(started.timestamp() * 1000), batches, live.at)
        record = {"finished_at": now, "name": name, "log": live.log, "at": live.at, "score": game.score,
                  "max_tile": game.max_tile, "moves": game.moves, "ranked": ranked, "helped": helped,
                  "unranked": unranked, "times": times}
        if ranked and bot is None and owners.barred(engine, name):  # an operator's decision stands
            record |= {"board": "engines", "standing": "listed", "decided": True}
        elif ranked and bot is None and checking is not None:
            record |= checking(live.size, live.seed, live.log, game.max_tile)
        recent.take(live.id, live.at)  # no move after the finish may be played from memory
        if store.finish(live, live.at, record, None if bot is not None else take_name):
            with sessions() as session:
                return replace(finish_answer(session, live.id), name_key=taken.get("key"),
                               name_not_held=taken.get("not_held"))
