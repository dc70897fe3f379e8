from __future__ import annotations

import datetime
import io
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from memory.models import ACU, EndUser, Entity, HotDocument
from memory.services import TurnIn, entity_upsert, hot_document_load, session_open, turn_append
from schemas.defaults import PROPERTY_ADVISOR
from schemas.services import agent_create, schema_publish
from tenants.models import Tenant

pytestmark = pytest.mark.django_db(transaction=True)
WHEN = datetime.datetime(2026, 3, 3, 10, 0, tzinfo=datetime.UTC)


@pytest.fixture(autouse=True)
def _no_enqueue(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("extraction.queue.run_send", lambda run_id: True)


def _state(user: EndUser) -> dict[str, Any]:
    return {
        "entities": sorted(
            Entity.objects.filter(end_user=user).values_list(
                "key", "value_text", "status", "source", "valid_from"
            )
        ),
        "acus": sorted(ACU.objects.filter(end_user=user).values_list("text", flat=True)),
        "summary": HotDocument.objects.get(end_user=user).summary,
    }


def test_rebuild_is_deterministic_applies_a_new_schema_and_keeps_operator_facts(
    tenant_a: Tenant,
) -> None:
    agent = agent_create(
        tenant_id=tenant_a.pk, slug="property", name="P", schema_fields=PROPERTY_ADVISOR, actor="t"
    )
    user = EndUser.objects.create(tenant=tenant_a, external_id="priya")
    hot_document_load(agent=agent, end_user=user)
    session = session_open(tenant_id=tenant_a.pk, agent_id=agent.pk, end_user_id=user.pk,
                           metadata={"participants": {"user": "Priya"}})  # fmt: skip
    lines = [
        "My budget is 50 lakhs for a flat in Pune.",
        "My pet name is Bruno.",
        "Actually my budget is 80 lakhs now.",
    ]
    turn_append(tenant_id=tenant_a.pk, session_id=session.id,
                turns=[TurnIn("user", t, occurred_at=WHEN + datetime.timedelta(days=i)) for i, t in enumerate(lines)])  # fmt: skip
    entity_upsert(agent=agent, end_user=user, key="family_size", value=4, actor="user:operator")

    out = io.StringIO()
    call_command("memory_rebuild", "--tenant", tenant_a.slug, stdout=out, stderr=io.StringIO())
    first = _state(user)
    assert "rebuilt 1 users" in out.getvalue()
    assert ("budget", "₹80 lakh", "active", "explicit") in [e[:4] for e in first["entities"]]
    assert ("family_size", "4", "active", "explicit") in [e[:4] for e in first["entities"]]
    assert not any(e[0] == "pet_name" for e in first["entities"])

    call_command(
        "memory_rebuild",
        "--tenant",
        tenant_a.slug,
        "--user",
        "priya",
        stdout=io.StringIO(),
        stderr=io.StringIO(),
    )
    assert _state(user) == first  # the rules extractor gives the same result twice

    fields = [
        *PROPERTY_ADVISOR,
        {
            "key": "pet_name",
            "description": "The pet's name",
            "category": "profile",
            "type": "string",
        },
    ]
    schema_publish(agent=agent, fields=fields, actor="op")
    call_command(
        "memory_rebuild", "--tenant", tenant_a.slug, stdout=io.StringIO(), stderr=io.StringIO()
    )
    assert Entity.objects.get(end_user=user, key="pet_name").value_text == "Bruno"
    assert len(ACU.objects.filter(end_user=user)) == len(first["acus"])


def test_rebuild_of_nothing_is_a_clear_error(tenant_a: Tenant) -> None:
    with pytest.raises(CommandError, match="Nothing to rebuild"):
        call_command("memory_rebuild", "--tenant", tenant_a.slug, stdout=io.StringIO())
    with pytest.raises(CommandError, match="No tenant"):
        call_command("memory_rebuild", "--tenant", "nope", stdout=io.StringIO())
