"""Property-based fuzzing of every endpoint in the OpenAPI schema, with a valid operator key:
no input may cause a server error, every status answered is one the schema documents, and
every documented response matches its schema. Path segments are fuzzed as well (below)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from django.core import signals
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    response_schema_conformance,
    status_code_conformance,
)

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
        checks=[not_a_server_error, status_code_conformance, response_schema_conformance],
    )


# Path segments: every route that takes a user id, an agent slug or an object id, with text
# of every kind (NUL, controls, surrogate-free unicode, slashes, huge): a 4xx, never a 5xx.
from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

ROUTES = [
    ("get", "/v1/users/{}/entities?agent=property"),
    ("post", "/v1/users/{}/facts"),
    ("get", "/v1/users/{}/runs?agent=property"),
    ("get", "/v1/users/{}/export"),
    ("get", "/v1/agents/{}"),
    ("get", "/v1/agents/{}/settings"),
    ("get", "/v1/agents/{}/schemas"),
    ("get", "/v1/entities/{}"),
    ("get", "/v1/erasures/{}"),
    ("get", "/v1/webhooks/{}/deliveries"),
    ("post", "/v1/entities/{}/pin"),
]


@given(
    segment=st.text(st.characters(exclude_categories=["Cs"]), min_size=1, max_size=300),
    route=st.sampled_from(ROUTES),
)
@settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@pytest.mark.django_db
def test_any_path_segment_is_a_4xx_never_a_server_error(
    fuzz_key: Key, segment: str, route: tuple[str, str]
) -> None:
    from urllib.parse import quote

    from rest_framework.test import APIClient

    method, template = route
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {fuzz_key.raw}")
    path = template.format(quote(segment, safe=""))
    response = getattr(client, method)(
        path,
        {"agent": "property", "key": "name", "value": "x"} if method == "post" else None,
        format="json",
    )
    assert response.status_code < 500, (path, response.status_code)
    if response.status_code >= 400:
        assert "code" in response.json(), (path, response.content)
