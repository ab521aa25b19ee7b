"""The Redis connections a socket's moves are saved on (``live.stores.redis_lines``): each reply reaches its
own caller, a script Redis lost is loaded again, and a connection cut or interrupted midway is
never used again. Against the real Redis on 127.0.0.1:6379 (database 15, keys of this run only)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from redis.exceptions import ResponseError

from game2048.server.live.stores import redis_lines
from game2048.server.live.stores.redis_lines import MoveLines

from .conftest import in_a_thread_of_its_own
from .test_stores import REDIS_URL, _redis_reachable

ECHO = "redis.call('SET', KEYS[1], ARGV[1]); return {ARGV[1], redis.call('INCR', KEYS[2])}"
#: A script and the keys it runs on.
Echo = tuple[Any, list[str]]

SLOW = "local t = redis.call('TIME'); while true do local n = redis.call('TIME'); " \
       "if (n[1] - t[1]) * 1000000 + n[2] - t[2] > 300000 then break end end; return ARGV[1]"


@pytest.fixture
def sync() -> Iterator[redis.Redis]:
    if not _redis_reachable():
        pytest.skip("Redis not reachable at 127.0.0.1:6379 (the Redis store needs a real Redis)")
    client = redis.Redis.from_url(REDIS_URL)
    yield client
    client.close()


@pytest.fixture
def echo(sync: redis.Redis) -> Iterator[Echo]:
    """The ``ECHO`` script and this test's own two keys (deleted after it)."""
    prefix = f"game2048-lines-{uuid.uuid4().hex[:8]}:"
    keys = [f"{prefix}value", f"{prefix}count"]
    yield sync.register_script(ECHO), keys
    sync.delete(*keys)


@in_a_thread_of_its_own
def test_concurrent_scripts_each_get_their_own_reply_and_few_connections_stay(
        sync: redis.Redis, echo: Echo) -> None:
    script, keys = echo

    async def run() -> tuple[list[object], int]:
        lines = MoveLines(REDIS_URL, 3)
        replies = await asyncio.gather(*(lines.run(script, keys, [f"caller-{i}"]) for i in range(40)))
        kept = len(lines._lines()[1])
        await lines.close()
        return replies, kept

    replies, kept = asyncio.run(run())
    assert [r[0] for r in replies] == [f"caller-{i}".encode() for i in range(40)]  # type: ignore[index]
    assert sorted(r[1] for r in replies) == list(range(1, 41))  # type: ignore[index]
    assert 1 <= kept <= redis_lines.KEEP_IDLE
    assert int(sync.get(keys[1])) == 40  # type: ignore[arg-type]


@in_a_thread_of_its_own
def test_a_script_redis_lost_is_loaded_again(sync: redis.Redis, echo: Echo) -> None:
    script, keys = echo

    async def run() -> list[object]:
        lines = MoveLines(REDIS_URL, 3)
        first = await lines.run(script, keys, ["a"])
        sync.script_flush()  # as after Redis restarted
        assert sync.script_exists(script.sha) == [False]
        second = await lines.run(script, keys, ["b"])
        await lines.close()
        return [first, second]

    assert asyncio.run(run()) == [[b"a", 1], [b"b", 2]]
    assert sync.script_exists(script.sha) == [True]


@in_a_thread_of_its_own
def test_an_error_reply_is_raised_and_the_connection_goes_on(sync: redis.Redis, echo: Echo) -> None:
    failing = sync.register_script("return redis.error_reply('no such move')")
    script, keys = echo

    async def run() -> object:
        lines = MoveLines(REDIS_URL, 3)
        with pytest.raises(ResponseError, match="no such move"):
            await lines.run(failing, [], [])
        assert len(lines._lines()[1]) == 1  # given back: the reply was read, the connection is in step
        reply = await lines.run(script, keys, ["after"])
        await lines.close()
        return reply

    assert asyncio.run(run()) == [b"after", 1]


@in_a_thread_of_its_own
def test_a_caller_gone_before_its_reply_leaves_no_reply_for_the_next(sync: redis.Redis, echo: Echo) -> None:
    slow = sync.register_script(SLOW)
    script, keys = echo

    async def run() -> object:
        lines = MoveLines(REDIS_URL, 3)
        waiting = asyncio.ensure_future(lines.run(slow, [], ["late"]))
        await asyncio.sleep(0.1)  # sent; its reply comes in 0.3 s
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        assert lines._lines()[1] == []  # that connection was closed, not given back
        reply = await lines.run(script, keys, ["mine"])
        await lines.close()
        return reply

    assert asyncio.run(run()) == [b"mine", 1]


@in_a_thread_of_its_own
def test_a_connection_cut_by_redis_fails_one_call_then_a_new_one_is_made(
        sync: redis.Redis, echo: Echo) -> None:
    script, keys = echo

    async def run() -> list[object]:
        lines = MoveLines(REDIS_URL, 3)
        await lines.run(script, keys, ["before"])
        [idle] = lines._lines()[1]
        sync.client_kill_filter(_id=int(await _client_id(idle)))
        outcomes: list[object] = []
        for value in ("cut", "after"):
            try:
                outcomes.append(await lines.run(script, keys, [value]))
            except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as exc:
                outcomes.append(type(exc).__name__)
        await lines.close()
        return outcomes

    outcomes = asyncio.run(run())
    assert outcomes[-1][0] == b"after"  # type: ignore[index]
    assert outcomes[0] == "ConnectionError" or outcomes[0][0] == b"cut"  # type: ignore[index]


async def _client_id(conn: object) -> int:
    await conn.send_command("CLIENT", "ID", check_health=False)  # type: ignore[attr-defined]
    return int(await conn.read_response())  # type: ignore[attr-defined]


@in_a_thread_of_its_own
def test_a_redis_that_never_answers_is_a_timeout_within_the_stores_time(sync: redis.Redis) -> None:
    """A server that takes the connection and stays silent: the store's timeout, not a hang."""
    script = sync.register_script(ECHO)

    async def run() -> float:
        silent = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
        port = silent.sockets[0].getsockname()[1]
        lines = MoveLines(f"redis://127.0.0.1:{port}/15", 0.5)
        loop = asyncio.get_running_loop()
        began = loop.time()
        with pytest.raises((redis.exceptions.TimeoutError, redis.exceptions.ConnectionError)):
            await lines.run(script, ["k"], ["v"])
        took = loop.time() - began
        assert lines._lines()[1] == []
        silent.close()
        return took

    assert asyncio.run(run()) < 3
