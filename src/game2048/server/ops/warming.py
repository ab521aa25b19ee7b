"""The game's API waits for the solver to load; ``/healthz``, the pages and the static files do not.

A worker loads numba's compiled search in a thread once it serves (``app._lifespan``).
Loading holds the GIL for about half a second, and every request the worker has in
hand then waits for it: a move caught half-way would take that long. So requests
under ``/api/`` (HTTP and the play socket) that arrive while the solver loads wait
until it is loaded, or until ``Warming.deadline`` (a compile on a fresh install takes
far longer, and the game is served meanwhile), and only then start. Everything else
answers at once, so the supervisor and a load balancer see the worker alive as soon
as it can answer at all.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

log = logging.getLogger(__name__)


class Warming:
    """Whether this worker still loads the solver (``app.state.warming``); ``loaded()`` may be
    called from any thread."""

    def __init__(self) -> None:
        self.ready = asyncio.Event()
        self.deadline = 0.0  # the event loop's clock
        self.closed = False  # the app shut down: a load that ends now changes nothing
        self._loop: asyncio.AbstractEventLoop | None = None
        self._told = False

    def start(self, wait: float) -> None:
        """From the event loop: the API waits for ``loaded()``, at most ``wait`` seconds from now."""
        self._loop = asyncio.get_running_loop()
        self.ready = asyncio.Event()
        self.deadline = self._loop.time() + wait

    def loaded(self) -> None:
        if self._loop is not None and not self._loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: nobody waits
                self._loop.call_soon_threadsafe(self.ready.set)

    async def wait(self) -> None:
        """Until the solver is loaded or the deadline passed (at once when it is not loading)."""
        if self._loop is None or self.ready.is_set():
            return
        remaining = self.deadline - self._loop.time()
        if remaining > 0:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.ready.wait(), remaining)
        if not self.ready.is_set() and not self._told:
            self._told = True
            log.info("the solver is still compiling (a fresh install does it once); serving meanwhile")
