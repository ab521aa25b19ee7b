"""Doctests run over the package; Alembic's environment script only runs under Alembic, and the
stable-baselines3 adapter only imports where stable-baselines3 is installed."""

import importlib.util
import os

import pytest

collect_ignore_glob = ["src/game2048/server/storage/migrations/*", "tests/vectors/generate.py"]
if importlib.util.find_spec("stable_baselines3") is None:  # an optional adapter; tests/test_env.py checks it
    collect_ignore_glob.append("src/game2048/env/sb3.py")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Where GAME2048_REQUIRE_SERVICES is set (CI), a test that skips for a missing service fails."""
    outcome = yield
    report = outcome.get_result()
    if os.environ.get("GAME2048_REQUIRE_SERVICES") and report.skipped and not hasattr(report, "wasxfail"):
        report.outcome = "failed"
        report.longrepr = f"skipped where services are required: {report.longrepr}"
