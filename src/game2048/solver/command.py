"""``game2048 solve``: play seeded games with the solver and report its strength."""

from __future__ import annotations

import json
import time
from functools import partial
from typing import Annotated

import typer

from ..rules import DEFAULT_SIZE
from .search import DEFAULT_PRESET


def _worker_init() -> None:
    from .search import warm_up

    warm_up()


def solve(
    size: Annotated[int, typer.Option(help="Board size, 3 to 6.")] = DEFAULT_SIZE,
    games: Annotated[int, typer.Option(min=1, help="Games to play.")] = 10,
    seed: Annotated[int, typer.Option(min=0, help="Game i is played with seed SEED + i.")] = 0,
    preset: Annotated[str, typer.Option(
        help="fast, normal, strong, or learned (the trained network on 4x4 where its weights are "
             "installed, strong elsewhere).")] = DEFAULT_PRESET,
    depth: Annotated[
        int | None, typer.Option(min=0, max=30, help="Search this many spawns deep instead.")
    ] = None,
    time_limit: Annotated[
        float | None, typer.Option(min=0.0001, help="Seconds of search per move at most.")
    ] = None,
    max_moves: Annotated[int | None, typer.Option(min=1, help="Stop each game after this many moves.")] = (
        None
    ),
    until: Annotated[
        int | None,
        typer.Option(
            min=4,
            help="Stop each game once it reaches this tile (measures a target faster; "
            "scores and larger tiles are then not a full game's).",
        ),
    ] = None,
    jobs: Annotated[int, typer.Option(min=1, help="Processes to play on.")] = 1,
    threads: Annotated[
        int | None,
        typer.Option(min=1, help="Threads per search (default: the preset's; strong uses every core)."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object instead of a report.")] = (
        False
    ),
    server: Annotated[
        str | None,
        typer.Option(help="Play declared bot games on this game2048 server instead (needs --bot)."),
    ] = None,
    bot: Annotated[
        str | None, typer.Option(help="The bot's name on the server's engines board (with --server).")
    ] = None,
) -> None:
    """Play seeded games with the solver and print its strength: scores, speed, tiles reached.

    With --server URL --bot NAME the solver plays bot games the server deals
    instead, ranked on its engines board (docs/bots.md).
    """
    if server is not None or bot is not None:
        _solve_on_server(server, bot, size, games, preset, depth, time_limit, threads, max_moves, as_json)
        return
    from concurrent.futures import ProcessPoolExecutor

    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from ..rules import SIZES
    from ..spawn import MAX_SEED
    from .compiling import ensure_compiled
    from .play import GameResult, play_result, summarise
    from .search import PLAYERS

    if size not in SIZES:
        raise typer.BadParameter(f"must be one of {', '.join(map(str, SIZES))}", param_hint="--size")
    if preset not in PLAYERS:
        raise typer.BadParameter(f"must be one of {', '.join(PLAYERS)}", param_hint="--preset")
    if seed + games > MAX_SEED:
        raise typer.BadParameter("seed + games must stay below 2^53", param_hint="--seed")
    if until is not None and until & (until - 1):
        raise typer.BadParameter("must be a power of two", param_hint="--until")
    play = partial(
        play_result,
        preset=preset,
        depth=depth,
        time_limit=time_limit,
        max_moves=max_moves,
        until=until,
        threads=threads,
    )
    seeds = range(seed, seed + games)
    results: list[GameResult] = []
    err = Console(stderr=True)
    columns = (
        TextColumn(f"{size}x{size} {preset}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("games"),
        TimeElapsedColumn(),
    )
    ensure_compiled()  # here, once, before the progress bar and the workers
    with Progress(*columns, console=err, transient=as_json) as progress:
        bar = progress.add_task("games", total=games)
        if jobs == 1:
            _worker_init()
            start = time.perf_counter()
            for game_seed in seeds:
                results.append(play(size, game_seed))
                progress.advance(bar)
        else:
            with ProcessPoolExecutor(max_workers=min(jobs, games), initializer=_worker_init) as pool:
                start = time.perf_counter()
                for result in pool.map(play, [size] * games, seeds):
                    results.append(result)
                    progress.advance(bar)
        seconds = time.perf_counter() - start
    summary = summarise(results, seconds)
    if as_json:
        typer.echo(json.dumps(summary))
        return
    busy = sum(r.seconds for r in results)
    moves = summary["moves"]
    typer.echo(f"games: {summary['games']}  (seeds {seed} to {seed + games - 1}, {size}x{size}, {preset})")
    typer.echo(f"moves: {moves}")
    rate = summary["moves_per_second"]
    typer.echo(f"moves per second: {rate:.0f} over {seconds:.1f} s on {jobs} process(es)")
    if moves:
        typer.echo(f"time per move: {1000 * busy / moves:.2f} ms (one process)")
    typer.echo(f"mean score: {summary['mean_score']:.0f}")
    typer.echo(f"median score: {summary['median_score']:.0f}")
    typer.echo("reached:")
    reached: dict[str, float] = summary["reached"]  # type: ignore[assignment]
    shown = [t for t, share in reached.items() if share < 1.0]
    if reached:
        first = [t for t, share in reached.items() if share == 1.0][-1:]
        shown = first + shown
    for tile in shown:
        typer.echo(f"  {tile:>7}  {100 * reached[tile]:5.1f} %")


def _solve_on_server(server: str | None, bot: str | None, size: int, games: int, preset: str,
                     depth: int | None, time_limit: float | None, threads: int | None, max_moves: int | None,
                     as_json: bool) -> None:
    from ..dealer import DealerError
    from .bot import play_bot_games
    from .search import PLAYERS, warm_up

    if server is None or not bot:
        raise typer.BadParameter("--server and --bot go together", param_hint="--server/--bot")
    if preset not in PLAYERS:
        raise typer.BadParameter(f"must be one of {', '.join(PLAYERS)}", param_hint="--preset")
    warm_up()

    def report(game) -> None:  # type: ignore[no-untyped-def]
        if not as_json:
            place = f"#{game.rank} on the engines board" if game.rank else "not ranked"
            typer.echo(f"game {game.game_id}: score {game.score}, {game.moves} moves, tile {game.max_tile}, "
                       f"{place}")

    try:
        played = play_bot_games(server, bot, size, games, preset=preset, depth=depth, time_limit=time_limit,
                                threads=threads, max_moves=max_moves, done=report)
    except DealerError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from None
    if as_json:
        typer.echo(json.dumps({"server": server, "bot": bot, "size": size,
                               "games": [vars(g) for g in played]}))
        return
    scores = [g.score for g in played]
    typer.echo(f"{len(played)} bot games as {bot!r} on {server}: mean score {sum(scores) / len(scores):.0f}, "
               f"best {max(scores)}")
