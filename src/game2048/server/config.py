"""Server settings: where the database is, the secret, limits. Read once at start."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

#: Request bodies above this many bytes are refused with 413 before parsing.
MAX_BODY = 256 * 1024

#: Bytes in one WebSocket message (uvicorn closes the socket with 1009 beyond): a moves message
#: is under 200 bytes; a finish that sends a long log goes over HTTP.
MAX_MESSAGE = 64 * 1024

#: Seconds a client has to deliver a request's body after its headers (408 and closed after).
BODY_DEADLINE = 30.0

DEFAULT_RATE_LIMIT = "120/minute"
#: Move requests per client address: far above a person's pace, and batches carry up to 64 moves.
DEFAULT_MOVE_RATE_LIMIT = "50/second"
DEFAULT_DAILY_TRIES = 3
DEFAULT_DAILY_TRIES_PER_NETWORK = 30
#: Names one network may newly hold a UTC day: a household names itself; a script cannot hoard.
DEFAULT_NAMES_PER_DAY = 3
DEFAULT_IDLE_DAYS = 7.0
#: Bytes of games in play a worker keeps in memory (an estimate; live/recent.py).
DEFAULT_RECENT_BYTES = 64 * 1024 * 1024
#: Autoplay asks for a hint every move, so hints get a wider allowance of their own.
DEFAULT_HINT_RATE_LIMIT = "20/second"
#: A hint for a bare board (``POST /api/hint``) is tied to no game, so the server cannot unrank the
#: game it helps: a person's pace, not a program's.
DEFAULT_BOARD_HINT_RATE_LIMIT = "10/minute"
#: CPU seconds of verification work (replays of records, long games' pages) per client address.
DEFAULT_CPU_BUDGET = "10/minute"
#: CPU seconds of solver work per client address: autoplay asks for a hint every move
#: (about 10 ms each on 4×4), so hints get a budget of their own.
DEFAULT_HINT_CPU_BUDGET = "30/minute"
#: The tile, per size, from which a players' game waits for an operator (``records.standing``):
#: an outcome people rarely reach (docs/bots.md, "Held for a person").
DEFAULT_HOLD_TILES = "3:512,4:2048,5:4096,6:8192"
#: Reports of games per client address (``moderation.reports``).
DEFAULT_REPORT_RATE_LIMIT = "10/hour"
#: Sign-in tries at /mod per client address (right or wrong).
MOD_LOGIN_RATE_LIMIT = "5/minute"

#: uvicorn's own limits for ``game2048 serve`` (see docs/deploy.md, "Fixed limits"). The cap per
#: address and the deadline for a request's headers are ``limits.connections.GuardedHTTP``'s.
UVICORN_LIMITS: dict[str, object] = {
    "timeout_keep_alive": 5,         # seconds an idle keep-alive connection stays open
    "limit_concurrency": 1000,       # connections + tasks per worker; beyond it new requests get 503
    "backlog": 1024,                 # connections waiting to be accepted
    "h11_max_incomplete_event_size": 16 * 1024,  # request line + headers, with the h11 parser
    "timeout_graceful_shutdown": 10,  # seconds running requests get on shutdown
    # seconds a worker may take to answer the supervisor's ping: a worker still importing on a
    # busy machine (spawned, it imports everything again) is not hung, and is not replaced
    "timeout_worker_healthcheck": 60,
    "ws_max_size": MAX_MESSAGE,      # bytes in one WebSocket message
    "ws_per_message_deflate": False,  # a move is a few hundred bytes: not worth compressing
    "server_header": False,
}


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
    #: Hints for a bare board (``POST /api/hint``) per client address.
    board_hint_rate_limit: str = DEFAULT_BOARD_HINT_RATE_LIMIT
    #: Move requests (HTTP or WebSocket messages) per client address.
    move_rate_limit: str = DEFAULT_MOVE_RATE_LIMIT
    #: Daily games one browser may start per size and UTC day.
    daily_tries: int = DEFAULT_DAILY_TRIES
    #: Daily games the browsers of one network (IPv4 address, IPv6 /64) may start per size and
    #: UTC day; never fewer than ``daily_tries``.
    daily_tries_per_network: int = DEFAULT_DAILY_TRIES_PER_NETWORK
    #: Names the finishes of one network (IPv4 address, IPv6 /64) may newly hold a UTC day; a
    #: finish past them is recorded under its name, which it does not hold (0: no limit).
    names_per_day: int = DEFAULT_NAMES_PER_DAY
    #: Unfinished games with no move for this many days are removed.
    idle_days: float = DEFAULT_IDLE_DAYS
    #: ``"process"``: an acknowledged move survives a killed server process (the default);
    #: ``"disk"``: it survives a power cut too, its commit flushed to disk before the answer.
    move_durability: str = "process"
    max_body: int = MAX_BODY
    #: Seconds to deliver a request body (408 after).
    body_deadline: float = BODY_DEADLINE
    #: ``"10/minute"`` CPU seconds of verification per client address, or ``"0"`` for none.
    cpu_budget: str = DEFAULT_CPU_BUDGET
    #: The same for hints (the solver's thinking time).
    hint_cpu_budget: str = DEFAULT_HINT_CPU_BUDGET
    #: Seconds a leaderboard answer may be reused by one worker (0: never).
    answer_ttl: float = 1.0
    #: Seconds the solver may think for one hint.
    hint_time: float = 0.2
    #: Load the solver's compiled code in the background at start, so the first
    #: hint is quick (GAME2048_WARM_SOLVER=0 turns it off).
    warm_solver: bool = False
    #: ``https://host`` the site is published at, for its absolute links (GAME2048_PUBLIC_URL);
    #: None: links stay relative (never built from a request's ``Host``).
    public_url: str | None = None
    #: A token /metrics asks for (``Authorization: Bearer <token>``, GAME2048_METRICS_TOKEN);
    #: without one, /metrics answers loopback clients only.
    metrics_token: str | None = None
    #: WebSockets one client address may hold open in one process (GAME2048_MAX_SOCKETS).
    max_sockets: int = 16
    #: Seconds a WebSocket may stay silent before it is closed (GAME2048_SOCKET_IDLE).
    socket_idle: float = 300.0
    #: Practice records one client address may keep a UTC day (GAME2048_PRACTICE_RECORDS; 0 none).
    practice_records: int = 200
    #: Bytes of practice records (log, name, start) one address may keep a UTC day
    #: (GAME2048_PRACTICE_BYTES; 0 no limit).
    practice_bytes: int = 4 * 1024 * 1024
    #: Bytes (an estimate) of the games each worker keeps in memory between their moves, besides
    #: the 2,048 games at most (GAME2048_RECENT_BYTES; 0: none kept, every move reads the store).
    recent_bytes: int = DEFAULT_RECENT_BYTES
    #: The engine-like check of ranked players' games (GAME2048_ENGINE_CHECK): ``background``
    #: (the players' board shows a game once it is checked), ``inline`` (the finish checks it),
    #: or ``off``.
    engine_check: str = "background"
    #: ``"size:tile,..."``: a players' game reaching the tile is held for an operator (GAME2048_HOLD_TILES).
    hold_tiles: str = DEFAULT_HOLD_TILES
    #: Reports of games per client address (GAME2048_REPORT_RATE_LIMIT).
    report_rate_limit: str = DEFAULT_REPORT_RATE_LIMIT
    #: The operators' password, as a hash ``moderation.access.password_hash`` made
    #: (GAME2048_MOD_PASSWORD_HASH); None: /mod is closed.
    mod_password_hash: str | None = None
    #: The review queue (GAME2048_REVIEW_*).
    reviews: ReviewSettings = field(default_factory=lambda: ReviewSettings())

    @classmethod
    def from_env(cls, database_url: str | None = None, env: dict[str, str] | None = None) -> Settings:
        """Settings from ``--db`` (if given) and the environment: DATABASE_URL, REDIS_URL and the
        GAME2048_* variables, each with its default and meaning in docs/deploy.md, "Settings"."""
        env = dict(os.environ) if env is None else env
        off = env.get("GAME2048_RATE_LIMIT", "").strip() == "0"
        url = database_url or env.get("DATABASE_URL") or default_database_url()
        return cls(
            database_url=normalise_database_url(url),
            secret=env.get("GAME2048_SECRET") or None,
            rate_limit=env.get("GAME2048_RATE_LIMIT", DEFAULT_RATE_LIMIT).strip() or DEFAULT_RATE_LIMIT,
            redis_url=env.get("REDIS_URL") or None,
            hint_rate_limit="0" if off else env.get("GAME2048_HINT_RATE_LIMIT", DEFAULT_HINT_RATE_LIMIT),
            board_hint_rate_limit="0" if off else env.get("GAME2048_BOARD_HINT_RATE_LIMIT",
                                                          DEFAULT_BOARD_HINT_RATE_LIMIT),
            move_rate_limit="0" if off else env.get("GAME2048_MOVE_RATE_LIMIT", DEFAULT_MOVE_RATE_LIMIT),
            daily_tries=env_count(env.get("GAME2048_DAILY_TRIES"), DEFAULT_DAILY_TRIES),
            daily_tries_per_network=env_count(env.get("GAME2048_DAILY_TRIES_PER_NETWORK"),
                                           DEFAULT_DAILY_TRIES_PER_NETWORK),
            names_per_day=env_count(env.get("GAME2048_NAMES_PER_DAY"), DEFAULT_NAMES_PER_DAY),
            idle_days=env_seconds(env.get("GAME2048_IDLE_DAYS"), DEFAULT_IDLE_DAYS),
            move_durability=_choice("GAME2048_MOVE_DURABILITY", env, DURABILITIES),
            cpu_budget="0" if off else env.get("GAME2048_CPU_BUDGET", DEFAULT_CPU_BUDGET),
            hint_cpu_budget="0" if off else env.get("GAME2048_HINT_CPU_BUDGET", DEFAULT_HINT_CPU_BUDGET),
            answer_ttl=env_seconds(env.get("GAME2048_LEADERBOARD_TTL"), 1.0),
            body_deadline=env_seconds(env.get("GAME2048_BODY_DEADLINE"), BODY_DEADLINE) or BODY_DEADLINE,
            warm_solver=env.get("GAME2048_WARM_SOLVER", "1").strip() != "0",
            public_url=_public_url(env.get("GAME2048_PUBLIC_URL")),
            metrics_token=env.get("GAME2048_METRICS_TOKEN") or None,
            max_sockets=env_count(env.get("GAME2048_MAX_SOCKETS"), 16),
            socket_idle=env_seconds(env.get("GAME2048_SOCKET_IDLE"), 300.0),
            practice_records=env_count(env.get("GAME2048_PRACTICE_RECORDS"), 200),
            practice_bytes=env_count(env.get("GAME2048_PRACTICE_BYTES"), 4 * 1024 * 1024),
            recent_bytes=env_count(env.get("GAME2048_RECENT_BYTES"), DEFAULT_RECENT_BYTES),
            reviews=ReviewSettings.from_env(env),
            engine_check=_choice("GAME2048_ENGINE_CHECK", env, ENGINE_CHECKS),
            hold_tiles=env.get("GAME2048_HOLD_TILES", DEFAULT_HOLD_TILES),
            report_rate_limit="0" if off else env.get("GAME2048_REPORT_RATE_LIMIT",
                                                      DEFAULT_REPORT_RATE_LIMIT),
            mod_password_hash=env.get("GAME2048_MOD_PASSWORD_HASH") or None,
        )


def _public_url(text: str | None) -> str | None:
    """``https://example.org`` (no path, no trailing slash), or None.

    >>> _public_url("https://play.example.org/")
    'https://play.example.org'
    """
    if not text or not text.strip():
        return None
    from urllib.parse import urlsplit

    parts = urlsplit(text.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.path.strip("/"):
        raise SystemExit(f"GAME2048_PUBLIC_URL must be http(s)://host[:port], got {text!r}")
    return f"{parts.scheme}://{parts.netloc}"


def _choice(name: str, env: dict[str, str], choices: tuple[str, ...]) -> str:
    """One of ``choices`` (the first when unset), as the variable ``name`` says."""
    text = env.get(name)
    chosen = (text or choices[0]).strip().lower()
    if chosen not in choices:
        raise ValueError(f"{name} must be {' or '.join(map(repr, choices))}, got {text!r}")
    return chosen


def env_count(text: str | None, default: int) -> int:
    """A setting's whole number from its environment text (negative reads as 0), or ``default``."""
    try:
        return max(0, int(text)) if text else default
    except ValueError:
        raise SystemExit(f"expected a whole number, got {text!r}") from None


def env_seconds(text: str | None, default: float) -> float:
    """A setting's number of seconds from its environment text (negative reads as 0), or ``default``."""
    try:
        return max(0.0, float(text)) if text else default
    except ValueError:
        raise SystemExit(f"expected a number, got {text!r}") from None


@dataclass(frozen=True)
class ReviewSettings:
    """How this process takes part in reviewing games (``server/reviews/``, ``docs/deploy.md``)."""

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
            workers=env_count(env.get("GAME2048_REVIEW_WORKERS"), cls.workers),
            per_client=env_count(env.get("GAME2048_REVIEW_PER_CLIENT"), cls.per_client),
            queue=env_count(env.get("GAME2048_REVIEW_QUEUE"), cls.queue),
            preset=preset,
            long_moves=env_count(env.get("GAME2048_REVIEW_LONG_MOVES"), cls.long_moves),
            nice=env_count(env.get("GAME2048_REVIEW_NICE"), cls.nice),
        )


#: What GAME2048_MOVE_DURABILITY and GAME2048_ENGINE_CHECK may say, the default first.
DURABILITIES = ("process", "disk")
ENGINE_CHECKS = ("background", "inline", "off")
