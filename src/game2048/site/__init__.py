"""The site: every HTML page, rendered in the player's language by one ``render()``.

The game page (``play``), the leaderboards and the replay of a finished game
(``records``), the solver's review of one (``review``), and the content pages
with the simulations behind them (``content``, ``stats``, ``simulate``). The
templates live in ``templates/``, the interface strings in ``i18n``.

``game2048.site.router`` serves them all; the server includes it. It is built
on first use so that the ``simulate`` command does not pay for the web stack.
"""

from __future__ import annotations

from typing import Any

__all__ = ["router"]


def __getattr__(name: str) -> Any:
    if name == "router":
        from fastapi import APIRouter

        from . import content, play, records, review

        router = APIRouter(include_in_schema=False)
        for part in (records, review, content, play):
            router.include_router(part.router)
        globals()["router"] = router
        return router
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
