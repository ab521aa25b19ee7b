"""Fuzzing the OpenAPI schema (schemathesis + hypothesis): valid and invalid requests, never a 5xx.

A small budget per operation keeps the run to a few seconds.
"""

from __future__ import annotations

from pathlib import Path

import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis.generation import GenerationMode

from game2048.server import Settings, create_app

EXAMPLES = 20


def test_fuzzed_requests_never_get_a_5xx(tmp_path: Path) -> None:
    """Validation is the same on either database, so this runs on SQLite only."""
    # every limit off: the fuzzer is one client sending bursts (on a fast machine the move limit
    # answered 429s, whose body also says when to retry)
    app = create_app(Settings(database_url=f"sqlite:///{tmp_path / 'fuzz.sqlite3'}", rate_limit="0",
                              hint_rate_limit="0", board_hint_rate_limit="0",
                              move_rate_limit="0"))
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 5
    for operation in operations:
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):

            @given(case=operation.as_strategy(generation_mode=mode))
            @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck),
                      database=None)
            def check(case):  # type: ignore[no-untyped-def]
                response = case.call()
                assert response.status_code < 500, (case.method, case.formatted_path, case.body,
                                                    response.text)
                if response.status_code >= 400:
                    shapes = [{"error"}, {"error", "code"}]
                    if response.status_code in (429, 503):  # these also say when to retry
                        shapes.append({"error", "code", "retry_after"})
                    assert set(response.json()) in shapes, response.text

            try:
                check()
            except Unsatisfiable:  # nothing to get wrong in a route without parameters (/healthz)
                assert mode == GenerationMode.NEGATIVE, operation.label
    app.state.engine.dispose()
