"""Doctests run over the package; Alembic's environment script only runs under Alembic, and the
stable-baselines3 adapter only imports where stable-baselines3 is installed.

``scripts/test.sh`` runs the tests on several processes (pytest-xdist, ``--dist loadgroup``); the
tests that share something outside their process, listed in ``SHARED``, run on one of them, one
after another."""

import importlib.util
import os

import pytest

collect_ignore_glob = ["src/game2048/server/storage/migrations/*", "tests/vectors/generate.py"]
if importlib.util.find_spec("stable_baselines3") is None:  # an optional adapter; tests/test_env.py checks it
    collect_ignore_glob.append("src/game2048/env/sb3.py")


#: Tests that run on one worker, one after another, by the group they are in (a path, or the start of
#: one): "browser" shares one ``game2048 serve`` and one Chromium (each worker that ran browser tests
#: would start its own: a server, a solver warmed, a game played and reviewed, on a 2-core machine);
#: "redis-6379" the machine's Redis (127.0.0.1:6379, database 15), whose rate-limit and CPU-budget
#: counts of the test client ("testclient") each such test resets, and whose Lua scripts one flushes.
SHARED = {
    "browser": ("tests/browser/",),
    "redis-6379": ("tests/server/live/test_stores.py", "tests/server/live/test_redis_lines.py",
                   "tests/server/live/test_redis_moves.py", "tests/server/limits/test_ratelimit.py"),
}


#: Test files with tests of a minute or more on a busy machine (training, solver games, real servers):
#: handed out first, after the groups, so that none of them starts last and runs on alone.
LONG_FIRST = ("tests/test_learn_stages.py", "tests/test_simulate.py", "tests/test_learn.py",
              "tests/test_bench_review.py", "tests/test_learned_preset.py", "tests/test_learn_coherence.py",
              "tests/server/reviews/test_review_shutdown.py", "tests/server/records/test_boards.py",
              "tests/test_solver.py", "tests/server/live/test_store_failures.py")


def shared_group(nodeid: str) -> str | None:
    """The group of ``SHARED`` the test ``nodeid`` is in, if any."""
    path = nodeid.split("::", 1)[0]
    return next((group for group, paths in SHARED.items() for p in paths
                 if path == p or (p.endswith("/") and path.startswith(p))), None)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log):  # type: ignore[no-untyped-def]
    """With ``--dist loadgroup``: each test is a unit of work of its own, but a group of ``SHARED`` is
    one unit. (pytest-xdist's own loadgroup reads the xdist_group marks from node ids it renames,
    which pytest 9.2 no longer lets it do: the marks would be ignored.)"""
    if config.getoption("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadGroupScheduling

    named = [p for paths in SHARED.values() for p in paths] + list(LONG_FIRST)
    missing = [p for p in named if not (config.rootpath / p).exists()]
    assert not missing, f"conftest.py names test files that are not there: {missing}"

    class Shared(LoadGroupScheduling):
        ordered = False

        def _split_scope(self, nodeid: str) -> str:
            return shared_group(nodeid) or super()._split_scope(nodeid)

        def _assign_work_unit(self, node):  # type: ignore[no-untyped-def]
            if not self.ordered:  # the queue is whole by the first assignment: the longest work first
                self.ordered = True

                def rank(scope: str) -> int:
                    if scope in SHARED:
                        return 0
                    return 1 if scope.split("::", 1)[0] in LONG_FIRST else 2

                for scope in sorted(self.workqueue, key=rank):  # a stable sort: else collection order
                    self.workqueue.move_to_end(scope)
            super()._assign_work_unit(node)

    return Shared(config, log)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Where GAME2048_REQUIRE_SERVICES is set (CI), a test that skips for a missing service fails."""
    outcome = yield
    report = outcome.get_result()
    if os.environ.get("GAME2048_REQUIRE_SERVICES") and report.skipped and not hasattr(report, "wasxfail"):
        report.outcome = "failed"
        report.longrepr = f"skipped where services are required: {report.longrepr}"
