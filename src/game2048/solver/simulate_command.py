"""The ``game2048 simulate`` command: play seeded games and merge the results into the pages' data file."""

from __future__ import annotations

from typing import Annotated

import typer

from ..rules import DEFAULT_SIZE

#: Seconds between saves of a long run.
SAVE_EVERY = 60
#: Where results go unless --out says otherwise: never into the installed package.
DEFAULT_OUT = "simulations.json"


def simulate(
    games: Annotated[int, typer.Option(help="Games per strategy and board size.", min=1)] = 1000,
    sizes: Annotated[str, typer.Option(help="Board sizes, comma-separated (3 to 6).")] = str(DEFAULT_SIZE),
    strategies: Annotated[
        str,
        typer.Option(
            help="Comma-separated, from: random, greedy, corner-greedy, corner-rush, corner, solver-fast, "
            "solver-learned (4x4 only, with the trained weights installed)."
        ),
    ] = "random,greedy,corner-greedy,corner-rush,corner,solver-fast",
    first_seed: Annotated[
        int, typer.Option(help="Seed of the first game; game i has seed first+i.", min=0)
    ] = 0,
    jobs: Annotated[int, typer.Option(help="Worker processes.", min=1)] = 2,
    max_moves: Annotated[
        int, typer.Option(help="Stop a game after this many moves (0: play every game to its end).", min=0)
    ] = 0,
    out: Annotated[
        str,
        typer.Option(help="Data file to merge into (default: simulations.json in the current directory; "
                     "the pages read src/game2048/data/simulations.json)."),
    ] = DEFAULT_OUT,
    fresh: Annotated[
        bool, typer.Option(help="Start a new file instead of merging into the existing one.")
    ] = False,
) -> None:
    """Play seeded games with each strategy; write what the strategy, boards and solver pages show.

    Results are merged by seed into the existing file, so a large measurement can be made in parts.
    The content pages read the packaged src/game2048/data/simulations.json: give it as --out to
    refresh their figures from a source checkout.
    """
    import time
    from pathlib import Path

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from ..rules import SIZES
    from ..spawn import MAX_SEED
    from . import simulate as sim

    try:
        size_list = [int(s) for s in sizes.split(",") if s.strip()]
    except ValueError:
        size_list = []
    if not size_list or any(n not in SIZES for n in size_list):
        raise typer.BadParameter(f"board sizes from {SIZES}, got {sizes!r}", param_hint="--sizes")
    names = [s.strip() for s in strategies.split(",") if s.strip()]
    unknown = [s for s in names if s not in sim.STRATEGIES]
    if not names or unknown:
        raise typer.BadParameter(
            f"unknown strategy {', '.join(unknown)!r}; known: {', '.join(sim.STRATEGIES)}",
            param_hint="--strategies",
        )
    refused = [why for s in names for n in size_list if (why := sim.unplayable(s, n))]
    if refused:
        raise typer.BadParameter(refused[0], param_hint="--strategies")
    if first_seed + games > MAX_SEED:
        raise typer.BadParameter("first seed + games must stay below 2^53", param_hint="--first-seed")
    path = Path(out)
    try:
        data = sim.empty_data() if fresh else sim.load(path)
    except (OSError, ValueError) as exc:
        typer.echo(f"error: cannot read {path}: {exc}", err=True)
        raise typer.Exit(code=1) from None

    command = (
        f"game2048 simulate --games {games} --sizes {','.join(map(str, size_list))} "
        f"--strategies {','.join(names)} --first-seed {first_seed}"
        + (f" --max-moves {max_moves}" if max_moves else "")
    )
    total = games * len(names) * len(size_list)
    pending: list = []
    run = None
    saved_at = time.monotonic()
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, transient=False) as progress:
        bar = progress.add_task("games", total=total)
        for strategy, size, row in sim.run(
            names, size_list, games, first_seed=first_seed, jobs=jobs, max_moves=max_moves or None
        ):
            pending.append((strategy, size, row))
            progress.update(bar, advance=1, description=f"{strategy} {size}x{size}")
            if time.monotonic() - saved_at > SAVE_EVERY:
                # a long run saves as it goes: stopping it keeps the games already played
                run = sim.merge(data, pending, command, run)["runs"][-1]
                _note_weights(sim, run, names)
                _save(sim, data, path)
                pending, saved_at = [], time.monotonic()
    _note_weights(sim, sim.merge(data, pending, command, run)["runs"][-1], names)
    _save(sim, data, path)
    typer.echo(f"{total} games written to {path}")


def _note_weights(sim, run, names) -> None:  # type: ignore[no-untyped-def]
    """Note in the run's entry which trained weights its ``solver-learned`` games were played with."""
    games = sim.weights_games() if "solver-learned" in names else None
    if games is not None:
        run["weights_games"] = games


def _save(sim, data, path) -> None:  # type: ignore[no-untyped-def]
    """``sim.save``, ending the command with one line (status 1) if the file cannot be written."""
    try:
        sim.save(data, path)
    except OSError as exc:
        typer.echo(f"error: cannot write {path}: {exc.strerror or exc}", err=True)
        raise typer.Exit(code=1) from None
