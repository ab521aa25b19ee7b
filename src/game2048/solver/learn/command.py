"""``game2048 learn`` trains the network, ``learn-eval`` measures it, ``learn-export`` ships it.

``learn`` resumes the checkpoint in its folder, or else the shipped weights
(``shipped``), so one run goes on across machines that are not kept.
"""

from __future__ import annotations

import json
import time
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from .checkpoint import Run

_DIR_HELP = "Folder of the checkpoint (default: the user data directory's learn folder)."


def _checkpoint_path(folder: Path | None) -> Path:
    from .checkpoint import FILE_NAME, default_dir

    return (folder or default_dir()) / FILE_NAME


def _described(chain: list[Path]) -> str:
    """A weights file, and how many patches go on it."""
    patches = len(chain) - 1
    return f"{chain[0]}" + (f" and {patches} patch{'es' if patches > 1 else ''}" if patches else "")


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
    restart: Annotated[
        float | None,
        typer.Option(
            min=0.0, max=1.0,
            help="Share of games restarted from a late position of the game before (default 0; on resume: "
            "the run's).",
        ),
    ] = None,
    stages: Annotated[
        int | None,
        typer.Option(
            min=1, max=3,
            help="Sets of weights by the part of the game: 1; 2, the second from a board's first 8192; "
            "3, the third from its first 16384. Stages a run gets start as copies of its last "
            "(default 1; on resume: the run's).",
        ),
    ] = None,
    coherence: Annotated[
        bool | None,
        typer.Option(
            "--coherence/--no-coherence",
            help="Temporal coherence learning: each weight's step scaled by how much its own steps agree "
            "(default off; on resume: the run's).",
        ),
    ] = None,
    seed: Annotated[int, typer.Option(min=0, help="Seed of the training spawns (a new run only).")] = 0,
    window: Annotated[int, typer.Option(min=1, help="Games per row of the curve (a new run only).")] = 10_000,
    fresh: Annotated[
        bool,
        typer.Option(
            "--fresh", help="Start from an untrained network even if a checkpoint or shipped weights exist."
        ),
    ] = False,
    start: Annotated[
        Path | None,
        typer.Option(
            "--from",
            exists=True,
            dir_okay=False,
            help="Go on from this shipped weights file (`game2048 learn-export`); replaces the checkpoint.",
        ),
    ] = None,
) -> None:
    """Train the 4x4 n-tuple network by TD(0), resuming from its checkpoint if there is one.

    With no checkpoint in the folder it goes on from the shipped weights
    (`pip install ./weights`) when they are installed, counters and curve
    included. Saves every --checkpoint-every minutes and when it stops
    (after --hours, at --games, or on Ctrl-C / SIGTERM). Prints a row of the
    learning curve every --window games. One run at a time may use a folder.
    """
    from .checkpoint import Busy, claim

    if fresh and start is not None:
        raise typer.BadParameter("--fresh starts from nothing: leave out one of --fresh and --from")
    path = _checkpoint_path(folder)
    try:
        with claim(path.parent):
            _train(path, threads, hours, games, checkpoint_every, alpha, restart, stages, coherence, seed,
                   window, fresh, start)
    except Busy as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from None


def _tc(run: Run) -> str:
    return "temporal coherence, " if run.coherence else ""


def _train(
    path: Path,
    threads: int,
    hours: float | None,
    games: int | None,
    checkpoint_every: float,
    alpha: float | None,
    restart: float | None,
    stages: int | None,
    coherence: bool | None,
    seed: int,
    window: int,
    fresh: bool,
    start: Path | None,
) -> None:
    from . import shipped
    from .checkpoint import add_stages, load, stages_of
    from .train import new_run, train

    def say(line: str) -> None:
        typer.echo(line)

    def resumed(run: Run, source: str) -> None:
        if alpha is not None:
            run.alpha = alpha
        if restart is not None:
            run.restart = restart
        if coherence is not None:
            run.coherence = coherence
            if not coherence:
                run.accumulators = None
        had = stages_of(run.weights)
        if stages is not None:
            try:
                add_stages(run, stages)
            except ValueError as exc:
                typer.echo(f"error: {exc}", err=True)
                raise typer.Exit(1) from None
        now = stages_of(run.weights)
        say(
            f"resuming {source}: {run.games:,} games, {run.moves:,} moves, "
            f"{run.cpu_seconds / 3600:.2f} cpu h, alpha {run.alpha}, restart {run.restart}, {_tc(run)}"
            f"{now} stage{'s' if now > 1 else ''}" + (f" ({now - had} new)" if now > had else "")
        )

    chain = None if start is None else [start]
    if chain is None and not fresh and not path.exists():
        with suppress(shipped.NotInstalled):
            chain = shipped.installed_chain()
    if chain is not None:
        try:
            run = shipped.read_chain(chain)
        except shipped.Corrupt as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(1) from None
        resumed(run, f"shipped weights {_described(chain)} (int16), saving to {path}")
    elif path.exists() and not fresh:
        run = load(path)
        resumed(run, str(path))
    else:
        run = new_run(alpha=0.1 if alpha is None else alpha, seed=seed, window=window, restart=restart or 0.0,
                      stages=stages or 1, coherence=bool(coherence))
        say(f"new run at {path}: alpha {run.alpha}, restart {run.restart}, {_tc(run)}"
            f"{stages_of(run.weights)} stage(s), seed {seed}, curve every {window:,} games")
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
    ply: Annotated[int, typer.Option(min=1, max=3, help="1: greedy; 2: one spawn further; 3: two.")] = 1,
    threads: Annotated[int, typer.Option(min=1, help="Threads to play on.")] = 1,
    folder: Annotated[Path | None, typer.Option("--dir", help=_DIR_HELP)] = None,
    use_shipped: Annotated[
        bool, typer.Option("--shipped", help="Measure the installed shipped weights, not the checkpoint.")
    ] = False,
    weights: Annotated[
        Path | None,
        typer.Option(exists=True, dir_okay=False,
                     help="Measure this shipped file (and the patches beside it, network.patch-N), not the "
                          "checkpoint."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object instead of a report.")] = (
        False
    ),
) -> None:
    """Play seeded 4x4 games with the trained network (the game's real spawns) and print its strength."""
    from ...spawn import MAX_SEED
    from . import shipped
    from .checkpoint import load
    from .play import evaluate

    if seed + games > MAX_SEED:
        raise typer.BadParameter("seed + games must stay below 2^53", param_hint="--seed")
    if use_shipped and weights is not None:
        raise typer.BadParameter("--shipped is the installed file: leave out one of --shipped and --weights")
    if use_shipped or weights is not None:
        try:
            chain = shipped.chain_of(weights) if weights is not None else shipped.installed_chain()
            run = shipped.open_mapped(chain)
        except (shipped.NotInstalled, shipped.Corrupt) as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(1) from None
        source = chain[-1]
        what = f" (shipped weights {_described(chain)})"
    else:
        source = _checkpoint_path(folder)
        if not source.exists():
            raise typer.BadParameter(
                f"no checkpoint at {source}: train with `game2048 learn`, or measure --shipped weights",
                param_hint="--dir",
            )
        run = load(source, writable=False)
        what = ""
    result = evaluate(run.weights, games, seed=seed, ply=ply, threads=threads)
    if as_json:
        trained = {"weights": str(source), "trained_games": run.games, "trained_moves": run.moves,
                   "stages": len(run.weights) // 4}
        typer.echo(json.dumps({**trained, **result.as_dict()}))
        return
    stages = len(run.weights) // 4
    typer.echo(
        f"network: {run.games:,} training games, {run.moves:,} moves,"
        f" {run.cpu_seconds / 3600:.2f} cpu h, {stages} stage{'s' if stages > 1 else ''}{what}"
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


def learn_export(
    out: Annotated[
        Path,
        typer.Argument(
            dir_okay=False,
            help="The file to write; the repository's is weights/src/game2048_weights/network.weights.",
        ),
    ],
    folder: Annotated[Path | None, typer.Option("--dir", help=_DIR_HELP)] = None,
    preset: Annotated[int, typer.Option(min=0, max=9, help="xz preset: 0 fastest, 9 smallest.")] = 6,
    steps: Annotated[
        int, typer.Option(min=1, max=32767,
            help="Steps from 0 to a table's largest weight (int16: 32767 at most).")
    ] = 1023,
    patch: Annotated[
        bool, typer.Option("--patch", help="Write a patch on the installed weights and their patches: "
                                           "only the weights that moved, in the installed file's steps.")
    ] = False,
) -> None:
    """Write the checkpoint as shipped weights: int16 with one scale per table, xz, and the run's header.

    The file is what the repository's weights/ distribution ships, and what
    `game2048 learn` goes on from on a machine with no checkpoint. Reading
    the checkpoint does not disturb a run training in its folder. With
    --patch it is the next patch of the installed weights (a few MB where a
    whole file is 17.7; in the package as network.patch-N, N one more than
    the last).
    """
    from . import shipped
    from .checkpoint import load
    from .ntuple import TABLE_SIZE

    path = _checkpoint_path(folder)
    if not path.exists():
        raise typer.BadParameter(f"no checkpoint at {path}: train with `game2048 learn`", param_hint="--dir")
    run = load(path, writable=False)
    started = time.monotonic()
    if patch:
        try:
            chain = shipped.installed_chain()
            header = shipped.write_patch(run, chain, out, preset=preset)
        except (shipped.NotInstalled, shipped.Corrupt, ValueError) as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(1) from None
        steps = shipped.read_header(chain[0])["steps"]
    else:
        header = shipped.write(run, out, preset=preset, steps=steps)
    seconds = time.monotonic() - started
    typer.echo(
        f"exported {path} ({run.games:,} games, {run.moves:,} moves, {run.cpu_seconds / 3600:.2f} cpu h)"
        f" to {out}{' as a patch on ' + _described(chain) if patch else ''}:"
        f" {out.stat().st_size / 1e6:.1f} MB in {seconds:.1f} s"
    )
    if patch:
        moved = sum(header["nonzero"]) / (len(run.weights) * TABLE_SIZE)
        typer.echo(f"in the base's {steps:,} steps; weights that moved: {100 * moved:.1f} %")
        return
    share = sum(header["nonzero"]) / (len(run.weights) * TABLE_SIZE)
    scales = ", ".join(f"{s:.4g}" for s in header["scales"])
    typer.echo(f"int16 in {steps:,} steps, scales {scales}; weights not 0: {100 * share:.1f} %")
