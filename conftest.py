"""Doctests run over the package; Alembic's environment script only runs under Alembic."""

import os

import pytest

collect_ignore_glob = ["src/game2048/server/storage/migrations/*", "tests/vectors/generate.py"]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Where GAME2048_REQUIRE_SERVICES is set (CI), a test that skips for a missing service fails."""
    outcome = yield
    report = outcome.get_result()
    if os.environ.get("GAME2048_REQUIRE_SERVICES") and report.skipped and not hasattr(report, "wasxfail"):
        report.outcome = "failed"
        report.longrepr = f"skipped where services are required: {report.longrepr}"
