"""``game2048 play``: the full-screen terminal game."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

import typer

from ..rules import DEFAULT_SIZE


def play(
    size: Annotated[int, typer.Option(help="Board size: 3, 4, 5 or 6.")] = DEFAULT_SIZE,
    seed: Annotated[
        int | None, typer.Option(help="Seed of the first game (0 <= seed < 2^53); random if left out.")
    ] = None,
    server: Annotated[
        str | None,
        typer.Option(help="Play a ranked game dealt by this game2048 server (e.g. http://127.0.0.1:8000)."),
    ] = None,
    name: Annotated[
        str | None, typer.Option(help="Your name on the leaderboard (with --server); asked if left out.")
    ] = None,
    new: Annotated[
        bool, typer.Option("--new", help="Start a new game instead of going on with the one left on q.")
    ] = False,
) -> None:
    """Play in the terminal: arrows, WASD or HJKL move, u undoes, r starts a new game, q quits.

    q keeps the game in progress (one per board size, in your user data directory): the next
    `game2048 play` of that size goes on with it, unless --new or --seed is given. NO_COLOR turns
    colours off; on a terminal that cannot redraw (TERM=dumb) the board is printed line by line.
    """
    import curses
    import os
    import sys

    from ..dealer import Dealer, DealerError, LocalDealer, ServerDealer
    from ..rules import check_size
    from ..spawn import check_seed
    from .saved import SavedGames
    from .scores import BestScores
    from .screen import ask, run
    from .session import Session

    try:
        check_size(size)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--size") from None
    try:
        if seed is not None:
            check_seed(seed)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--seed") from None
    if server is not None and seed is not None:
        raise typer.BadParameter("a ranked game's seed is chosen by the server: leave out --seed",
                                 param_hint="--seed")
    if not sys.stdin.isatty() or not sys.stdout.isatty():
        typer.echo("error: game2048 play needs a terminal", err=True)
        raise typer.Exit(code=1)
    saved = SavedGames() if server is None else None
    note = ""
    local: LocalDealer | None = None
    if saved is not None:
        resumed, note = saved.take(size) if not new and seed is None else (None, "")
        local = LocalDealer(size, seed, resume=resumed)
    dealer: Dealer = local if local is not None else ServerDealer(server or "", size)
    scores = BestScores()
    chosen = [name]

    def make_session(prompt: Callable[[str], str]) -> Session:
        def player() -> str:
            if chosen[0] is None:
                chosen[0] = prompt("Your name for the leaderboard: ") or "anonymous"
            return chosen[0]

        session = Session(dealer, scores, name=player if server else lambda: "")
        session.message = session.message or note
        return session

    try:
        if os.environ.get("TERM", "") in ("", "dumb", "unknown"):  # no cursor moves: no full screen
            from .plain import run_plain

            run_plain(make_session(lambda text: input(text).strip()), server is not None)
        else:
            curses.wrapper(run, lambda win: make_session(lambda text: ask(win, text)), server is not None)
    except DealerError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(code=1) from None
    except KeyboardInterrupt:
        pass  # Ctrl-C leaves like q
    finally:
        if saved is not None and local is not None and local.game is not None:
            saved.keep(local.game)
