from __future__ import annotations

import pytest

from core.errors import Conflict, Invalid, NotFound
from schemas.models import Agent, ExtractionSchema
from schemas.services import agent_create, agent_settings_update, schema_activate, schema_publish
from tenants.models import AuditEvent, Tenant

FIELDS = [
    {"key": "budget", "description": "Maximum budget", "category": "temporal", "type": "money"}
]


def test_agent_create_publishes_version_one_active(tenant_a: Tenant) -> None:
    agent = agent_create(tenant_id=tenant_a.pk, slug="a1", name="A1", actor="test")
    schemas = list(ExtractionSchema.objects.filter(agent=agent))
    assert [(s.version, s.is_active) for s in schemas] == [(1, True)]
    assert agent.extraction_token_threshold == 4000
    assert agent.min_kept_turns == 1
    assert agent.dedup_threshold == 0.95
    assert AuditEvent.objects.filter(action="agent.create", target_id="a1").count() == 1


def test_agent_create_duplicate_slug_conflicts_and_writes_nothing(agent_a: Agent) -> None:
    with pytest.raises(Conflict) as caught:
        agent_create(tenant_id=agent_a.tenant_id, slug=agent_a.slug, name="again", actor="test")
    assert caught.value.code == "agent_exists"
    assert Agent.objects.filter(tenant_id=agent_a.tenant_id).count() == 1
    assert ExtractionSchema.objects.filter(agent__tenant_id=agent_a.tenant_id).count() == 1


def test_same_slug_in_another_tenant_is_a_different_agent(agent_a: Agent, tenant_b: Tenant) -> None:
    other = agent_create(tenant_id=tenant_b.pk, slug=agent_a.slug, name="B", actor="test")
    assert other.pk != agent_a.pk


def test_agent_create_with_invalid_schema_writes_nothing(tenant_a: Tenant) -> None:
    with pytest.raises(Invalid) as caught:
        agent_create(
            tenant_id=tenant_a.pk, slug="x", name="X", schema_fields=[{"key": "Bad"}], actor="t"
        )
    assert "schema_fields[0].key" in (caught.value.fields or {})
    assert not Agent.objects.filter(tenant=tenant_a).exists()


def test_publish_creates_next_version_and_activates_it(agent_a: Agent) -> None:
    schema, created = schema_publish(agent=agent_a, fields=FIELDS, note="budget only", actor="op")
    assert created and schema.version == 2 and schema.is_active
    active = ExtractionSchema.objects.filter(agent=agent_a, is_active=True)
    assert [s.version for s in active] == [2]
    actions = list(
        AuditEvent.objects.filter(target_id=agent_a.slug).values_list("action", flat=True)
    )
    assert actions.count("schema.publish") == 1 and actions.count("schema.activate") == 1


def test_publishing_identical_fields_creates_nothing(agent_a: Agent) -> None:
    first, _ = schema_publish(agent=agent_a, fields=FIELDS, actor="op")
    again, created = schema_publish(agent=agent_a, fields=FIELDS, actor="op")
    assert not created and again.pk == first.pk
    assert ExtractionSchema.objects.filter(agent=agent_a).count() == 2


def test_publish_without_activate_keeps_the_active_version(agent_a: Agent) -> None:
    schema, _ = schema_publish(agent=agent_a, fields=FIELDS, activate=False, actor="op")
    assert not schema.is_active
    assert ExtractionSchema.objects.get(agent=agent_a, is_active=True).version == 1


def test_activate_rolls_back_to_an_older_version_and_never_edits_it(agent_a: Agent) -> None:
    v1_fields = ExtractionSchema.objects.get(agent=agent_a, version=1).fields
    schema_publish(agent=agent_a, fields=FIELDS, actor="op")
    schema_activate(agent=agent_a, version=1, actor="op")
    rows = {s.version: s for s in ExtractionSchema.objects.filter(agent=agent_a)}
    assert rows[1].is_active and not rows[2].is_active
    assert rows[1].fields == v1_fields and rows[2].fields == FIELDS


def test_activate_unknown_version_is_not_found(agent_a: Agent) -> None:
    with pytest.raises(NotFound):
        schema_activate(agent=agent_a, version=9, actor="op")


def test_settings_update_is_validated_audited_and_partial(agent_a: Agent) -> None:
    agent_settings_update(agent=agent_a, changes={"min_kept_turns": 6}, actor="op")
    agent_a.refresh_from_db()
    assert agent_a.min_kept_turns == 6 and agent_a.context_window_turns == 10
    event = AuditEvent.objects.get(action="agent.settings")
    assert event.before == {"min_kept_turns": 1} and event.after == {"min_kept_turns": 6}
    with pytest.raises(Invalid):
        agent_settings_update(
            agent=agent_a, changes={"min_kept_turns": -1, "context_window_turns": 3}, actor="op"
        )
    agent_a.refresh_from_db()
    assert agent_a.context_window_turns == 10  # nothing of an invalid change is applied
