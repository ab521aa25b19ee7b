"""GET /rules, /strategy, /boards and /solver: server-rendered pages in four languages.

Each route gathers facts (from the rules module and the simulation data) and
hands them to the page's template for the request's language,
``templates/pages/<page>.<lang>.html``.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from starlette.requests import Request
from starlette.responses import HTMLResponse

from ...rules import SIZES, TARGETS, max_tile_for, slide_row
from .charts import bar_chart
from .i18n import pick_language, strategy_name, strings
from .render import TEMPLATE_DIR, render
from .stats import SCORE_BINS, figures

router = APIRouter(include_in_schema=False)


def _page(request: Request, page: str, **context: Any) -> HTMLResponse:
    """Render ``pages/<page>.<lang>.html``; English if that language's text is missing."""
    lang = pick_language(request)
    if not (TEMPLATE_DIR / "pages" / f"{page}.{lang}.html").exists():
        lang = "en"
    context.setdefault("description", strings(lang)[f"desc_{page}"])
    return render(request, f"pages/{page}.{lang}.html", page, lang=lang, **context)


#: The order strategies appear in on the pages, weakest idea first.
STRATEGY_ORDER = ("random", "greedy", "corner-greedy", "corner-rush", "corner", "solver-fast")

#: Left moves from the rules' worked examples (0 = empty).
LEFT_EXAMPLES: tuple[tuple[int, ...], ...] = (
    (2, 2, 2, 2),
    (4, 2, 2, 0),
    (2, 2, 4, 0),
    (2, 2, 2, 0),
    (2, 0, 0, 2),
    (8, 4, 4, 8),
    (2, 4, 2, 4),
)


def _example(before: tuple[int, ...], direction: str = "left") -> dict[str, Any]:
    """A worked example computed by the rules themselves, so the page cannot contradict them."""
    if direction == "right":
        moved, points = slide_row(before[::-1])
        after = moved[::-1]
    else:
        after, points = slide_row(before)
    return {
        "before": list(before),
        "after": list(after),
        "points": points,
        "legal": list(after) != list(before),
    }


def _board_sizes() -> list[dict[str, int]]:
    return [{"n": n, "cells": n * n, "target": TARGETS[n], "max_tile": max_tile_for(n)} for n in SIZES]


@router.get("/rules", response_class=HTMLResponse)
def rules_page(request: Request) -> HTMLResponse:
    """The complete rules."""
    examples = {
        "left": [_example(row) for row in LEFT_EXAMPLES],
        "once": _example((4, 4, 4, 4)),
        "wall": _example((4, 4, 4, 0)),
        "right": _example((2, 2, 2, 0), "right"),
    }
    return _page(
        request,
        "rules",
        examples=examples,
        sizes=_board_sizes(),
        score_2048=(11 - 1) * 2048,
    )


def _strategies(by_strategy: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [(s, by_strategy[s]) for s in STRATEGY_ORDER if s in by_strategy]


def _total_games(results: dict[int, dict[str, Any]]) -> int:
    return sum(s["games"] for by in results.values() for s in by.values())


def _reach_chart(title: str, items: list[tuple[str, dict[str, Any]]], tiles: list[int], lang: str) -> Any:
    return bar_chart(
        title,
        [str(t) for t in tiles],
        [(strategy_name(lang, name), [s["reach"].get(t, 0.0) for t in tiles]) for name, s in items],
    )


@router.get("/strategy", response_class=HTMLResponse)
def strategy_page(request: Request) -> HTMLResponse:
    """The corner method against the common mistakes, on 4x4, from our simulations."""
    lang = pick_language(request)
    t = strings(lang)
    data = figures()
    items = _strategies(data["results"].get(4, {}))
    tiles = sorted({tile for _, s in items for tile in s["reach"] if tile >= 32})
    charts = {}
    if items:
        charts["reach"] = _reach_chart(t["share_reaching"], items, tiles, lang)
        top_bin = max((b for _, s in items for b, share in s["score_bins"].items() if share), default=0)
        bins = [b for b in SCORE_BINS if b <= top_bin]
        charts["scores"] = bar_chart(
            t["score_share"],
            [_bin_label(bins, i) for i in range(len(bins))],
            [(strategy_name(lang, name), [s["score_bins"][b] for b in bins]) for name, s in items],
        )
    else:
        bins = []
    by_name = dict(items)
    return _page(
        request,
        "strategy",
        items=by_name,
        order=[name for name, _ in items],
        # each strategy's summary under the short name every language's template uses
        **{short: by_name.get(name) for short, name in _SHORT_NAMES.items()},
        rows=[(strategy_name(lang, name), s) for name, s in items],
        tiles=tiles,
        bins=[(_bin_label(bins, i), b) for i, b in enumerate(bins)],
        charts=charts,
        runs=data["runs"],
        total_games=_total_games({4: by_name}),
    )


_SHORT_NAMES = {
    "r": "random", "g": "greedy", "cg": "corner-greedy",
    "cr": "corner-rush", "c": "corner", "sv": "solver-fast",
}


def _bin_label(bins: list[int], i: int) -> str:
    lo = bins[i]
    return f"{lo:,}+" if i == len(bins) - 1 else f"{lo:,}–{bins[i + 1] - 1:,}"


def _per_size(strategy: str) -> dict[int, dict[str, Any]]:
    results = figures()["results"]
    return {n: results[n][strategy] for n in SIZES if strategy in results.get(n, {})}


def _size_charts(
    solver: dict[int, dict[str, Any]], corner: dict[int, dict[str, Any]], lang: str
) -> dict[int, dict[str, Any]]:
    """One chart per size: the solver's games where there are some, else the corner method's."""
    t = strings(lang)
    charts = {}
    for n in SIZES:
        name, s = ("solver-fast", solver[n]) if n in solver else ("corner", corner.get(n))
        if s is None:
            continue
        tiles = [tile for tile in s["reach"] if tile >= 16]
        who = strategy_name(lang, name)
        charts[n] = {
            "svg": bar_chart(
                f"{n}×{n}, {who}: {t['share_reaching']}",
                [str(tile) for tile in tiles],
                [(who, [s["reach"][tile] for tile in tiles])],
            ),
            "strategy": name,
            "summary": s,
        }
    return charts


@router.get("/boards", response_class=HTMLResponse)
def boards_page(request: Request) -> HTMLResponse:
    """How hard each board size is, measured with one solver preset (and the corner method)."""
    lang = pick_language(request)
    solver = _per_size("solver-fast")
    corner = _per_size("corner")
    return _page(
        request,
        "boards",
        sizes=_board_sizes(),
        solver=solver,
        corner=corner,
        charts=_size_charts(solver, corner, lang),
        best={n: solver.get(n) or corner[n] for n in SIZES if n in solver or n in corner},
        runs=figures()["runs"],
        total_games=sum(s["games"] for s in solver.values()) + sum(s["games"] for s in corner.values()),
    )


@router.get("/solver", response_class=HTMLResponse)
def solver_page(request: Request) -> HTMLResponse:
    """How the solver chooses a move, and how strong it measured."""
    lang = pick_language(request)
    t = strings(lang)
    solver = _per_size("solver-fast")
    chart = None
    top = max((tile for s in solver.values() for tile in s["reach"]), default=256)
    tiles = [1 << k for k in range(8, top.bit_length())]
    if solver:
        chart = bar_chart(
            t["share_reaching"],
            [str(tile) for tile in tiles],
            [(f"{n}×{n}", [s["reach"].get(tile, 0.0) for tile in tiles]) for n, s in solver.items()],
        )
    corner4 = figures()["results"].get(4, {}).get("corner")
    corner = _per_size("corner")
    presets = _preset_settings()
    learned = _per_size("solver-learned").get(4)
    return _page(
        request,
        "solver",
        learned_hints=_weights_installed(),
        learned=learned,
        learned_rows=[(strategy_name(lang, name), s) for name, s in
                      (("solver-learned", learned), ("solver-fast", solver.get(4))) if s],
        learned_tiles=sorted(t for t in (learned or {}).get("reach", {}) if t >= 2048),
        learned_weights=next((r["weights_games"] for r in reversed(figures()["runs"])
                              if "weights_games" in r and "solver-learned" in r["command"]), None),
        solver=solver,
        corner4=corner4,
        corner=corner,
        tiles=tiles,
        corner_wins=[n for n in solver if n in corner and corner[n]["mean_score"] >= solver[n]["mean_score"]],
        presets=presets,
        chart=chart,
        sizes=_board_sizes(),
        runs=figures()["runs"],
        total_games=sum(s["games"] for s in solver.values()),
    )


def _weights_installed() -> bool:
    """Whether this server has the trained network, which then gives 4x4 hints (``solver.hint``)."""
    from ...solver.learn import shipped

    try:
        shipped.installed()
    except shipped.NotInstalled:
        return False
    return True


def _preset_settings() -> list[dict[str, Any]]:
    """The solver's search settings, read from its code."""
    from ...solver.search import PRESET_SETTINGS

    return [
        {
            "preset": preset,
            "n": n,
            "min_depth": s.min_depth,
            "max_depth": s.max_depth,
            "cut": s.cut,
            "nodes": s.nodes,
            "crowded": getattr(s, "crowded", -1),
        }
        for preset, by_size in PRESET_SETTINGS.items()
        for n, s in sorted(by_size.items())
    ]
