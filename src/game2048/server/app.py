"""The ASGI app, assembled: the middleware, the rooms' routers, the site, the static files, and the one
lifespan that starts everything a process runs (solver warm-up, idle-game purge, review workers)."""

from __future__ import annotations

import asyncio
import gc
import logging
import threading
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from sqlalchemy.orm import sessionmaker
from starlette.middleware.gzip import GZipMiddleware

from ..web.assets import STATIC_DIR, ReleaseStaticFiles, page_script
from . import errors, site
from .api import docs as apidocs
from .api import socket
from .api.routes import games, hint, leaderboard, names, records, reports, reviews
from .caching.answers import AnswerCache
from .config import MOD_LOGIN_RATE_LIMIT, Settings
from .http.body_limit import BodyLimit
from .http.compress_tagged import MINIMUM_SIZE, CompressTagged
from .http.head_as_get import HeadAsGet
from .http.raw_channel import RawChannel
from .http.readable_bodies import ReadableBodies
from .http.request_log import RequestLog
from .http.security_headers import SecurityHeaders
from .http.warm_gate import WarmGate
from .limits.cpu import CpuBudget
from .limits.quota import StorageQuota
from .limits.rate import RateLimiter
from .live import Runner, keep_recent
from .live.stores import make_store
from .ops import probes
from .ops.logs import setup_logging
from .ops.warming import Warming
from .records.standing import parse_hold_tiles
from .reviews import checks
from .reviews.queue import ReviewQueue
from .storage.db import load_secret, make_engine, migrate, utc_now

log = logging.getLogger(__name__)

DESCRIPTION = f"""\
Play 2048 against a server that deals the tiles. `POST /api/games` starts a
ranked game and answers its opening board (the seed stays on the server);
`POST /api/games/{{id}}/moves` plays moves and answers each new tile; `POST
/api/games/{{id}}/finish` keeps the server's own record, replays it, ranks it and
reveals the seed. `POST /api/games/{{id}}/hint` gives the solver's move for a
game in play and makes it unranked. The WebSocket `/api/games/{{id}}/play`
carries the same requests as JSON messages (`{{"op": "moves" | "state" | "hint" |
"finish", ...}}`). A game started with `bot: "name"` is a bot's: ranked on the
engines board (`GET /api/leaderboard?board=engines`), never the players'. The
first finish under a name answers its `name_key`; later finishes under that name
send it. Practice games (a seed the client chose) go to `POST /api/records`:
verified by replay, kept, never ranked.

Every error answer is `{{"error": "..."}}` with a 4xx status; each route lists
the ones it can give:

{errors.describe_statuses()}
"""

#: How often each worker removes idle games.
PURGE_EVERY = 3600.0
#: Seconds, from a worker's start, that the game's API waits for the solver to load (loading from
#: numba's cache takes about 0.5 s; compiling on a fresh install, 15 to 30 s, goes on while serving).
WARM_WAIT = 5.0


@asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    if app.state.settings.warm_solver:
        # numba loads (or, on a fresh install, compiles) the search once per process; a daemon
        # thread pays that now instead of the first player to ask for a hint. The worker serves at
        # once: /healthz and the pages answer, so the supervisor sees it alive. Loading holds the
        # GIL for about half a second and would stall every move in hand, so the game's API waits
        # until it is loaded (http/warm_gate.py), at most WARM_WAIT: a compile goes on while serving.
        app.state.warming.start(WARM_WAIT)
        threading.Thread(target=_warm_solver, args=(app.state.warming,), name="warm-solver",
                         daemon=True).start()
    else:
        _freeze()
    purging = asyncio.create_task(_purge_idle_games(app))
    review_queue = ReviewQueue(app.state.sessions, app.state.settings.reviews,
                               charge=app.state.cpu_budget.charge)  # reviews count as verification
    app.state.reviews = review_queue
    review_queue.start()
    if app.state.settings.engine_check == "background":
        app.state.checks.start()
    try:
        yield
    finally:
        purging.cancel()
        app.state.warming.closed = True
        await asyncio.to_thread(review_queue.stop)
        await asyncio.to_thread(app.state.checks.stop)
        await app.state.store.aclose()
        app.state.store.close()
        gc.unfreeze()  # a process that builds apps again (the tests) lets the collector see it all again


def _freeze() -> None:
    """Everything loaded so far (FastAPI, SQLAlchemy, numba: some 200,000 objects) lives as long as
    the process. Left to the collector, each full collection walks them all, a pause of about 0.1 s
    in which the worker answers nothing; frozen, a collection only walks what came since."""
    gc.collect()
    gc.freeze()


async def _purge_idle_games(app: FastAPI) -> None:
    """Remove games with no move for GAME2048_IDLE_DAYS, now and every hour (any worker may)."""
    from datetime import timedelta

    from fastapi.concurrency import run_in_threadpool

    idle = timedelta(days=app.state.settings.idle_days)
    while True:
        try:
            gone = await run_in_threadpool(app.state.store.purge, utc_now(), idle)
            if gone:
                log.info("removed %d idle games", gone)
        except Exception:  # a store that is down now may be up at the next round
            log.exception("could not remove idle games")
        await asyncio.sleep(PURGE_EVERY)


def _warm_solver(warming: Warming) -> None:
    try:
        from ..solver import warm_up

        warm_up()
    except Exception:  # a hint will report its own error; serving goes on
        log.exception("could not load the solver at start")
    finally:
        if not warming.closed:  # (a compile can outlast the app, in the tests)
            _freeze()  # before the API opens: the collection holds the GIL for about 0.1 s
        warming.loaded()


def create_app(settings: Settings) -> FastAPI:
    """Build the app for ``settings``; the database is created and migrated first."""
    engine = make_engine(settings.database_url)
    migrate(engine)
    sessions = sessionmaker(engine, expire_on_commit=False)

    setup_logging()
    app = FastAPI(title="game2048", version="0.1.0", description=DESCRIPTION, lifespan=_lifespan,
                  docs_url=None, redoc_url=None)
    # innermost first: each add_middleware wraps the ones before it
    app.add_middleware(ReadableBodies)
    app.add_middleware(BodyLimit, limit=settings.max_body, deadline=settings.body_deadline)
    app.add_middleware(CompressTagged)  # a tagged answer: compressed once, its own ETag
    app.add_middleware(GZipMiddleware, minimum_size=MINIMUM_SIZE)  # the rest of the text answers
    app.add_middleware(HeadAsGet)
    app.add_middleware(SecurityHeaders)
    app.add_middleware(WarmGate)  # the API waits for the solver to load; its wait is in the request log
    app.add_middleware(RequestLog)
    app.add_middleware(RawChannel)  # outermost: a WebSocket's messages skip the rest (http/raw_channel.py)
    app.state.settings = settings
    app.state.engine = engine
    app.state.sessions = sessions
    app.state.secret = load_secret(sessions, settings.secret)
    app.state.warming = Warming()
    app.state.answers = AnswerCache(settings.answer_ttl)
    app.state.open_sockets = Counter()  # per client address (api/socket.py)
    app.state.store = make_store(engine, settings.redis_url, settings.idle_days, settings.move_durability)
    keep_recent(settings.recent_bytes)
    hold_tiles = parse_hold_tiles(settings.hold_tiles)
    app.state.checks = checks.EngineChecks(sessions, hold_tiles)
    app.state.limiters = {
        "games": RateLimiter(settings.rate_limit, settings.redis_url),
        "moves": RateLimiter(settings.move_rate_limit, settings.redis_url),
        "hint": RateLimiter(settings.hint_rate_limit, settings.redis_url),
        "report": RateLimiter(settings.report_rate_limit, settings.redis_url),
        "login": RateLimiter(MOD_LOGIN_RATE_LIMIT, settings.redis_url),
        "board_hint": RateLimiter(settings.board_hint_rate_limit, settings.redis_url),
    }
    app.state.cpu_budget = CpuBudget(settings.cpu_budget, settings.redis_url)
    app.state.storage_quota = StorageQuota(settings.practice_records, settings.practice_bytes,
                                           settings.redis_url)
    app.state.hint_budget = CpuBudget(settings.hint_cpu_budget, settings.redis_url, namespace="hint-cpu")

    def finished() -> None:
        app.state.answers.clear()  # this worker's leaderboards now include the new score
        app.state.checks.wake()

    app.state.runner = Runner(app.state.store, app.state.secret, sessions, limiters=app.state.limiters,
                              cpu_budget=app.state.cpu_budget, hint_budget=app.state.hint_budget,
                              hint_time=settings.hint_time,
                              checking=checks.at_finish(settings.engine_check, hold_tiles),
                              finished=finished, names_per_day=settings.names_per_day)
    errors.install(app)
    for room in (games, records, names, leaderboard, hint, reviews, reports, socket, probes):
        app.include_router(room.router)
    apidocs.install(app)
    app.include_router(site.router)
    page_script()  # joined now: a module the bundle cannot translate stops the start, not a page view
    # /static/<release>/… cached for a year, /static/… revalidated (web/assets.py)
    app.mount("/static", ReleaseStaticFiles(directory=STATIC_DIR), name="static")
    return app


def app_from_env() -> FastAPI:
    """App factory for ``uvicorn --factory`` (several workers): settings from the environment."""
    return create_app(Settings.from_env())
