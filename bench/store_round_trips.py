"""What one move's round trip to PostgreSQL or Redis costs the server's process, by the way it is sent.

In one process on uvloop, as the server runs, each way sends ``--trips`` moves'
statements (or scripts) one after another, each waiting for its answer, and
the process's CPU time (user + system) per round trip is printed, the ways
measured in turn ``--rounds`` times:

- PostgreSQL, the move's own ``UPDATE ... WHERE at = ...`` on a table of its
  own: psycopg's ``AsyncConnection.execute`` (what moves used before
  2026-12-06's sixth session) against ``live.stores.pg_lines`` (libpq's
  pipeline mode, the statement prepared once);
- Redis, a script of the move's shape (``HGET``, ``HSET``, ``APPEND``):
  redis-py's asyncio client (``Script.__call__``) against
  ``live.stores.redis_lines`` (a protocol of the app's own), and against
  redis-py's connections without the client's pool (``pipelined=False``).

The server's side (PostgreSQL's or Redis's own CPU) is not counted: it is the
same whichever way the bytes come. Prints figures; never fails on timing.

    .venv/bin/python bench/store_round_trips.py
    .venv/bin/python bench/store_round_trips.py --redis '' --trips 20000   # PostgreSQL alone, longer
"""

from __future__ import annotations

import argparse
import statistics
import time
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime

SCRIPT = ("local at = redis.call('HGET', KEYS[1], 'at') "
          "redis.call('HSET', KEYS[1], 'at', ARGV[1], 'snap', ARGV[2]) "
          "redis.call('APPEND', KEYS[2], ARGV[3]) return 1")
SNAPSHOT = '{"size":4,"board":[[2,0,0,0],[0,4,0,0],[0,0,0,0],[0,0,0,2]],"score":4}' * 4


Ways = dict[str, Callable[[int], Awaitable[None]]]


async def postgres_ways(url: str) -> tuple[Ways, Callable[[], Awaitable[None]]]:
    import psycopg

    from game2048.server.live.stores.pg_lines import INT8, TEXT, TIMESTAMPTZ, MoveLines, Statement

    table = f"trips_{uuid.uuid4().hex[:8]}"
    setup = await psycopg.AsyncConnection.connect(url, autocommit=True)
    await setup.execute(f"CREATE TABLE {table} (id text PRIMARY KEY, at bigint, live text, "
                        "touched timestamptz)")
    await setup.execute(f"INSERT INTO {table} VALUES ('g', 0, '', now())")
    sql = f"UPDATE {table} SET at = %s, live = %s, touched = %s WHERE id = %s AND at = %s"
    state = {"at": 0}

    conn = await psycopg.AsyncConnection.connect(url, autocommit=True)
    await conn.execute("SET synchronous_commit TO OFF")

    async def driver(trips: int) -> None:
        for _ in range(trips):
            at = state["at"]
            cur = await conn.execute(sql, (at + 1, SNAPSHOT, datetime.now(UTC), "g", at))
            assert cur.rowcount == 1
            state["at"] = at + 1

    lines = MoveLines(url, "SET synchronous_commit TO OFF", 8, 3)
    statement = Statement.of("trips", sql, (INT8, TEXT, TIMESTAMPTZ, TEXT, INT8))

    async def own(trips: int) -> None:
        for _ in range(trips):
            at = state["at"]
            assert await lines.run(statement, (at + 1, SNAPSHOT, datetime.now(UTC), "g", at)) == 1
            state["at"] = at + 1

    async def drop() -> None:
        await conn.close()
        await lines.close()
        await setup.execute(f"DROP TABLE {table}")
        await setup.close()

    return {"PostgreSQL, psycopg asyncio": driver, "PostgreSQL, pg_lines": own}, drop


async def redis_ways(url: str) -> tuple[Ways, Callable[[], Awaitable[None]]]:
    import redis.asyncio

    from game2048.server.live.stores.redis_lines import MoveLines

    client = redis.asyncio.Redis.from_url(url)
    script = client.register_script(SCRIPT)
    keys = [f"trips:{uuid.uuid4().hex[:8]}:{{g}}", f"trips:{uuid.uuid4().hex[:8]}:{{g}}:log"]
    own, redis_py = MoveLines(url, 3), MoveLines(url, 3, pipelined=False)

    async def driver(trips: int) -> None:
        for i in range(trips):
            assert await script(keys=keys, args=[i, SNAPSHOT, "L"]) == 1

    def lines_way(lines: MoveLines) -> Callable[[int], Awaitable[None]]:
        async def way(trips: int) -> None:
            for i in range(trips):
                assert await lines.run(script, keys, [i, SNAPSHOT, "L"]) == 1
        return way

    async def drop() -> None:
        await own.close()
        await redis_py.close()
        await client.delete(*keys)
        await client.aclose()

    return {"Redis, redis-py asyncio client": driver,
            "Redis, redis_lines, redis-py connections": lines_way(redis_py),
            "Redis, redis_lines": lines_way(own)}, drop


async def measure(postgres: str, redis_url: str, trips: int, rounds: int) -> None:
    ways: Ways = {}
    cleanups = []
    for url, make in ((postgres, postgres_ways), (redis_url, redis_ways)):
        if url:
            more, cleanup = await make(url)
            ways |= more
            cleanups.append(cleanup)
    for way in ways.values():
        await way(200)  # connections opened, scripts loaded, statements prepared
    spent: dict[str, list[float]] = {name: [] for name in ways}
    for _ in range(rounds):
        for name, way in ways.items():
            before = time.process_time()
            await way(trips)
            spent[name].append((time.process_time() - before) / trips * 1e6)
    print(f"{trips} round trips a way, {rounds} rounds in turn: this process's CPU a round trip")
    for name, figures in spent.items():
        print(f"  {name:42s} {min(figures):6.1f}-{max(figures):6.1f} us, "
              f"median {statistics.median(figures):6.1f}")
    for cleanup in cleanups:
        await cleanup()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--postgres", default="postgresql://postgres@127.0.0.1:5432/postgres",
                        help="a database to make a table in ('' to skip)")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/14", help="'' to skip")
    parser.add_argument("--trips", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    import uvloop

    uvloop.run(measure(args.postgres, args.redis, args.trips, args.rounds))


if __name__ == "__main__":
    main()
