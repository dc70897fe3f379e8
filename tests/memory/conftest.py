from __future__ import annotations

import pytest

from memory.models import EndUser
from schemas.defaults import PROPERTY_ADVISOR
from schemas.models import Agent
from schemas.services import agent_create
from tenants.models import Tenant


@pytest.fixture
def advisor(tenant_a: Tenant) -> Agent:
    """An agent with the property-advisor schema (budget is temporal money, mood ephemeral)."""
    return agent_create(
        tenant_id=tenant_a.pk,
        slug="property",
        name="Property",
        schema_fields=PROPERTY_ADVISOR,
        actor="test",
    )


@pytest.fixture
def priya(tenant_a: Tenant) -> EndUser:
    return EndUser.objects.create(tenant=tenant_a, external_id="priya")
