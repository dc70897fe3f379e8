"""Row-level security: a query that forgot its tenant filter still sees one tenant's rows."""

from __future__ import annotations

from typing import Any

import pytest
from django.apps import apps
from django.db import DatabaseError, connection, transaction

from memory.models import EndUser, Entity
from memory.selectors import _uuid
from memory.services import end_user_get_or_create, entity_upsert
from schemas.models import Agent
from tenants.models import ApiKey, Tenant
from tenants.rls import ROLE, tenant_scope_enter, tenant_scope_exit
from tests.conftest import Key


def _tenant_tables() -> list[str]:
    tables = []
    for model in apps.get_models():
        columns = {f.column for f in model._meta.concrete_fields}
        if model is Tenant or "tenant_id" in columns:
            tables.append(model._meta.db_table)
    return sorted(tables)


def test_every_tenant_table_has_the_policy(db: None) -> None:
    tables = _tenant_tables()
    assert "memory_turn" in tables and "extraction_extractionrun" in tables
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.relname FROM pg_class c JOIN pg_policies p ON p.tablename = c.relname "
            "WHERE c.relrowsecurity AND p.policyname = 'tenant_isolation' AND %s = ANY(p.roles)",
            [ROLE],
        )
        protected = {row[0] for row in cursor.fetchall()}
    assert sorted(set(tables) - protected) == [], "a tenant table without its policy"


@pytest.fixture
def two_tenants(agent_a: Agent, agent_b: Agent, operator_key_a: Key, key_b: Key) -> None:
    for agent in (agent_a, agent_b):
        user = end_user_get_or_create(tenant_id=agent.tenant_id, external_id="same-id")
        entity_upsert(
            agent=agent, end_user=user, key="city", value=f"city of {agent.slug}", actor="t"
        )


def test_unfiltered_queries_in_a_scope_see_one_tenant(
    two_tenants: None, tenant_a: Tenant, tenant_b: Tenant
) -> None:
    assert Entity.objects.count() == 2 and ApiKey.objects.count() == 2  # the owner sees all
    tenant_scope_enter(tenant_a.pk)
    try:
        assert [e.value_text for e in Entity.objects.all()] == ["city of advisor"]
        assert set(ApiKey.objects.values_list("tenant_id", flat=True)) == {tenant_a.pk}
        assert list(Tenant.objects.values_list("slug", flat=True)) == ["tenant-a"]
        assert not EndUser.objects.filter(tenant_id=tenant_b.pk).exists()
        # Writing into another tenant is refused by the policy's check.
        with pytest.raises(DatabaseError, match="row-level security"), transaction.atomic():
            EndUser.objects.create(tenant_id=tenant_b.pk, external_id="smuggled")
        assert Entity.objects.filter(tenant_id=tenant_b.pk).update(value_text="hijacked") == 0
    finally:
        tenant_scope_exit()
    assert Entity.objects.filter(value_text="hijacked").count() == 0
    assert Entity.objects.count() == 2


def test_a_forgotten_filter_in_a_view_still_answers_404(
    two_tenants: None, key_b: Key, monkeypatch: Any
) -> None:
    """Simulate the bug: the entity lookup forgets the tenant. RLS still hides the row."""

    def careless(*, tenant_id: int, entity_id: object, agent_scope: int | None = None) -> Entity:
        entity = Entity.objects.filter(pk=_uuid(entity_id, "entity_not_found", "entity")).first()
        if entity is None:
            from core.errors import NotFound

            raise NotFound("No entity.", code="entity_not_found")
        return entity

    monkeypatch.setattr("api.v1.facts.entity_get_for_tenant", careless)
    victim = Entity.objects.get(value_text="city of advisor")
    response = key_b.client().get(f"/v1/entities/{victim.pk}")
    assert response.status_code == 404, response.content
    # Without the scope the careless lookup would have leaked it: the policy did the work.
    assert careless(tenant_id=0, entity_id=victim.pk) == victim
