"""The ``game2048`` command: each sub-command is a thin shell over a library module."""

from __future__ import annotations

from typing import Annotated

import typer

from .record import replay as replay_record
from .record_file import fail, read_record_file

app = typer.Typer(
    help="2048 on boards 3x3 to 6x6: replay records, serve the web game, run the solver.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _root() -> None:
    """2048 on boards 3x3 to 6x6: replay records, serve the web game, run the solver."""


@app.command()
def replay(
    file: Annotated[str, typer.Argument(help="JSON record {size, seed, log}; '-' reads standard input.")],
) -> None:
    """Replay a game record and print its final board, score, max tile and ranking status."""
    record = read_record_file(file)
    try:
        game = replay_record(record["size"], record["seed"], record["log"])
    except ValueError as exc:
        fail(str(exc))
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
# review: solver/review_command.py, play: terminal/command.py)

from .server.command import serve  # noqa: E402

app.command()(serve)

from .pages.command import simulate  # noqa: E402

app.command()(simulate)

from .solver.command import solve  # noqa: E402

app.command()(solve)

from .solver.review_command import review  # noqa: E402

app.command()(review)

from .terminal.command import play  # noqa: E402

app.command()(play)

# learn and learn-eval: solver/learn/command.py
from .solver.learn.command import learn, learn_eval  # noqa: E402

app.command()(learn)
app.command("learn-eval")(learn_eval)
