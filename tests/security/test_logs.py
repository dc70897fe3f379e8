"""A 500 logs the route, never the path: paths carry user ids (issue 16)."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import settings
from django.test import Client

from core import logs
from tests.conftest import Key

SECRET_USER = "user-7f3a-personal"


@pytest.fixture
def production_log() -> Iterator[io.StringIO]:
    """Every line through the console handler's filters and formatter, as configured."""
    logging_config: dict[str, Any] = settings.LOGGING
    configured: list[str] = logging_config["handlers"]["console"]["filters"]
    filters = {
        name: logs.RequestIdFilter() if name == "request_id" else logs.PathRedactFilter()
        for name in configured
    }
    assert set(configured) == {"request_id", "redact_path"}
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    for log_filter in filters.values():
        handler.addFilter(log_filter)
    handler.setFormatter(logs.JsonFormatter())
    root = logging.getLogger()
    root.addHandler(handler)
    yield stream
    root.removeHandler(handler)


def test_a_server_error_logs_the_route_not_the_user_id(
    agent_key_a: Key, production_log: io.StringIO, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tenants.authentication import ApiKeyAuthentication

    def broken(self: Any, request: Any) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(ApiKeyAuthentication, "authenticate", broken)
    client = Client(raise_request_exception=False)
    response = client.get(
        f"/v1/users/{SECRET_USER}/entities?agent=advisor",
        headers={"Authorization": f"Bearer {agent_key_a.raw}"},
    )
    assert response.status_code == 500
    assert response.json()["code"] == "server_error"
    logged = production_log.getvalue()
    assert SECRET_USER not in logged
    errors = [json.loads(line) for line in logged.splitlines() if '"django.request"' in line]
    assert errors and "/v1/users/<path:user>/entities" in errors[0]["message"], errors
