"""Starting a game the server deals: a fresh secret seed, or the day's shared one with its tries
counted (``limits.daily``); the seed stays on the server until the finish."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from ...game import Game
from ...rules import SIZES
from ..config import DEFAULT_DAILY_TRIES
from ..errors import ClientError
from ..limits.daily import Tries, count_try
from ..records import owners
from ..records.records import MODES, Mode, check_name, new_game_id
from ..storage.db import utc_now
from .answer import Position, position
from .seeds import classic_seed, daily_seed, game_token
from .stores import Live, LiveStore


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


def start(store: LiveStore, secret: str, size: int, mode: Mode, *, client: str | None = None,
          daily_tries: int = DEFAULT_DAILY_TRIES, tries: Tries | None = None, bot: str | None = None,
          bot_key: str | None = None, now: datetime | None = None) -> Started:
    """Issue a game: a random seed (classic) or the day's shared one (daily), kept on the server.

    A daily game counts against the tries of ``tries`` (its browser's and its
    network's allowances; ``client`` and ``daily_tries`` stand for a network of
    one address with that allowance) for its size and UTC day: 429 with code
    ``daily_tries_used`` beyond, and past the network's alone a try that is
    never ranked (``unranked`` "tries"; its answer says ``ranked`` false). A
    ``bot`` game (the bot's name) is ranked on the engines board. A bot never
    plays under a name a player holds, nor under a look-alike of one (409
    ``name_held``, ``name_confusable``), unless ``bot_key`` is that name's key: its
    holder's own bot. The answer has no seed and nothing else the spawns could be
    worked out from.
    """
    if size not in SIZES:
        raise ClientError(422, f"size must be one of {', '.join(map(str, SIZES))}, got {size}")
    if mode not in MODES:
        raise ClientError(422, f"mode must be 'classic' or 'daily', got {mode!r}")
    if bot is None and bot_key is not None:
        raise ClientError(422, "name_key goes with bot: it is the key of the bot's name")
    if bot is not None:
        bot = check_name(bot)
        owners.check(store.engine, bot, bot_key, "")  # checked at the start: the game is played under it
    now = now or utc_now()
    day = now.date() if mode == "daily" else None
    if tries is None and client is not None:
        tries = Tries(None, client, daily_tries, daily_tries)
    left, ranked = None, True
    if day is not None and tries is not None:
        left, ranked = count_try(store, secret, tries, day, size, now)
    seed = daily_seed(secret, day, size) if day else classic_seed()
    game = Game(size, seed)
    live = Live(new_game_id(), size, seed, mode, day, 0, "", game.snapshot(),
                board="engines" if bot is not None else "players", bot=bot,
                unranked=None if ranked else "tries")
    store.create(live, now)
    return Started(live.id, game_token(secret, live.id), size, mode, day, position(game, at=0, ranked=ranked),
                   bot, left)
