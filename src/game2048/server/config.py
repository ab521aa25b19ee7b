"""Server settings: where the database is, the secret, limits. Read once at start."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

#: The longest move log accepted. A 4x4 game that builds 131072 (the largest
#: tile the board can hold) takes about 60,000 moves; 6x6 games by a strong
#: solver run longer, so the bound leaves room while keeping a replay under a
#: couple of seconds.
MAX_LOG = 200_000

#: Request bodies above this many bytes are refused with 413 before parsing.
MAX_BODY = 256 * 1024

DEFAULT_RATE_LIMIT = "120/minute"
#: Autoplay asks for a hint every move, so hints get a wider allowance of their own.
DEFAULT_HINT_RATE_LIMIT = "20/second"


def default_database_url() -> str:
    """An SQLite file in the user's data directory (created on first start)."""
    from platformdirs import user_data_path

    path: Path = user_data_path("game2048", appauthor=False, ensure_exists=True) / "game2048.sqlite3"
    return f"sqlite:///{path}"


def normalise_database_url(url: str) -> str:
    """Use the psycopg 3 driver for plain ``postgresql://`` (and ``postgres://``) URLs.

    >>> normalise_database_url("postgresql://u@h/db")
    'postgresql+psycopg://u@h/db'
    >>> normalise_database_url("sqlite:///x.db")
    'sqlite:///x.db'
    """
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix):]
    return url


@dataclass(frozen=True)
class Settings:
    """Everything the app needs from the outside world."""

    database_url: str
    #: From GAME2048_SECRET; None means: generate one on first start and keep it in the database.
    secret: str | None = None
    #: ``"120/minute"`` style (several joined by ``;``), or ``"0"`` for no limits.
    rate_limit: str = DEFAULT_RATE_LIMIT
    #: Shared limit counters for several workers; in-process counters when None.
    redis_url: str | None = None
    hint_rate_limit: str = DEFAULT_HINT_RATE_LIMIT
    max_body: int = MAX_BODY
    max_log: int = MAX_LOG
    #: Seconds a leaderboard answer may be reused by one worker (0: never).
    answer_ttl: float = 1.0
    #: Seconds the solver may think for one hint.
    hint_time: float = 0.2
    #: Load the solver's compiled code in the background at start, so the first
    #: hint is quick (GAME2048_WARM_SOLVER=0 turns it off).
    warm_solver: bool = False
    #: The review queue (GAME2048_REVIEW_*).
    reviews: ReviewSettings = field(default_factory=lambda: ReviewSettings())

    @classmethod
    def from_env(cls, database_url: str | None = None, env: dict[str, str] | None = None) -> Settings:
        """Settings from ``--db`` (if given) and the environment.

        DATABASE_URL, GAME2048_SECRET, GAME2048_RATE_LIMIT, GAME2048_HINT_RATE_LIMIT, REDIS_URL,
        GAME2048_LEADERBOARD_TTL (seconds a worker may reuse a leaderboard answer; 0 never),
        GAME2048_WARM_SOLVER (1 by default: load the solver at start; 0 on first hint).
        """
        env = dict(os.environ) if env is None else env
        off = env.get("GAME2048_RATE_LIMIT", "").strip() == "0"
        url = database_url or env.get("DATABASE_URL") or default_database_url()
        return cls(
            database_url=normalise_database_url(url),
            secret=env.get("GAME2048_SECRET") or None,
            rate_limit=env.get("GAME2048_RATE_LIMIT", DEFAULT_RATE_LIMIT).strip() or DEFAULT_RATE_LIMIT,
            redis_url=env.get("REDIS_URL") or None,
            hint_rate_limit="0" if off else env.get("GAME2048_HINT_RATE_LIMIT", DEFAULT_HINT_RATE_LIMIT),
            answer_ttl=_seconds(env.get("GAME2048_LEADERBOARD_TTL"), 1.0),
            warm_solver=env.get("GAME2048_WARM_SOLVER", "1").strip() != "0",
            reviews=ReviewSettings.from_env(env),
        )


def _seconds(text: str | None, default: float) -> float:
    try:
        return max(0.0, float(text)) if text else default
    except ValueError:
        raise SystemExit(f"expected a number of seconds, got {text!r}") from None


@dataclass(frozen=True)
class ReviewSettings:
    """How this process takes part in reviewing games (``server/reviews.py``, ``docs/deploy.md``)."""

    #: Reviews this process runs at once, each in a process of its own (0: it only queues them).
    workers: int = 1
    #: Reviews one client address may have waiting or running at once.
    per_client: int = 3
    #: Reviews waiting in the whole queue before new ones are refused for a while.
    queue: int = 1000
    #: The solver preset that grades moves; games with more moves than ``long_moves`` use ``fast``.
    preset: str = "normal"
    long_moves: int = 20_000
    #: Niceness of the review processes: the OS serves moves and finishes first.
    nice: int = 10

    @classmethod
    def from_env(cls, env: dict[str, str]) -> ReviewSettings:
        """GAME2048_REVIEW_WORKERS, _PER_CLIENT, _QUEUE, _PRESET, _LONG_MOVES, _NICE."""
        from ..solver.search import PRESETS

        preset = env.get("GAME2048_REVIEW_PRESET", cls.preset).strip() or cls.preset
        if preset not in PRESETS:
            raise SystemExit(f"GAME2048_REVIEW_PRESET must be one of {', '.join(PRESETS)}, got {preset!r}")
        return cls(
            workers=_count(env, "GAME2048_REVIEW_WORKERS", cls.workers),
            per_client=_count(env, "GAME2048_REVIEW_PER_CLIENT", cls.per_client),
            queue=_count(env, "GAME2048_REVIEW_QUEUE", cls.queue),
            preset=preset,
            long_moves=_count(env, "GAME2048_REVIEW_LONG_MOVES", cls.long_moves),
            nice=_count(env, "GAME2048_REVIEW_NICE", cls.nice),
        )


def _count(env: dict[str, str], name: str, default: int) -> int:
    text = env.get(name, "").strip()
    if not text:
        return default
    if not text.isdigit():
        raise SystemExit(f"{name} must be a whole number, got {text!r}")
    return int(text)
