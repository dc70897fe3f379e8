from __future__ import annotations

from django.test import override_settings
from rest_framework.test import APIClient

from tests.conftest import DEAD_REDIS


def test_healthz_needs_nothing() -> None:
    response = APIClient().get("/healthz")
    assert response.status_code == 200 and response.json() == {"status": "ok"}


def test_readyz_reports_each_dependency(db: None) -> None:
    response = APIClient().get("/readyz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ready"
    assert body["checks"]["postgres"]["ok"] is True and body["checks"]["redis"]["ok"] is True


def test_readyz_is_503_when_redis_is_down(db: None) -> None:
    with override_settings(CACHES=DEAD_REDIS):
        response = APIClient().get("/readyz")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unavailable"
    assert body["checks"]["postgres"]["ok"] is True
    assert body["checks"]["redis"]["ok"] is False and "Error" in body["checks"]["redis"]["error"]
