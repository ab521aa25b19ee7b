"""The site: every HTML page, rendered in the player's language by one ``render()``.

The game page (``play``), the leaderboards and the replay of a finished game
(``records``), the solver's review of one (``review``), and the content pages
with the simulations behind them (``content``, ``stats``; ``solver.simulate``). The
templates live in ``templates/``, the interface strings in ``i18n``.

``game2048.server.site.router`` serves them all; the server includes it. It is built
on first use so that importing the package does not pay for the web stack.
"""

from __future__ import annotations

from typing import Any

__all__ = ["PagesMissing", "router"]


class PagesMissing(ImportError):
    """A page module failed to import (the message names it and why)."""


def __getattr__(name: str) -> Any:
    if name == "router":
        from fastapi import APIRouter

        try:
            from . import content, mod, play, records, review
        except Exception as exc:  # never a server without some of its pages: say which and stop
            raise PagesMissing(f"the site's pages could not be loaded, so the server does not start: "
                               f"{type(exc).__name__}: {exc}") from exc
        router = APIRouter(include_in_schema=False)
        for part in (records, review, content, play, mod):
            router.include_router(part.router)
        globals()["router"] = router
        return router
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
