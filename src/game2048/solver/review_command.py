"""``game2048 review``: the solver's review of a game record, as text or JSON."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from ..record_file import fail
from ..record_file import read_record as read_record_file

#: Games with more moves than this show a progress bar (on a terminal).
PROGRESS_FROM = 200


def read_record(file: str) -> tuple[int, int, str, list[list[int]] | None]:
    """``(size, seed, log, start)`` from a JSON record file, or ``-`` for standard input; exits on a
    bad one. ``start`` is the board a practice game began from (the record's ``start.board``, as
    ``GET /api/games/{id}`` serves it), None for an opening."""
    record = read_record_file(file)
    return record.size, record.seed, record.log, record.start


def draw(board: list[list[int]]) -> list[str]:
    """The board as lines of right-aligned numbers, ``.`` for an empty cell."""
    width = max(len(str(v)) for row in board for v in row)
    return [" ".join(str(v or ".").rjust(width) for v in row) for row in board]


def summary_lines(result: dict[str, Any], boards: dict[int, list[list[int]]]) -> list[str]:
    """The text report: accuracy, counts, the five worst moves with the board before each."""
    from .review import ARROWS, CLASSES, worst

    size = result["size"]
    moves = result["moves"]
    lines = [
        f"{size}x{size} game, seed {result['seed']}: {len(moves)} moves reviewed ({result['preset']} preset)",
        f"accuracy: {result['accuracy']:.1f}",
        "  ".join(f"{name}: {result['counts'][name]}" for name in CLASSES),
    ]
    bad = worst(moves)
    if not bad:
        lines.append("every move was as good as the solver's")
        return lines
    lines += ["", "worst moves:"]
    for m in bad:
        lines.append(
            f"move {m['n']}: played {m['played']} {ARROWS[m['played']]}, "
            f"better {m['best']} {ARROWS[m['best']]}  ({m['class']}, loss {m['loss']:.4g})"
        )
        lines += ["    " + row for row in draw(boards[m["n"]])]
    return lines


def review(
    file: Annotated[str, typer.Argument(
        help="JSON record {size, seed, log[, start]}; '-' reads standard input.")],
    preset: Annotated[str, typer.Option(help="The solver preset that grades the moves.")] = "normal",
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the review as one JSON object instead of a report.")
    ] = False,
) -> None:
    """Grade every move of a game with the solver: accuracy, counts, and the worst moves with a better one."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from .compiling import ensure_compiled
    from .review import boards_before, graded_count, worst
    from .review import review as run_review
    from .search import PRESETS

    if preset not in PRESETS:
        raise typer.BadParameter(f"must be one of {', '.join(PRESETS)}", param_hint="--preset")
    size, seed, log, start = read_record(file)
    ensure_compiled()  # a first compile says so before the progress bar starts
    err = Console(stderr=True)
    total = graded_count(log)
    show = err.is_terminal and total > PROGRESS_FROM
    columns = (TextColumn("reviewing"), BarColumn(), MofNCompleteColumn(), TextColumn("moves"),
               TimeElapsedColumn())
    with Progress(*columns, console=err, transient=True, disable=not show) as progress:
        bar = progress.add_task("moves", total=total)
        try:
            result = run_review(size, seed, log, preset, start_board=start,
                                progress=lambda done, _total: progress.update(bar, completed=done))
        except ValueError as exc:
            progress.stop()
            fail(str(exc))
    if as_json:
        typer.echo(json.dumps(result))
        return
    boards = boards_before(size, seed, log, {m["n"] for m in worst(result["moves"])}, start)
    for line in summary_lines(result, boards):
        typer.echo(line)
