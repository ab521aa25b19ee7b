"""A game record read by a command from a JSON file, or ``-`` for standard input.

A record is ``{"size", "seed", "log"}``, and for a game that began from a
position also ``"start": {"board": rows of tile values, "score": n}`` (as
``Game.record()`` writes it and ``GET /api/games/{id}`` serves it). Every
way it can be wrong ends the command with one ``error:`` line and exit status
1, never a traceback.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, NoReturn

import typer

from .spawn import Seed

if TYPE_CHECKING:
    from .game import Game


def fail(message: str) -> NoReturn:
    """Print ``error: message`` on standard error and exit with status 1."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code=1)


def read_record_file(file: str) -> dict[str, Any]:
    """The JSON object in ``file`` (``-``: standard input), with at least ``size``, ``seed`` and ``log``."""
    try:
        text = sys.stdin.read() if file == "-" else Path(file).read_text(encoding="utf-8")
    except OSError as exc:
        fail(f"cannot read {file}: {exc.strerror or exc}")
    except UnicodeDecodeError:
        fail(f"{file} is not UTF-8 text")
    try:
        record = json.loads(text)
    except json.JSONDecodeError as exc:
        fail(f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}")
    if not isinstance(record, dict) or not {"size", "seed", "log"} <= record.keys():
        fail('a record is a JSON object {"size": 3..6, "seed": integer or "hex string", "log": "UDLRZ..."}')
    return record


class Record(NamedTuple):
    """A record's fields, checked: ``start`` is None for a game from an opening."""

    size: int
    seed: Seed
    log: str
    start: list[list[int]] | None
    start_score: int


def read_record(file: str) -> Record:
    """The record in ``file`` (``-``: standard input), its types checked; exits on a bad one."""
    record = read_record_file(file)
    size, seed, log = record["size"], record["seed"], record["log"]
    if type(size) is not int or type(seed) not in (int, str) or not isinstance(log, str):
        fail("size must be an integer, seed an integer or a hex string, and log a string")
    start = record.get("start")
    if start is None:
        return Record(size, seed, log, None, 0)
    board = start.get("board") if isinstance(start, dict) else None
    score = start.get("score", 0) if isinstance(start, dict) else None
    if not (isinstance(board, list) and all(isinstance(row, list) for row in board)
            and all(type(v) is int for row in board for v in row) and type(score) is int):
        fail('start must be null or {"board": rows of tile values, 0 for empty, "score": integer}')
    return Record(size, seed, log, board, score)


def replay_record_file(file: str) -> Game:
    """The game the record in ``file`` rebuilds, from its start position if it has one; exits on a bad one."""
    from .record import replay

    record = read_record(file)
    try:
        return replay(record.size, record.seed, record.log, start=record.start,
                      start_score=record.start_score)
    except ValueError as exc:
        fail(str(exc))
