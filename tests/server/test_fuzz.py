"""Fuzzing the OpenAPI schema (schemathesis + hypothesis): valid and invalid requests, never a 5xx.

A small budget per operation keeps the run to a few seconds.
"""

from __future__ import annotations

import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.generation import GenerationMode

EXAMPLES = 25


def test_fuzzed_requests_never_get_a_5xx(app):  # type: ignore[no-untyped-def]
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
                    assert set(response.json()) == {"error"}, response.text

            check()
