"""Personas shared by every area: an operator and a viewer in tenant A, and tenant B's key."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from django.conf import settings
from django.core.cache import cache
from rest_framework.test import APIClient

from schemas.models import Agent
from schemas.services import agent_create
from tenants.models import ApiKey, KeyRole, Role, Tenant
from tenants.services import api_key_create, membership_set
from tests.factories import UserFactory


@pytest.fixture(autouse=True)
def _fresh_cache() -> Iterator[None]:
    # Redis outlives each test's rolled-back transaction: start every test with no cached keys.
    prefix = str(settings.CACHES["default"].get("KEY_PREFIX", ""))
    assert prefix.startswith("hv-test"), "run tests through `make test` (CACHE_KEY_PREFIX)"
    cache.delete_pattern("*")  # type: ignore[attr-defined]  # only keys under the test prefix
    yield


@pytest.fixture(autouse=True)
def _owner_between_requests() -> Iterator[None]:
    """A test reads and writes the database itself between API calls, on the same connection
    as the requests: it must do so as the tables' owner, not in the last request's tenant
    scope (tenants.rls). In production nothing but requests uses an API worker's connection."""
    from django.core.signals import request_finished

    from tenants.rls import tenant_scope_exit

    def leave(**_: Any) -> None:
        tenant_scope_exit()

    request_finished.connect(leave, dispatch_uid="tests-leave-tenant-scope")
    yield
    request_finished.disconnect(dispatch_uid="tests-leave-tenant-scope")
    # A test's rollback undoes a scope entered inside it; a transactional test's does not.
    from django.db import connection

    from tenants.rls import _SCOPED

    try:
        tenant_scope_exit()
    except Exception:  # no database access for this test: nothing to leave
        setattr(connection, _SCOPED, None)


@pytest.fixture
def sticky_tenant_scope() -> None:
    """Requests keep their tenant scope between calls, as in production (for query counts)."""
    from django.core.signals import request_finished

    request_finished.disconnect(dispatch_uid="tests-leave-tenant-scope")


@pytest.fixture(autouse=True)
def _no_remembered_model_formats() -> None:
    # The openai extractor remembers per process what each endpoint accepts; a scripted
    # server's port may be reused by a later test's server that accepts something else.
    from extraction.extractors.openai import CAPABILITIES

    CAPABILITIES.forget()


@pytest.fixture(autouse=True)
def _eager_celery(settings: Any) -> None:
    from config.celery import app

    app.conf.task_always_eager = True
    app.conf.task_eager_propagates = True


# A cache configuration whose Redis does not exist: for tests of degraded operation.
DEAD_REDIS = {
    "default": {
        "BACKEND": "django_redis.cache.RedisCache",
        "LOCATION": "unix:///nonexistent/redis.sock",
        "KEY_PREFIX": "hv-test",
        "OPTIONS": {"SOCKET_CONNECT_TIMEOUT": 0.2, "SOCKET_TIMEOUT": 0.2},
    }
}


@dataclass
class Key:
    model: ApiKey
    raw: str

    def client(self) -> APIClient:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {self.raw}")
        return client


@pytest.fixture
def tenant_a(db: None) -> Tenant:
    return Tenant.objects.create(name="Tenant A", slug="tenant-a")


@pytest.fixture
def tenant_b(db: None) -> Tenant:
    return Tenant.objects.create(name="Tenant B", slug="tenant-b")


@pytest.fixture
def agent_a(tenant_a: Tenant) -> Agent:
    return agent_create(tenant_id=tenant_a.pk, slug="advisor", name="Advisor A", actor="test")


@pytest.fixture
def property_agent(tenant_a: Tenant) -> Agent:
    """Tenant A's agent with the property-advisor schema (budget: temporal money, …)."""
    from schemas.defaults import PROPERTY_ADVISOR

    return agent_create(
        tenant_id=tenant_a.pk, slug="property", name="P", schema_fields=PROPERTY_ADVISOR, actor="t"
    )


@pytest.fixture
def agent_b(tenant_b: Tenant) -> Agent:
    return agent_create(tenant_id=tenant_b.pk, slug="advisor-b", name="Advisor B", actor="test")


def _key(tenant: Tenant, role: str, agent: Agent | None = None) -> Key:
    model, raw = api_key_create(
        tenant=tenant,
        name=f"{role} key",
        role=role,
        agent_id=agent.pk if agent else None,
        actor="test",
    )
    return Key(model, raw)


@pytest.fixture
def operator_key_a(tenant_a: Tenant, agent_a: Agent) -> Key:
    return _key(tenant_a, KeyRole.OPERATOR)


@pytest.fixture
def viewer_key_a(tenant_a: Tenant, agent_a: Agent) -> Key:
    return _key(tenant_a, KeyRole.VIEWER)


@pytest.fixture
def agent_key_a(tenant_a: Tenant, agent_a: Agent) -> Key:
    return _key(tenant_a, KeyRole.AGENT)


@pytest.fixture
def key_b(tenant_b: Tenant, agent_b: Agent) -> Key:
    """Tenant B's operator key: the outsider in every isolation test."""
    return _key(tenant_b, KeyRole.OPERATOR)


@pytest.fixture
def operator_a(tenant_a: Tenant) -> Any:
    user: Any = UserFactory(username="operator-a")
    membership_set(tenant=tenant_a, user=user, role=Role.OPERATOR)
    return user


@pytest.fixture
def viewer_a(tenant_a: Tenant) -> Any:
    user: Any = UserFactory(username="viewer-a")
    membership_set(tenant=tenant_a, user=user, role=Role.VIEWER)
    return user
