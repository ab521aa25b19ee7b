"""``game2048 serve``: run the web game and its API on uvicorn."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated

import typer


def serve(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.", min=1, max=65535)] = 8000,
    db: Annotated[
        str | None,
        typer.Option(help="Database URL (sqlite:///file or postgresql://...); default DATABASE_URL, "
                     "else an SQLite file in your data directory."),
    ] = None,
    workers: Annotated[
        int, typer.Option(help="Worker processes (use PostgreSQL when more than 1).", min=1)
    ] = 1,
    proxy_headers: Annotated[
        bool, typer.Option(help="Trust X-Forwarded-For from FORWARDED_ALLOW_IPS (behind a proxy).")
    ] = False,
) -> None:
    """Serve the web game, the leaderboards and the JSON API (OpenAPI at /openapi.json)."""
    import os

    try:
        import uvicorn

        from .app import create_app
    except ModuleNotFoundError as exc:
        typer.echo(f"error: game2048 serve needs the server extra ({exc.name} is missing): "
                   "pip install 'game2048[server]'", err=True)
        raise typer.Exit(code=1) from None
    from .config import UVICORN_LIMITS, Settings
    from .limits.connections import GuardedHTTP
    from .site import PagesMissing

    try:
        from . import site

        site.router  # noqa: B018 - every page imports now, before anything listens
    except PagesMissing as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from None
    with _startup_errors():
        settings = Settings.from_env(db)
    if workers > 1:
        from sqlalchemy.orm import sessionmaker

        from .storage.db import WORKERS_ENV, load_secret, make_engine, migrate

        # migrate and make the secret once here, so the workers find both ready
        with _startup_errors():
            engine = make_engine(settings.database_url)
            migrate(engine)
            load_secret(sessionmaker(engine), settings.secret)
            engine.dispose()
        # each worker builds its own app from the environment
        os.environ["DATABASE_URL"] = settings.database_url
        os.environ[WORKERS_ENV] = str(workers)  # SQLite: the workers' writers queue on a file lock
        metrics_dir = _shared_metrics_dir()
        typer.echo(f"game2048: serving on http://{host}:{port}/ with {workers} workers")
        try:
            uvicorn.run(
                "game2048.server.app:app_from_env", factory=True, host=host, port=port,
                workers=workers, proxy_headers=proxy_headers, log_level="warning", access_log=False,
                http=GuardedHTTP,
                **UVICORN_LIMITS,  # type: ignore[arg-type]
            )
        finally:
            if metrics_dir is not None:
                import shutil

                shutil.rmtree(metrics_dir, ignore_errors=True)
        return
    with _startup_errors():
        app = create_app(settings)
    typer.echo(f"game2048: serving on http://{host}:{port}/")
    uvicorn.run(app, host=host, port=port, proxy_headers=proxy_headers, log_level="warning",
                access_log=False, http=GuardedHTTP, **UVICORN_LIMITS)  # type: ignore[arg-type]


@contextmanager
def _startup_errors() -> Iterator[None]:
    """A setting the server cannot start with (a database URL, a rate limit) ends ``serve`` with one
    ``error:`` line and status 1, not a traceback."""
    from sqlalchemy.exc import ArgumentError, OperationalError

    try:
        yield
    except (ValueError, ArgumentError, OperationalError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        typer.echo(f"error: cannot start the server: {first}", err=True)
        raise typer.Exit(code=1) from None


def _shared_metrics_dir() -> str | None:
    """Make a fresh folder for the workers' Prometheus samples, unless PROMETHEUS_MULTIPROC_DIR
    names one; returns the folder made here (removed at exit), else None."""
    import os
    import tempfile

    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        return None
    folder = tempfile.mkdtemp(prefix="game2048-metrics-")
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = folder  # read by each worker's prometheus_client
    return folder
