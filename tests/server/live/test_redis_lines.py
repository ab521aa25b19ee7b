"""The Redis connections a socket's moves are saved on (``live.stores.redis_lines``): each reply
reaches its own caller, a script Redis lost is loaded again, a caller gone before its reply leaves
the rest in step, and a connection cut or silent fails its callers and is replaced. Each rule holds
for both kinds of line: the pipelined connection made here, and redis-py's connections (URLs this
does not read itself, such as TLS). Against the real Redis on 127.0.0.1:6379 (database 15, keys of
this run only), and small fake servers for what a real one never sends."""

from __future__ import annotations

import asyncio
import hashlib
import uuid
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import pytest
import redis
from redis.exceptions import ResponseError

from game2048.server.live.stores import redis_lines
from game2048.server.live.stores.redis_lines import MoveLines, _plain_address

from ..conftest import in_a_thread_of_its_own
from .test_stores import REDIS_URL, _redis_reachable

ECHO = "redis.call('SET', KEYS[1], ARGV[1]); return {ARGV[1], redis.call('INCR', KEYS[2])}"
#: A script and the keys it runs on.
Echo = tuple[Any, list[str]]

SLOW = "local t = redis.call('TIME'); while true do local n = redis.call('TIME'); " \
       "if (n[1] - t[1]) * 1000000 + n[2] - t[2] > 300000 then break end end; return ARGV[1]"

KINDS = ["pipelined", "redis-py"]


class Script:
    """A script as ``MoveLines.run`` takes it (redis-py's ``Script``), for a server that is no Redis."""

    def __init__(self, text: str) -> None:
        self.script, self.sha = text, hashlib.sha1(text.encode()).hexdigest()


def lines_of(kind: str, url: str = REDIS_URL, timeout: float = 3) -> MoveLines:
    lines = MoveLines(url, timeout, pipelined=kind == "pipelined")
    assert (lines.address is not None) == (kind == "pipelined")
    return lines


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


@pytest.mark.parametrize("kind", KINDS)
@in_a_thread_of_its_own
def test_concurrent_scripts_each_get_their_own_reply_and_few_connections_stay(
        sync: redis.Redis, echo: Echo, kind: str) -> None:
    script, keys = echo
    big = "x" * 300_000  # a reply that comes in many reads, between the small ones

    async def run() -> tuple[list[object], int]:
        lines = lines_of(kind)
        values = [big if i == 17 else f"caller-{i}" for i in range(40)]
        replies = await asyncio.gather(*(lines.run(script, keys, [v]) for v in values))
        kept = lines.connections()
        await lines.close()
        return [r[0] == v.encode() for r, v in zip(replies, values, strict=True)] + [  # type: ignore[index]
            sorted(r[1] for r in replies)], kept  # type: ignore[index]

    matched, kept = asyncio.run(run())
    assert matched[:-1] == [True] * 40
    assert matched[-1] == list(range(1, 41))
    assert kept == 1 if kind == "pipelined" else 1 <= kept <= redis_lines.KEEP_IDLE
    assert int(sync.get(keys[1])) == 40  # type: ignore[arg-type]


@pytest.mark.parametrize("kind", KINDS)
@in_a_thread_of_its_own
def test_a_script_redis_lost_is_loaded_again(sync: redis.Redis, echo: Echo, kind: str) -> None:
    script, keys = echo

    async def run() -> list[object]:
        lines = lines_of(kind)
        first = await lines.run(script, keys, ["a"])
        sync.script_flush()  # as after Redis restarted
        assert sync.script_exists(script.sha) == [False]
        second = await lines.run(script, keys, ["b"])
        await lines.close()
        return [first, second]

    assert asyncio.run(run()) == [[b"a", 1], [b"b", 2]]
    assert sync.script_exists(script.sha) == [True]


@pytest.mark.parametrize("kind", KINDS)
@in_a_thread_of_its_own
def test_an_error_reply_is_raised_and_the_connection_goes_on(sync: redis.Redis, echo: Echo,
                                                             kind: str) -> None:
    failing = sync.register_script("return redis.error_reply('no such move')")
    script, keys = echo

    async def run() -> object:
        lines = lines_of(kind)
        with pytest.raises(ResponseError, match="no such move"):
            await lines.run(failing, [], [])
        assert lines.connections() == 1  # kept: the reply was read, the connection is in step
        reply = await lines.run(script, keys, ["after"])
        await lines.close()
        return reply

    assert asyncio.run(run()) == [b"after", 1]


@pytest.mark.parametrize("kind", KINDS)
@in_a_thread_of_its_own
def test_a_caller_gone_before_its_reply_leaves_no_reply_for_the_next(
        sync: redis.Redis, echo: Echo, kind: str) -> None:
    slow = sync.register_script(SLOW)
    script, keys = echo

    async def run() -> list[object]:
        lines = lines_of(kind)
        waiting = asyncio.ensure_future(lines.run(slow, [], ["late"]))
        await asyncio.sleep(0.1)  # sent; its reply comes in 0.3 s
        after = asyncio.ensure_future(lines.run(script, keys, ["queued"]))  # pipelined: behind it
        await asyncio.sleep(0)
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        replies = [await after, await lines.run(script, keys, ["mine"])]
        # pipelined: the late reply was read and dropped on the same connection; redis-py's
        # connection with a reply still to come was closed
        assert lines.connections() == 1
        await lines.close()
        return replies

    assert asyncio.run(run()) == [[b"queued", 1], [b"mine", 2]]


@pytest.mark.parametrize("kind", KINDS)
@in_a_thread_of_its_own
def test_a_connection_cut_by_redis_fails_one_call_then_a_new_one_is_made(
        sync: redis.Redis, echo: Echo, kind: str) -> None:
    script, keys = echo

    async def run() -> list[object]:
        lines = lines_of(kind)
        await lines.run(script, keys, ["before"])
        sync.client_kill_filter(_id=int(await lines.call("CLIENT", "ID")))
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


async def _serving(answer: Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]],
                   test: Callable[[int], Awaitable[Any]]) -> Any:
    """``test(port)`` against a fake Redis on a free port that talks as ``answer`` says."""
    server = await asyncio.start_server(answer, "127.0.0.1", 0)
    try:
        return await test(server.sockets[0].getsockname()[1])
    finally:
        server.close()


async def _silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    await reader.read(1 << 16)
    await asyncio.sleep(30)


@pytest.mark.parametrize("kind", KINDS)
@in_a_thread_of_its_own
def test_a_redis_that_never_answers_is_a_timeout_within_the_stores_time(kind: str) -> None:
    """A server that takes the connection and stays silent: the store's timeout, not a hang."""
    script = Script(ECHO)

    async def test(port: int) -> float:
        lines = lines_of(kind, f"redis://127.0.0.1:{port}/15", 0.5)
        loop = asyncio.get_running_loop()
        began = loop.time()
        with pytest.raises((redis.exceptions.TimeoutError, redis.exceptions.ConnectionError)):
            await lines.run(script, ["k"], ["v"])
        took = loop.time() - began
        assert lines.connections() == 0
        await lines.close()
        return took

    assert asyncio.run(_serving(_silent, test)) < 3


@in_a_thread_of_its_own
def test_replies_cut_anywhere_between_reads_reach_their_callers_whole() -> None:
    """A fake Redis that answers three commands at once, a byte at a time."""

    async def dribble(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        seen = b""
        while seen.count(b"EVALSHA") < 3:
            seen += await reader.read(1 << 16)
        for byte in b"*2\r\n$5\r\nfirst\r\n:1\r\n:2\r\n$-1\r\n":
            writer.write(bytes([byte]))
            await writer.drain()
            await asyncio.sleep(0.001)
        await asyncio.sleep(1)

    async def test(port: int) -> list[object]:
        lines = lines_of("pipelined", f"redis://127.0.0.1:{port}")
        script = Script("return 1")
        replies = await asyncio.gather(*(lines.run(script, [], [i]) for i in range(3)))
        await lines.close()
        return replies

    assert asyncio.run(_serving(dribble, test)) == [[b"first", 1], 2, None]


@in_a_thread_of_its_own
def test_bytes_that_are_no_reply_fail_the_connection_not_the_server() -> None:
    async def garble(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read(1 << 16)
        writer.write(b"HTTP/1.1 400 Bad Request\r\n\r\n")
        await asyncio.sleep(1)

    async def test(port: int) -> int:
        lines = lines_of("pipelined", f"redis://127.0.0.1:{port}", 2)
        with pytest.raises(redis.exceptions.ConnectionError, match="not a reply"):
            await lines.call("PING")
        return lines.connections()

    assert asyncio.run(_serving(garble, test)) == 0


@in_a_thread_of_its_own
def test_the_urls_database_is_selected(sync: redis.Redis, echo: Echo) -> None:
    script, keys = echo

    async def run() -> object:
        lines = lines_of("pipelined", REDIS_URL)  # database 15
        reply = await lines.run(script, keys, ["in 15"])
        await lines.close()
        return reply

    assert asyncio.run(run()) == [b"in 15", 1]
    assert sync.get(keys[0]) == b"in 15"  # the sync client reads database 15 too
    assert redis.Redis.from_url("redis://127.0.0.1:6379/0").get(keys[0]) is None


@in_a_thread_of_its_own
def test_a_password_redis_refuses_is_a_store_error(sync: redis.Redis) -> None:
    """This Redis has no password: one sent is refused, as a wrong one would be."""
    if sync.config_get("requirepass").get("requirepass"):
        pytest.skip("this Redis has a password")

    async def run() -> None:
        lines = lines_of("pipelined", "redis://:not-the-password@127.0.0.1:6379/15")
        with pytest.raises(redis.exceptions.AuthenticationError):
            await lines.call("PING")
        assert lines.connections() == 0

    asyncio.run(run())


@pytest.mark.parametrize(("url", "address"), [
    ("redis://127.0.0.1:6379/15", {"host": "127.0.0.1", "port": 6379, "db": 15, "path": None}),
    ("redis://user:secret@cache.internal/2", {"host": "cache.internal", "port": 6379, "db": 2,
                                              "username": "user", "password": "secret"}),
    ("unix:///run/redis.sock?db=3", {"path": "/run/redis.sock", "db": 3}),
    ("redis://127.0.0.1?socket_timeout=2", {"host": "127.0.0.1", "db": 0}),
    ("rediss://cache.internal:6380", None),  # TLS: redis-py's connections
    ("redis://127.0.0.1?protocol=3", None),  # an option read by redis-py alone
    ("memcached://127.0.0.1", None),  # redis-py says what is wrong, on the first call
])
def test_urls_read_here_and_urls_left_to_redis_py(url: str, address: dict[str, Any] | None) -> None:
    got = _plain_address(url)
    if address is None:
        assert got is None
    else:
        assert got is not None and {k: got[k] for k in address} == address


@in_a_thread_of_its_own
def test_callers_that_find_no_connection_share_one_attempt_and_its_failure() -> None:
    """A server that takes connections and never answers the handshake: ten callers at once fail
    together within about one timeout, not one timeout each in turn."""

    async def test(port: int) -> tuple[list[str], float]:
        lines = lines_of("pipelined", f"redis://:secret@127.0.0.1:{port}", 0.5)
        loop = asyncio.get_running_loop()
        began = loop.time()
        outcomes = await asyncio.gather(*(lines.call("PING") for _ in range(10)), return_exceptions=True)
        return [type(o).__name__ for o in outcomes], loop.time() - began

    names, took = asyncio.run(_serving(_silent, test))
    assert set(names) <= {"TimeoutError", "ConnectionError"} and len(names) == 10
    assert took < 2
