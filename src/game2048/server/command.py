"""``game2048 serve``: run the web game and its API on uvicorn."""

from __future__ import annotations

from typing import Annotated

import typer


def serve(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
    db: Annotated[
        str | None,
        typer.Option(help="Database URL (sqlite:///file or postgresql://...); default DATABASE_URL, "
                     "else an SQLite file in your data directory."),
    ] = None,
    workers: Annotated[int, typer.Option(help="Worker processes (use PostgreSQL when more than 1).")] = 1,
    proxy_headers: Annotated[
        bool, typer.Option(help="Trust X-Forwarded-For from FORWARDED_ALLOW_IPS (behind a proxy).")
    ] = False,
) -> None:
    """Serve the web game, the leaderboards and the JSON API (OpenAPI at /openapi.json)."""
    import os

    import uvicorn

    from .config import UVICORN_LIMITS, Settings
    from .limits.connections import GuardedHTTP

    if not 1 <= port <= 65535:
        typer.echo(f"game2048: --port must be 1 to 65535, got {port}", err=True)
        raise typer.Exit(2)
    from ..site import PagesMissing

    try:
        from .. import site

        site.router  # noqa: B018 - every page imports now, before anything listens
    except PagesMissing as exc:
        typer.echo(f"game2048: {exc}", err=True)
        raise typer.Exit(1) from None
    settings = Settings.from_env(db)
    if workers > 1:
        from sqlalchemy.orm import sessionmaker

        from .storage.db import load_secret, make_engine, migrate

        # migrate and make the secret once here, so the workers find both ready
        engine = make_engine(settings.database_url)
        migrate(engine)
        load_secret(sessionmaker(engine), settings.secret)
        engine.dispose()
        # each worker builds its own app from the environment
        os.environ["DATABASE_URL"] = settings.database_url
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
    from .app import create_app

    app = create_app(settings)
    typer.echo(f"game2048: serving on http://{host}:{port}/")
    uvicorn.run(app, host=host, port=port, proxy_headers=proxy_headers, log_level="warning",
                access_log=False, http=GuardedHTTP, **UVICORN_LIMITS)  # type: ignore[arg-type]


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
