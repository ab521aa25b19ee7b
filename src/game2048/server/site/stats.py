"""Figures computed from the simulation data: what the strategy, boards and solver pages print.

>>> s = summarize([[0, 1000, 128, 90, 1, "1234"], [1, 3000, 256, 200, 1, "5678"]], size=2)
>>> s["games"], s["mean_score"], s["reach"][256]
(2, 2000.0, 0.5)
"""

from __future__ import annotations

import statistics
from collections import Counter
from functools import lru_cache
from pathlib import Path
from typing import Any

from ...solver.simulate import DATA_FILE, decode_board, load

#: Score histogram bins for 4x4 games (points); the last bin is open.
SCORE_BINS: tuple[int, ...] = (0, 1000, 2000, 3000, 4000, 6000, 8000, 12000, 16000, 24000, 32000, 48000)


def _percentile(sorted_values: list[int], q: float) -> float:
    if not sorted_values:
        return 0.0
    k = (len(sorted_values) - 1) * q
    lo = int(k)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (k - lo)


def trapped_small_tiles(board: list[list[int]]) -> int:
    """Tiles of 2 or 4 whose every neighbour is at least 8 times larger: walled in, useless.

    >>> trapped_small_tiles([[2, 64], [64, 128]])
    1
    """
    n = len(board)
    count = 0
    for r in range(n):
        for c in range(n):
            v = board[r][c]
            if v not in (2, 4):
                continue
            around = [
                board[i][j]
                for i, j in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
                if 0 <= i < n and 0 <= j < n
            ]
            if all(w >= 8 * v for w in around):
                count += 1
    return count


def summarize(rows: list[list[Any]], size: int) -> dict[str, Any]:
    """Games, score and move figures, the ending largest tile and the share reaching each tile."""
    scores = sorted(r[1] for r in rows)
    tiles = Counter(r[2] for r in rows)
    n = len(rows)
    top = max(tiles) if tiles else 0
    reach = {}
    t = 2
    while t <= top:
        reach[t] = sum(c for tile, c in tiles.items() if tile >= t) / n
        t *= 2
    ended = [r for r in rows if r[4]]
    trapped = [trapped_small_tiles(decode_board(r[5])) for r in ended]
    walled = [r[1] for r, k in zip(ended, trapped, strict=True) if k]
    free = [r[1] for r, k in zip(ended, trapped, strict=True) if not k]
    bins = Counter()
    for s in scores:
        bins[max(b for b in SCORE_BINS if b <= s)] += 1
    return {
        "games": n,
        "seeds": (rows[0][0], rows[-1][0]) if rows else (0, 0),
        "finished": sum(r[4] for r in rows),
        "capped_at": max((r[3] for r in rows if not r[4]), default=0),
        "mean_score": statistics.fmean(scores) if scores else 0.0,
        "median_score": _percentile(scores, 0.5),
        "p10_score": _percentile(scores, 0.1),
        "p90_score": _percentile(scores, 0.9),
        "best_score": scores[-1] if scores else 0,
        "mean_moves": statistics.fmean(r[3] for r in rows) if rows else 0.0,
        "ending_tile": {tile: tiles[tile] / n for tile in sorted(tiles)},
        "reach": reach,
        "score_bins": {b: bins[b] / n for b in SCORE_BINS if n},
        "trapped_share": (sum(1 for k in trapped if k) / len(trapped)) if trapped else 0.0,
        "trapped_mean": statistics.fmean(trapped) if trapped else 0.0,
        "score_trapped": statistics.fmean(walled) if walled else 0.0,
        "score_not_trapped": statistics.fmean(free) if free else 0.0,
    }


@lru_cache(maxsize=4)
def _figures(path: str, mtime: float) -> dict[str, Any]:
    data = load(path)
    results = {
        int(size): {name: summarize(rows, int(size)) for name, rows in by_strategy.items() if rows}
        for size, by_strategy in data.get("results", {}).items()
    }
    return {"runs": data.get("runs", []), "results": results}


def figures(path: Path | str = DATA_FILE) -> dict[str, Any]:
    """``{"runs": [...], "results": {size: {strategy: summary}}}``, re-read when the file changes."""
    path = Path(path)
    mtime = path.stat().st_mtime if path.exists() else 0.0
    return _figures(str(path), mtime)
