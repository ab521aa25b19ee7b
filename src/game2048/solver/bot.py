"""``game2048 solve --server URL --bot NAME``: the built-in solver plays declared bot games.

Each game is started as a bot game (``POST /api/games {bot: NAME}``), dealt by
the server move by move like any ranked game, and finished: it is ranked on
the server's engines board, never on the players' (``docs/bots.md``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..dealer import DealerError, ServerDealer
from ..spawn import Seed
from .search import DEFAULT_PRESET


@dataclass(frozen=True)
class BotGame:
    """One bot game as the server finished it."""

    game_id: str
    score: int
    moves: int
    max_tile: int
    seed: Seed | None
    ranked: bool
    rank: int | None


def play_bot_games(url: str, bot: str, size: int, games: int, *, preset: str = DEFAULT_PRESET,
                   depth: int | None = None, time_limit: float | None = None, threads: int | None = None,
                   max_moves: int | None = None, done: Callable[[BotGame], None] = lambda _: None
                   ) -> list[BotGame]:
    """Play ``games`` declared bot games named ``bot`` on the server at ``url``; DealerError if
    the server refuses (a bad name, an unreachable server)."""
    from .search import analyse

    played = []
    for _ in range(games):
        dealer = ServerDealer(url, size, bot=bot)
        state = dealer.open()
        moves = 0
        while not state.over and (max_moves is None or moves < max_moves):
            move = analyse(state.board, preset=preset, depth=depth, time_limit=time_limit, threads=threads)[0]
            if move is None:
                break
            after = dealer.move(move)
            if after is None:  # the solver never picks an illegal move; if it did, the game would stall
                raise DealerError(f"the solver chose {move}, which does not change the board")
            state, moves = after, moves + 1
        finished = dealer.finish(bot)
        game = BotGame(str(dealer.game_id), finished.score, moves, max(max(row) for row in state.board),
                       finished.seed, finished.ranked, finished.rank)
        done(game)
        played.append(game)
    return played
