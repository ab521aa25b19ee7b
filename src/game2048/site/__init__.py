"""The site's content pages (rules, strategy, boards, solver) and the simulations behind them.

``game2048.site.router`` is the FastAPI router serving GET /rules, /strategy,
/boards and /solver; the server includes it. It is imported on first use so
that the ``simulate`` command does not pay for the web stack.
"""

from __future__ import annotations

from typing import Any

__all__ = ["router"]


def __getattr__(name: str) -> Any:
    if name == "router":
        from .content import router

        return router
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
