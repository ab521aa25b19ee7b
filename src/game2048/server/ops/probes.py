"""Operations endpoints: liveness, readiness and metrics.

- ``GET /healthz`` answers 200 while the process can answer at all; it touches nothing else.
- ``GET /readyz`` answers 200 when the database answers ``SELECT 1`` within
  ``READY_TIMEOUT`` seconds, else 503 (take the worker out of the pool; do not restart it).
- ``GET /metrics`` is the Prometheus text format (see ``metrics``).
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
import threading
from typing import Any

import anyio
from fastapi import APIRouter, Request, Response
from pydantic import BaseModel
from sqlalchemy import Engine, text

from .. import metrics
from ..clients.address import client_address
from ..errors import ClientError

router = APIRouter(tags=["operations"])
log = logging.getLogger(__name__)

#: Seconds the readiness check waits for the database.
READY_TIMEOUT = 2.0


class StatusOut(BaseModel):
    status: str


@router.get("/healthz", response_model=StatusOut)
async def healthz() -> StatusOut:
    """200 while the process lives (it does no I/O)."""
    return StatusOut(status="ok")


class _Probe:
    """One database probe at a time per process: a database that hangs holds one thread, not many."""

    def __init__(self) -> None:
        self.lock = threading.Lock()

    def __call__(self, engine: Engine, redis: Any = None) -> None:
        if not self.lock.acquire(blocking=False):
            raise TimeoutError("an earlier readiness probe is still waiting for the database")
        try:
            with engine.connect() as conn:
                conn.execute(text("SELECT 1"))
            if redis is not None:
                redis.ping()
        finally:
            self.lock.release()


_probe = _Probe()


@router.get("/readyz", response_model=StatusOut, responses={503: {"model": StatusOut,
            "description": "the database did not answer in time"}})
async def readyz(request: Request, response: Response) -> StatusOut:
    """200 when the database (and Redis, with REDIS_URL) answer within a couple of seconds, else 503."""
    try:
        with anyio.fail_after(READY_TIMEOUT):
            # abandoned on timeout: the thread stays stuck on the database, the answer does not
            await anyio.to_thread.run_sync(_probe, request.app.state.engine,
                                           getattr(request.app.state.store, "redis", None),
                                           abandon_on_cancel=True)
    except Exception as exc:  # unreachable, refusing, or too slow: not ready either way
        log.warning("not ready: %s", str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
        response.status_code = 503
        return StatusOut(status="redis unavailable" if _is_redis(exc) else "database unavailable")
    return StatusOut(status="ok")


def _is_redis(exc: BaseException) -> bool:
    return type(exc).__module__.startswith("redis")


@router.get("/metrics", response_class=Response, responses={
    200: {"content": {"text/plain": {}}, "description": "Prometheus text format"},
    404: {"description": "not for this client: /metrics answers loopback clients, or the token"}})
def metrics_text(request: Request) -> Response:
    """Counters and histograms in the Prometheus text format, for the operator only: with
    ``GAME2048_METRICS_TOKEN`` to a request that sends it (``Authorization: Bearer <token>``),
    without one to clients on the loopback interface. Anyone else gets the 404 of any unknown path."""
    if not may_read_metrics(request):
        raise ClientError(404, f"nothing at {request.url.path}")
    body, content_type = metrics.exposition()
    return Response(body, media_type=content_type)


def may_read_metrics(request: Request) -> bool:
    token = request.app.state.settings.metrics_token
    if token:
        sent = request.headers.get("authorization", "")
        return hmac.compare_digest(sent.encode(), f"Bearer {token}".encode())
    try:
        return ipaddress.ip_address(client_address(request)).is_loopback
    except ValueError:  # "unknown"
        return False
