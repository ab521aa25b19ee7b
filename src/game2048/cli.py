"""The ``game2048`` command: each sub-command is a thin shell over a library module."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from .record import replay as replay_record

app = typer.Typer(
    help="2048 on boards 3x3 to 6x6: replay records, serve the web game, run the solver.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _root() -> None:
    """2048 on boards 3x3 to 6x6: replay records, serve the web game, run the solver."""


def _fail(message: str) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code=1)


@app.command()
def replay(
    file: Annotated[str, typer.Argument(help="JSON record {size, seed, log}; '-' reads standard input.")],
) -> None:
    """Replay a game record and print its final board, score, max tile and ranking status."""
    try:
        text = sys.stdin.read() if file == "-" else Path(file).read_text(encoding="utf-8")
    except OSError as exc:
        _fail(f"cannot read {file}: {exc.strerror or exc}")
    try:
        record = json.loads(text)
    except json.JSONDecodeError as exc:
        _fail(f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}")
    if not isinstance(record, dict) or not {"size", "seed", "log"} <= record.keys():
        _fail('a record is a JSON object {"size": 3..6, "seed": integer, "log": "UDLRZ..."}')
    try:
        game = replay_record(record["size"], record["seed"], record["log"])
    except ValueError as exc:
        _fail(str(exc))
    width = len(str(game.max_tile))
    for row in game.board:
        typer.echo(" ".join(str(v or ".").rjust(width) for v in row))
    typer.echo(f"score: {game.score}")
    typer.echo(f"max tile: {game.max_tile}")
    typer.echo(f"moves: {game.moves}")
    typer.echo(f"won: {'yes' if game.won else 'no'}")
    typer.echo(f"over: {'yes' if game.over else 'no'}")
    typer.echo(f"ranked: {'yes' if game.ranked else 'no (undo used)'}")


# Sub-commands defined beside the code they drive; each keeps its heavy imports
# inside the function so that `game2048 --help` stays instant.
# (serve: server/command.py, solve: solver/command.py, simulate: pages/command.py,
# play: terminal/command.py)

from .server.command import serve  # noqa: E402

app.command()(serve)

from .pages.command import simulate  # noqa: E402

app.command()(simulate)

from .solver.command import solve  # noqa: E402

app.command()(solve)

from .terminal.command import play  # noqa: E402

app.command()(play)
