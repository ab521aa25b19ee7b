"""The ``game2048`` command: each sub-command is a thin shell over a library module.

Exit status, for every command: 0 done, 1 failed (a bad record, a file that
cannot be read or written, a server out of reach or unable to start with its
settings), 2 bad usage (an unknown option, a value out of range). Every error is one ``error: ...`` line on
standard error.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from .record_file import replay_record_file

app = typer.Typer(
    help="2048 on boards 3x3 to 6x6: replay records, serve the web game, run the solver.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    # plain help: rendering it with rich would cost more CPU than the rest of start-up
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _show_version(value: bool) -> None:
    if value:
        from . import __version__

        typer.echo(f"game2048 {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_show_version, is_eager=True, help="Print the version and exit."),
    ] = False,
) -> None:
    """2048 on boards 3x3 to 6x6: replay records, serve the web game, run the solver."""


def main(args: list[str] | None = None) -> None:
    """The console script: runs ``app`` and ends with the exit status above.

    A usage error (bad option or value) prints one ``error:`` line and exits
    with 2, instead of click's usage block.
    """
    # click's exceptions, wherever this typer keeps them (its own copy of click, or click)
    errors = sys.modules[typer.BadParameter.__module__]
    try:
        code = app(args=args, prog_name="game2048", standalone_mode=False)
    except errors.UsageError as exc:
        if type(exc).__name__ == "NoArgsIsHelpError":  # no command given: the help, as click shows it
            typer.echo(exc.format_message())
        else:
            where = exc.ctx.command_path if exc.ctx else "game2048"
            typer.echo(f"error: {exc.format_message()} (see '{where} --help')", err=True)
        sys.exit(2)
    except errors.ClickException as exc:
        typer.echo(f"error: {exc.format_message()}", err=True)
        sys.exit(exc.exit_code)
    except typer.Abort:
        typer.echo("error: aborted", err=True)
        sys.exit(1)
    sys.exit(code if isinstance(code, int) else 0)


@app.command()
def replay(
    file: Annotated[
        str, typer.Argument(help="JSON record {size, seed, log[, start]}; '-' reads standard input.")
    ],
) -> None:
    """Replay a game record and print its final board, score, max tile and ranking status."""
    game = replay_record_file(file)
    width = len(str(game.max_tile))
    for row in game.board:
        typer.echo(" ".join(str(v or ".").rjust(width) for v in row))
    typer.echo(f"score: {game.score}")
    typer.echo(f"max tile: {game.max_tile}")
    typer.echo(f"moves: {game.moves}")
    typer.echo(f"won: {'yes' if game.won else 'no'}")
    typer.echo(f"over: {'yes' if game.over else 'no'}")
    if "start" in game.record():
        typer.echo("ranked: no (began from a position)")
    else:
        typer.echo(f"ranked: {'yes' if game.ranked else 'no (undo used)'}")


# Sub-commands defined beside the code they drive; each keeps its heavy imports
# inside the function so that `game2048 --help` stays instant.
# (serve: server/command.py, solve: solver/command.py, simulate: solver/simulate_command.py,
# review: solver/review_command.py, play: terminal/command.py)

from .server.command import serve  # noqa: E402

app.command()(serve)

from .solver.simulate_command import simulate  # noqa: E402

app.command()(simulate)

from .solver.command import solve  # noqa: E402

app.command()(solve)

from .solver.review_command import review  # noqa: E402

app.command()(review)

from .terminal.command import play  # noqa: E402

app.command()(play)

# mod queue / act / log / password: server/moderation/command.py
from .server.moderation.command import app as mod_app  # noqa: E402

app.add_typer(mod_app, name="mod")

# learn, learn-eval and learn-export: solver/learn/command.py
from .solver.learn.command import learn, learn_eval, learn_export  # noqa: E402

app.command()(learn)
app.command("learn-eval")(learn_eval)
app.command("learn-export")(learn_export)
