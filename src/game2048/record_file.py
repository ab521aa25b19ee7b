"""A game record read by a command from a JSON file, or ``-`` for standard input.

Every way it can be wrong ends the command with one ``error:`` line and exit
status 1, never a traceback.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, NoReturn

import typer


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
