"""What the server's background processes (reviews, engine checks) share: they end with it.

A pool's worker process waits on its queue until its pool tells it to stop; a
server that is killed, or stops without waiting for its pool, never does, and
the worker would wait for ever. Each worker therefore watches its parent and
ends once it is gone, whatever ended it.
"""

from __future__ import annotations

import os
import threading
import time

#: Seconds between a worker's looks at whether the server process is still there.
PARENT_CHECK = 2.0


def end_with(parent: int) -> None:
    """In a worker process: end it (at once, as a killed process would) once ``parent`` is gone."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK)
        os._exit(0)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()
