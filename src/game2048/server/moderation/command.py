"""``game2048 mod``: the operators' queue and actions from the command line, against the database.

The same functions as the ``/mod`` page (``moderation``), for operators without a browser:
every action is written to the same audit log, under ``--operator``.
"""

from __future__ import annotations

import getpass
import json
import os
from typing import Annotated

import typer

app = typer.Typer(help="Moderation: the queue of games that wait for a person, actions, the audit log.",
                  no_args_is_help=True)

Db = Annotated[str | None, typer.Option("--db", help="Database URL; default DATABASE_URL, else the "
                                                     "user's SQLite file (as game2048 serve).")]


def _sessions(db: str | None):  # type: ignore[no-untyped-def]
    from sqlalchemy.orm import sessionmaker

    from ..config import Settings
    from ..storage.db import make_engine, migrate

    engine = make_engine(Settings.from_env(db).database_url)
    migrate(engine)
    return sessionmaker(engine)


@app.command()
def queue(db: Db = None, limit: Annotated[int, typer.Option(min=1)] = 50,
          as_json: Annotated[bool, typer.Option("--json", help="One JSON object a line.")] = False) -> None:
    """The games that wait for a decision: held, reported, or moved by the check."""
    from .queue import cases

    with _sessions(db)() as session:
        found = cases(session, limit)
    for case in found:
        if as_json:
            typer.echo(json.dumps({"id": case.id, "name": case.name, "size": case.size, "score": case.score,
                                   "max_tile": case.max_tile, "standing": case.standing, "why": case.why,
                                   "reports": case.reports, "likeness": case.likeness}))
        else:
            typer.echo(f"{case.id}  {case.size}x{case.size}  {case.score:>8}  {case.max_tile:>6}  "
                       f"{case.name}  [{case.standing}] {'; '.join(case.why)}")
    if not found and not as_json:
        typer.echo("the queue is empty")


@app.command("act")
def act_command(
    action: Annotated[str, typer.Argument(help="list, engines, hide (a game); bar, release (a name).")],
    target: Annotated[str, typer.Argument(help="The game's id, or the name.")],
    why: Annotated[str, typer.Option(help="Why: kept in the audit log.")],
    operator: Annotated[str | None, typer.Option(help="Who acts; default the login name.")] = None,
    db: Db = None,
) -> None:
    """Decide a game or a name; the action is written to the audit log."""
    from ..errors import ClientError
    from .actions import act

    with _sessions(db)() as session:
        try:
            done = act(session, operator or os.environ.get("USER") or getpass.getuser(), action, target, why)
        except ClientError as exc:
            typer.echo(f"error: {exc.message}", err=True)
            raise typer.Exit(1) from None
    typer.echo(f"{done.action} {done.target}: {json.dumps(done.before)} -> {json.dumps(done.after)}")


@app.command("log")
def log_command(db: Db = None, limit: Annotated[int, typer.Option(min=1)] = 50) -> None:
    """The audit log, newest first."""
    from .actions import audit_log

    with _sessions(db)() as session:
        for entry in audit_log(session, limit):
            typer.echo(f"{entry.at:%Y-%m-%d %H:%M:%S}  {entry.operator}  {entry.action} {entry.target}  "
                       f"({entry.why})  {json.dumps(entry.before)} -> {json.dumps(entry.after)}")


@app.command()
def password() -> None:
    """Make the hash for GAME2048_MOD_PASSWORD_HASH from a password typed twice (not echoed)."""
    from .access import password_hash

    typed = typer.prompt("password", hide_input=True, confirmation_prompt=True)
    if len(typed) < 12:
        typer.echo("error: use at least 12 characters", err=True)
        raise typer.Exit(1)
    typer.echo(password_hash(typed))
