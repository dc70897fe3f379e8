"""Property-based fuzzing of every endpoint in the OpenAPI schema, with a valid operator key:
no input may cause a server error, and every documented response must match its schema."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from django.core import signals
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import response_schema_conformance

from config.wsgi import application
from tests.conftest import Key

schema = schemathesis.openapi.from_wsgi("/v1/schema", application)


@pytest.fixture
def fuzz_key(operator_key_a: Key, property_agent: Any) -> Iterator[Key]:
    # Requests go straight to the WSGI application, in this test's transaction: like Django's
    # test client, keep the request signals from closing the connection under the test.
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    try:
        yield operator_key_a
    finally:
        signals.request_started.connect(close_old_connections)
        signals.request_finished.connect(close_old_connections)


@schema.parametrize()
@settings(
    max_examples=12,
    deadline=None,
    derandomize=True,  # the same inputs every run: a failure reproduces
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@pytest.mark.django_db
def test_no_input_makes_a_server_error_or_breaks_the_schema(case: Any, fuzz_key: Key) -> None:
    case.call_and_validate(
        headers={"Authorization": f"Bearer {fuzz_key.raw}"},
        checks=[not_a_server_error, response_schema_conformance],
    )
