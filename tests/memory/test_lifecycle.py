"""Retention of raw turns, purge of expired facts, and the tier-down of idle sessions."""

from __future__ import annotations

import datetime
import uuid
from typing import Any

import pytest
from django.conf import settings
from django.utils import timezone
from django_redis import get_redis_connection

from config.celery import app as celery_app
from memory.models import ACU, EndUser, Entity, HotDocument, Session, Turn
from memory.services import (
    TurnIn,
    entity_upsert,
    hot_document_load,
    session_open,
    turn_append,
)
from memory.services.lifecycle import retention_apply, retention_sweep, sessions_tier_down
from schemas.models import Agent
from tenants.models import Tenant
from tests.conftest import Key

DAY = datetime.timedelta(days=1)
pytestmark = pytest.mark.django_db(transaction=True)


def _turns(agent: Agent, user: EndUser, ages_days: list[int]) -> str:
    now = timezone.now()
    opened = session_open(tenant_id=agent.tenant_id, agent_id=agent.pk, end_user_id=user.pk)
    turn_append(
        tenant_id=agent.tenant_id,
        session_id=opened.id,
        turns=[TurnIn("user", f"said {age} days ago", occurred_at=now - age * DAY) for age in ages_days],
    )  # fmt: skip
    return str(opened.id)


def _unit(agent: Agent, user: EndUser, age_days: int) -> None:
    ACU.objects.create(tenant_id=agent.tenant_id, agent=agent, end_user=user, text=f"unit {age_days}",
                       occurred_at=timezone.now() - age_days * DAY, content_hash=f"h{age_days}")  # fmt: skip


def test_retention_is_off_by_default_and_deletes_nothing(
    advisor: Agent, priya: EndUser, tenant_a: Tenant
) -> None:
    _turns(advisor, priya, [400, 100, 1])
    assert tenant_a.turn_retention_days is None
    assert retention_sweep() is False
    assert Turn.objects.count() == 3


def test_retention_deletes_only_turns_older_than_the_policy_and_keeps_derived_memory(
    advisor: Agent, priya: EndUser, tenant_a: Tenant, agent_b: Agent
) -> None:
    hot_document_load(agent=advisor, end_user=priya)
    _turns(advisor, priya, [95, 91, 89, 30, 0])
    entity_upsert(agent=advisor, end_user=priya, key="budget", value=5_000_000,
                  valid_from=timezone.now() - 200 * DAY, actor="t")  # fmt: skip
    entity_upsert(agent=advisor, end_user=priya, key="budget", value=6_000_000,
                  valid_from=timezone.now() - 120 * DAY, actor="t")  # fmt: skip
    _unit(advisor, priya, 200)
    tenant_a.turn_retention_days = 90
    tenant_a.save()
    other = EndUser.objects.create(tenant_id=agent_b.tenant_id, external_id="b")  # no policy
    _turns(agent_b, other, [365])

    counts, more = retention_apply(tenant=tenant_a)

    assert (counts["turns"], more) == (2, False)
    ages = sorted(Turn.objects.filter(end_user=priya).values_list("text", flat=True))
    assert ages == ["said 0 days ago", "said 30 days ago", "said 89 days ago"]
    assert Turn.objects.filter(end_user=other).count() == 1
    # Facts and memory units derived from old turns stay (the policy does not say otherwise).
    assert Entity.objects.filter(end_user=priya, key="budget").count() == 2
    assert ACU.objects.filter(end_user=priya).count() == 1
    # The hot document's recent conversation no longer shows a deleted turn.
    recent = [t["text"] for t in HotDocument.objects.get(end_user=priya).recent_turns]
    assert recent == ["said 89 days ago", "said 30 days ago", "said 0 days ago"]


def test_retention_in_batches_and_purging_derived_memory_when_the_policy_says_so(
    advisor: Agent, priya: EndUser, tenant_a: Tenant
) -> None:
    _turns(advisor, priya, [100, 100, 100, 10])
    entity_upsert(agent=advisor, end_user=priya, key="budget", value=5_000_000,
                  valid_from=timezone.now() - 200 * DAY, actor="t")  # fmt: skip
    current, _ = entity_upsert(
        agent=advisor, end_user=priya, key="budget", value=6_000_000, actor="t"
    )
    Entity.objects.exclude(pk=current.pk).update(superseded_at=timezone.now() - 100 * DAY)
    _unit(advisor, priya, 100)
    _unit(advisor, priya, 5)
    tenant_a.turn_retention_days = 30
    tenant_a.retention_purges_derived = True
    tenant_a.save()

    first, more = retention_apply(tenant=tenant_a, batch=2)
    assert (first["turns"], more) == (2, True)
    second, more = retention_apply(tenant=tenant_a, batch=2)
    assert (second["turns"], more) == (1, False)

    assert Turn.objects.count() == 1
    assert list(ACU.objects.values_list("text", flat=True)) == ["unit 5"]
    # History goes, the fact in force stays.
    assert list(Entity.objects.values_list("pk", flat=True)) == [current.pk]


def test_expired_ephemeral_facts_are_purged_once_past_the_retention_period(
    advisor: Agent, priya: EndUser, tenant_a: Tenant
) -> None:
    now = timezone.now()
    entity_upsert(
        agent=advisor,
        end_user=priya,
        key="site_visit_today",
        value="Baner",
        valid_from=now - 40 * DAY,
        actor="t",
    )  # fmt: skip  (expired 39 days ago)
    entity_upsert(
        agent=advisor,
        end_user=priya,
        key="site_visit_today:2",
        value="Wakad",
        valid_from=now - 5 * DAY,
        actor="t",
    )  # fmt: skip  (expired, but recently)
    assert retention_sweep() is False  # no retention: expired facts stay, hidden
    assert Entity.objects.count() == 2
    tenant_a.turn_retention_days = 30
    tenant_a.save()

    retention_sweep()

    assert list(Entity.objects.values_list("value_text", flat=True)) == ["Wakad"]


def _redis_keys(pattern: str) -> list[bytes]:
    return list(get_redis_connection("default").scan_iter(match=pattern))


def test_a_tiered_down_session_resumes_with_the_same_context_block(
    tenant_a: Tenant, property_agent: Agent
) -> None:
    from tenants.services import api_key_create

    key = Key(*api_key_create(tenant=tenant_a, name="agent", role="agent", actor="t"))
    client = key.client()
    opened = client.post("/v1/sessions", {"agent": "property", "user": "priya", "session": "s1"},
                         format="json").json()  # fmt: skip
    for text in ("My budget is 50 lakhs.", "We want a flat in Pune."):
        client.post(f"/v1/sessions/{opened['session_id']}/turns", {"role": "user", "text": text},
                    format="json")  # fmt: skip
    client.post("/v1/users/priya/facts", {"agent": "property", "key": "city", "value": "Pune"},
                format="json")  # fmt: skip
    before = client.post("/v1/sessions", {"agent": "property", "user": "priya", "session": "s1"},
                         format="json").json()  # fmt: skip
    assert "Pune" in before["context_block"] and "50 lakhs" in before["context_block"]
    prefix = settings.CACHES["default"]["KEY_PREFIX"]
    assert _redis_keys(f"{prefix}:*hot:*")
    Session.objects.update(last_activity_at=timezone.now() - 31 * DAY)  # idle for a month

    archived, more = sessions_tier_down(tenant=tenant_a)

    assert (archived, more) == (1, False)
    assert Session.objects.get().archived_at is not None
    assert _redis_keys(f"{prefix}:*hot:*") == []  # evicted from Redis
    assert HotDocument.objects.count() == 1  # PostgreSQL keeps the copy of record

    after = client.post("/v1/sessions", {"agent": "property", "user": "priya", "session": "s1"},
                        format="json")  # fmt: skip

    assert after.status_code == 200 and after.json()["session_id"] == opened["session_id"]
    assert after.json()["context_block"] == before["context_block"]
    assert Session.objects.get().archived_at is None  # resumed
    assert _redis_keys(f"{prefix}:*hot:*")  # cached again


def test_tier_down_spares_recent_sessions_and_the_default_is_thirty_days(
    advisor: Agent, priya: EndUser, tenant_a: Tenant
) -> None:
    assert tenant_a.session_idle_days == 30
    _turns(advisor, priya, [0])
    old = _turns(advisor, priya, [0])
    Session.objects.filter(pk=old).update(last_activity_at=timezone.now() - 29 * DAY)
    assert sessions_tier_down(tenant=tenant_a) == (0, False)
    Session.objects.filter(pk=old).update(last_activity_at=timezone.now() - 31 * DAY)
    assert sessions_tier_down(tenant=tenant_a) == (1, False)
    assert Session.objects.filter(archived_at__isnull=True).count() == 1
    # An append to an archived session brings it back.
    turn_append(
        tenant_id=tenant_a.pk, session_id=uuid.UUID(old), turns=[TurnIn("user", "back again")]
    )
    assert Session.objects.filter(archived_at__isnull=True).count() == 2


def test_the_beat_schedule_names_registered_tasks(settings: Any) -> None:
    celery_app.loader.import_default_modules()
    schedule = settings.CELERY_BEAT_SCHEDULE
    assert {entry["task"] for entry in schedule.values()} == {
        "memory.retention_sweep",
        "memory.tier_down_sweep",
        "extraction.recover_sweep",
        "webhooks.sweep",
    }
    assert all(entry["task"] in celery_app.tasks for entry in schedule.values())
    lifecycle = [e for e in schedule.values() if e["task"].startswith("memory.")]
    assert all(entry["schedule"] == settings.LIFECYCLE_SWEEP_SECONDS for entry in lifecycle)
