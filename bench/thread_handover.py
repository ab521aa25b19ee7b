"""What handing one call to a thread and back costs the event loop's process, in CPU: anyio's
``run_in_threadpool`` (what FastAPI uses) against the loop's own executor on a pool of its own,
the way the play socket hands PostgreSQL and Redis moves over. On uvloop, as ``serve`` runs.
Prints figures; never fails on timing.

    .venv/bin/python bench/thread_handover.py
"""

from __future__ import annotations

import asyncio
import time
from concurrent.futures import ThreadPoolExecutor

from fastapi.concurrency import run_in_threadpool


def nothing(x: int) -> int:
    return x


async def main(calls: int = 3000, rounds: int = 3) -> None:
    loop = asyncio.get_running_loop()
    pool = ThreadPoolExecutor(8)
    for _ in range(rounds):
        start = time.process_time()
        for i in range(calls):
            await run_in_threadpool(nothing, i)
        anyio = (time.process_time() - start) / calls
        start = time.process_time()
        for i in range(calls):
            await loop.run_in_executor(pool, nothing, i)
        own = (time.process_time() - start) / calls
        print(f"CPU a hand-over: run_in_threadpool {anyio * 1e6:.1f} us, "
              f"the loop's executor {own * 1e6:.1f} us")
    pool.shutdown()


if __name__ == "__main__":
    import uvloop

    uvloop.run(main())
