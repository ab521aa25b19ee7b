"""The PostgreSQL connections a socket's moves are saved on (``live.stores.pg_lines``): each result
reaches its own caller, an error result is raised and the connection goes on, a caller gone before
its result leaves the rest in step, and a connection cut or too slow fails its callers and is
replaced. Against the real PostgreSQL, in a fresh schema of the session's throwaway database."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator

import psycopg
import pytest

from game2048.server.live.stores.pg_lines import INT8, TEXT, MoveLines, Statement

from ..conftest import fresh_postgres_schema, in_a_thread_of_its_own

pytestmark = pytest.mark.postgres

SET = Statement.of("lines_set", "UPDATE lines SET v = %s WHERE id = %s", (TEXT, INT8))
ADD = Statement.of("lines_add", "INSERT INTO lines (id, v) VALUES (%s, %s)", (INT8, TEXT))
SLEEP = Statement.of("lines_sleep", "SELECT pg_sleep(%s::int / 1000.0)", (INT8,))
DIVIDE = Statement.of("lines_divide", "SELECT 1 / %s::int", (INT8,))


@pytest.fixture
def url(postgres_database: str) -> Iterator[str]:
    """A schema of this test's own, with a table ``lines`` of 40 rows (id 0 to 39, v '')."""
    url = fresh_postgres_schema(postgres_database)
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE TABLE lines (id bigint PRIMARY KEY, v text NOT NULL)")
        conn.execute("INSERT INTO lines SELECT i, '' FROM generate_series(0, 39) AS i")
    yield url


def lines_for(url: str, size: int = 4, timeout: float = 3, name: str = "game2048-lines-test") -> MoveLines:
    return MoveLines(url, f"SET application_name TO '{name}'", size, timeout)


def values(url: str) -> list[str]:
    with psycopg.connect(url) as conn:
        return [v for (v,) in conn.execute("SELECT v FROM lines ORDER BY id")]


@in_a_thread_of_its_own
def test_concurrent_statements_each_get_their_own_result_on_few_connections(url: str) -> None:
    async def run() -> tuple[list[int], int]:
        lines = lines_for(url, size=4)
        counts = await asyncio.gather(*(lines.run(SET, (f"caller-{i}", i)) for i in range(40)),
                                      lines.run(SET, ("nobody", 99)))
        held = lines.connections()
        await lines.close()
        return counts, held

    counts, held = asyncio.run(run())
    assert counts == [1] * 40 + [0]  # the rows each changed: the last matched none
    assert 1 <= held <= 4
    assert values(url) == [f"caller-{i}" for i in range(40)]


@in_a_thread_of_its_own
def test_an_error_result_is_raised_and_the_connection_goes_on(url: str) -> None:
    async def run() -> int:
        lines = lines_for(url, size=1)
        with pytest.raises(psycopg.errors.UniqueViolation):
            await lines.run(ADD, (3, "again"))
        assert lines.connections() == 1
        changed = await lines.run(SET, ("after", 3))
        await lines.close()
        return changed

    assert asyncio.run(run()) == 1
    assert values(url)[3] == "after"


@in_a_thread_of_its_own
def test_a_caller_gone_before_its_result_leaves_no_result_for_the_next(url: str) -> None:
    async def run() -> list[int]:
        lines = lines_for(url, size=1)  # one connection: the next statements queue behind the slow one
        slow = asyncio.ensure_future(lines.run(SLEEP, (300,)))
        await asyncio.sleep(0.1)
        behind = asyncio.ensure_future(lines.run(SET, ("queued", 5)))
        await asyncio.sleep(0)
        slow.cancel()
        with pytest.raises(asyncio.CancelledError):
            await slow
        got = [await behind, await lines.run(SET, ("mine", 6)), await lines.run(SET, ("nobody", 99))]
        assert lines.connections() == 1
        await lines.close()
        return got

    assert asyncio.run(run()) == [1, 1, 0]
    assert values(url)[5:7] == ["queued", "mine"]


@in_a_thread_of_its_own
def test_a_failed_statement_whose_caller_is_gone_leaves_the_statements_prepared(url: str) -> None:
    async def run() -> tuple[set[str], int]:
        lines = lines_for(url, size=1)
        assert await lines.run(DIVIDE, (1,)) == 1  # prepared on the connection
        slow = asyncio.ensure_future(lines.run(SLEEP, (300,)))
        await asyncio.sleep(0.1)
        failing = asyncio.ensure_future(lines.run(DIVIDE, (0,)))  # behind the slow one: fails
        await asyncio.sleep(0)
        failing.cancel()
        await slow
        [line] = lines._loops[asyncio.get_running_loop()].lines
        prepared = set(line.prepared)
        again = await lines.run(DIVIDE, (1,))
        await lines.close()
        return prepared, again

    prepared, again = asyncio.run(run())
    assert prepared == {"lines_divide", "lines_sleep"}
    assert again == 1


@in_a_thread_of_its_own
def test_a_connection_cut_by_postgres_fails_at_most_its_callers_then_a_new_one_is_made(url: str) -> None:
    name = f"lines-{uuid.uuid4().hex[:8]}"

    async def run() -> list[object]:
        lines = lines_for(url, size=1, name=name)
        await lines.run(SET, ("before", 1))
        with psycopg.connect(url, autocommit=True) as admin:
            killed = admin.execute("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                                   "WHERE application_name = %s", (name,)).fetchone()
        assert killed == (1,)
        await asyncio.sleep(0.2)  # the cut reaches the connection
        outcomes: list[object] = []
        for value in ("cut", "after"):
            try:
                outcomes.append(await lines.run(SET, (value, 1)))
            except psycopg.OperationalError:
                outcomes.append("OperationalError")
        await lines.close()
        return outcomes

    outcomes = asyncio.run(run())
    assert outcomes[-1] == 1
    assert outcomes[0] in ("OperationalError", 1)
    assert values(url)[1] == "after"


@in_a_thread_of_its_own
def test_a_statement_slower_than_the_timeout_fails_its_connection_in_time(url: str) -> None:
    async def run() -> tuple[float, int]:
        lines = lines_for(url, size=1, timeout=0.5)
        loop = asyncio.get_running_loop()
        began = loop.time()
        with pytest.raises(psycopg.OperationalError, match="in time"):
            await lines.run(SLEEP, (5000,))
        took = loop.time() - began
        held = lines.connections()
        changed = await lines.run(SET, ("next", 2))  # on a new connection
        await lines.close()
        return took, held + 10 * changed

    took, outcome = asyncio.run(run())
    assert took < 2.5
    assert outcome == 10  # no connection held after the timeout; the next call changed its row


@in_a_thread_of_its_own
def test_postgres_down_is_an_operational_error() -> None:
    async def run() -> None:
        lines = lines_for("postgresql://postgres@127.0.0.1:1/none", timeout=1)
        with pytest.raises(psycopg.OperationalError):
            await lines.run(SET, ("x", 1))
        assert lines.connections() == 0

    asyncio.run(run())


@in_a_thread_of_its_own
def test_callers_waiting_for_a_connection_share_the_failure_of_its_opening() -> None:
    """A server that takes connections and never answers: ten callers at once (two connections
    at most) fail together within about one timeout, not one timeout each in turn."""

    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await asyncio.sleep(30)

    async def run() -> tuple[list[object], float]:
        server = await asyncio.start_server(silent, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        lines = lines_for(f"postgresql://postgres@127.0.0.1:{port}/none?sslmode=disable", size=2, timeout=1)
        loop = asyncio.get_running_loop()
        began = loop.time()
        outcomes = await asyncio.gather(*(lines.run(SET, ("x", i)) for i in range(10)),
                                        return_exceptions=True)
        took = loop.time() - began
        server.close()
        return outcomes, took

    outcomes, took = asyncio.run(run())
    assert all(isinstance(o, psycopg.OperationalError) for o in outcomes), outcomes
    assert took < 4
