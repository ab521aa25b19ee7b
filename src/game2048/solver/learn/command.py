"""``game2048 learn``: train the network, resuming its checkpoint; and ``game2048 learn-eval``: measure it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

_DIR_HELP = "Folder of the checkpoint (default: the user data directory's learn folder)."


def _checkpoint_path(folder: Path | None) -> Path:
    from .checkpoint import FILE_NAME, default_dir

    return (folder or default_dir()) / FILE_NAME


def learn(
    threads: Annotated[int, typer.Option(min=1, help="Training threads sharing one network.")] = 1,
    hours: Annotated[float | None, typer.Option(min=0.0, help="Stop after this many hours.")] = None,
    games: Annotated[
        int | None, typer.Option(min=1, help="Stop once the run has trained this many games in all.")
    ] = None,
    checkpoint_every: Annotated[float, typer.Option(min=0.1, help="Minutes between checkpoints.")] = 15.0,
    folder: Annotated[Path | None, typer.Option("--dir", help=_DIR_HELP)] = None,
    alpha: Annotated[
        float | None,
        typer.Option(
            min=0.0,
            help="Learning rate, split over the 32 weights of a board (default 0.1; on resume: the run's).",
        ),
    ] = None,
    seed: Annotated[int, typer.Option(min=0, help="Seed of the training spawns (a new run only).")] = 0,
    window: Annotated[int, typer.Option(min=1, help="Games per row of the curve (a new run only).")] = 10_000,
    fresh: Annotated[
        bool, typer.Option("--fresh", help="Start from an untrained network even if a checkpoint exists.")
    ] = False,
) -> None:
    """Train the 4x4 n-tuple network by TD(0), resuming from its checkpoint if there is one.

    Saves every --checkpoint-every minutes and when it stops (after --hours,
    at --games, or on Ctrl-C / SIGTERM). Prints a row of the learning curve
    every --window games. One run at a time may use a folder.
    """
    from .checkpoint import Busy, claim

    path = _checkpoint_path(folder)
    try:
        with claim(path.parent):
            _train(path, threads, hours, games, checkpoint_every, alpha, seed, window, fresh)
    except Busy as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from None


def _train(
    path: Path,
    threads: int,
    hours: float | None,
    games: int | None,
    checkpoint_every: float,
    alpha: float | None,
    seed: int,
    window: int,
    fresh: bool,
) -> None:
    from .checkpoint import load
    from .train import new_run, train

    def say(line: str) -> None:
        typer.echo(line)

    if path.exists() and not fresh:
        run = load(path)
        if alpha is not None:
            run.alpha = alpha
        say(
            f"resuming {path}: {run.games:,} games, {run.moves:,} moves, "
            f"{run.cpu_seconds / 3600:.2f} cpu h, alpha {run.alpha}"
        )
    else:
        run = new_run(alpha=0.1 if alpha is None else alpha, seed=seed, window=window)
        say(f"new run at {path}: alpha {run.alpha}, seed {seed}, curve every {window:,} games")
    train(
        run,
        threads=threads,
        seconds=None if hours is None else hours * 3600,
        max_games=games,
        checkpoint=path,
        checkpoint_every=checkpoint_every * 60,
        log=say,
        handle_signals=True,
    )
    rate = run.moves / run.cpu_seconds / 1e6 if run.cpu_seconds else 0.0
    say(f"stopped: {run.games:,} games, {run.moves:,} moves, {rate:.2f} M moves per cpu-second")


def learn_eval(
    games: Annotated[int, typer.Option(min=1, help="Games to play.")] = 1000,
    seed: Annotated[int, typer.Option(min=0, help="Game i is played with seed SEED + i.")] = 0,
    ply: Annotated[int, typer.Option(min=1, max=2, help="1: greedy; 2: one spawn further.")] = 1,
    threads: Annotated[int, typer.Option(min=1, help="Threads to play on.")] = 1,
    folder: Annotated[Path | None, typer.Option("--dir", help=_DIR_HELP)] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object instead of a report.")] = (
        False
    ),
) -> None:
    """Play seeded 4x4 games with the trained network (the game's real spawns) and print its strength."""
    from ...spawn import MAX_SEED
    from .checkpoint import load
    from .play import evaluate

    path = _checkpoint_path(folder)
    if not path.exists():
        raise typer.BadParameter(f"no checkpoint at {path}: train with `game2048 learn`", param_hint="--dir")
    if seed + games > MAX_SEED:
        raise typer.BadParameter("seed + games must stay below 2^53", param_hint="--seed")
    run = load(path, writable=False)
    result = evaluate(run.weights, games, seed=seed, ply=ply, threads=threads)
    if as_json:
        typer.echo(json.dumps({"trained_games": run.games, "trained_moves": run.moves, **result.as_dict()}))
        return
    typer.echo(
        f"network: {run.games:,} training games, {run.moves:,} moves, {run.cpu_seconds / 3600:.2f} cpu h"
    )
    typer.echo(f"games: {games}  (seeds {seed} to {seed + games - 1}, 4x4, {ply}-ply)")
    typer.echo(f"moves: {result.moves}")
    typer.echo(f"time per move: {result.us_per_move:.2f} µs (one thread)")
    typer.echo(f"mean score: {result.mean_score:.0f}")
    typer.echo("reached:")
    for tile, share in result.reached.items():
        lo, hi = result.interval(tile)
        typer.echo(f"  {tile:>7}  {100 * share:5.1f} %   (95 %: {100 * lo:.1f}–{100 * hi:.1f})")
    if result.capped:
        typer.echo(f"stopped with two 32768s on the board: {result.capped} game(s)")
