"""When each move of a server-dealt game reached the server, kept with its record.

A game in play keeps, per batch of letters the server accepted, the moment it
arrived (ms since the Unix epoch). The finish turns that into the record's
``times``: for each letter of the log, the ms since the letter before (the
first: since the game was issued), written as decimal numbers joined by
commas, so that a 20,000-move game keeps about 80 KB. Letters of one batch
arrived together: after the first, they read 0.

>>> text = times_text(1_000, [(0, 1_400), (1, 1_900), (3, 2_000)], 4)
>>> text
'400,500,0,100'
>>> times_from_text(text)
[400, 900, 900, 1000]
"""

from __future__ import annotations

from collections.abc import Sequence


def times_text(started_ms: int, batches: Sequence[tuple[int, int | None]], length: int) -> str | None:
    """The record's ``times`` for a log of ``length`` letters from its batches ``(at, ms)`` (the
    log length each began at, and when it arrived); None if any letter's arrival is unknown."""
    arrived: list[int] = []
    ordered = sorted(batches)
    for k, (at, ms) in enumerate(ordered):
        end = ordered[k + 1][0] if k + 1 < len(ordered) else length
        if ms is None or at != len(arrived):
            return None
        arrived += [ms] * (min(end, length) - at)
    if len(arrived) != length:
        return None
    before, deltas = started_ms, []
    for ms in arrived:
        deltas.append(max(0, ms - before))
        before = max(before, ms)
    return ",".join(map(str, deltas))


def times_from_text(text: str | None) -> list[int] | None:
    """Each letter's arrival in ms since the game was issued, from a record's ``times``."""
    if not text:
        return None
    total, out = 0, []
    for part in text.split(","):
        total += int(part)
        out.append(total)
    return out
