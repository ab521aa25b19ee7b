"""``game2048 play``: the full-screen terminal game."""

from __future__ import annotations

from typing import Annotated

import typer


def play(
    size: Annotated[int, typer.Option(help="Board size: 3, 4, 5 or 6.")] = 4,
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
) -> None:
    """Play in the terminal: arrows, WASD or HJKL move, u undoes, r starts a new game, q quits."""
    import curses
    import sys

    from ..rules import check_size
    from ..spawn import check_seed
    from .dealer import Dealer, DealerError, LocalDealer, ServerDealer
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
    dealer: Dealer = ServerDealer(server, size) if server else LocalDealer(size, seed)
    scores = BestScores()
    chosen = [name]

    def make_session(win: curses.window) -> Session:
        def player() -> str:
            if chosen[0] is None:
                chosen[0] = ask(win, "Your name for the leaderboard: ") or "anonymous"
            return chosen[0]

        return Session(dealer, scores, name=player if server else lambda: "")

    try:
        curses.wrapper(run, make_session, server is not None)
    except DealerError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(code=1) from None
