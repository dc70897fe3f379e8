"""Redis memory per active user, as docs/deploy.md states it (sizing): the hot document's two
keys for the latency benchmark's user shape (50 facts, 200 turns, extracted, with a summary)."""

from __future__ import annotations

import datetime

import pytest
from django.core.cache import cache
from django_redis import get_redis_connection

from extraction.services import extraction_run_execute, extraction_run_request
from memory.hot import hot_cache_key
from memory.models import EndUser
from memory.services import TurnIn, entity_upsert, hot_document_load, session_open, turn_append
from schemas.models import Agent
from tenants.models import Tenant

pytestmark = pytest.mark.django_db(transaction=True)

LINES = [
    "I think we should look at the villa near the lake, it has a garden for the kids.",
    "The commute to my office in Hinjewadi is about forty minutes by car on a good day.",
    "Can you send me the floor plans and the price per square foot for the third floor?",
    "My wife prefers east-facing flats because of the morning light in the kitchen.",
]


def test_a_user_with_50_facts_and_200_turns_holds_under_24_kb_of_redis(
    property_agent: Agent, tenant_a: Tenant, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("extraction.queue.run_send", lambda run_id: True)
    user = EndUser.objects.create(tenant=tenant_a, external_id="priya")
    hot_document_load(agent=property_agent, end_user=user)
    start = datetime.datetime(2026, 3, 1, tzinfo=datetime.UTC)
    for day in range(10):
        opened = session_open(
            tenant_id=tenant_a.pk, agent_id=property_agent.pk, end_user_id=user.pk
        )
        turn_append(tenant_id=tenant_a.pk, session_id=opened.id, turns=[
            TurnIn("user" if i % 2 == 0 else "assistant", f"{LINES[i % 4]} ({day}-{i})",
                   occurred_at=start + datetime.timedelta(days=day, minutes=i))
            for i in range(20)
        ])  # fmt: skip
    run = extraction_run_request(
        tenant_id=tenant_a.pk, agent_id=property_agent.pk, end_user_id=user.pk
    )
    assert run is not None
    extraction_run_execute(run_id=run.pk)
    for i in range(50):
        entity_upsert(agent=property_agent, end_user=user, key=f"pet:Pet{i:02d}", value="dog",
                      source="explicit", actor="t")  # fmt: skip

    redis = get_redis_connection("default")
    key = hot_cache_key(tenant_id=tenant_a.pk, agent_slug="property", user_external_id="priya")
    names = [cache.make_key(key), cache.make_key(f"{key}:tail")]
    redis.delete(*names)
    document = hot_document_load(agent=property_agent, end_user=user)  # a miss re-caches it
    held = document["profile"] + document["facts"] + document["possibilities"]
    assert len(held) >= 50
    assert document["summary"] and document["recent_turns"]  # what smart keep left hot
    sizes = [redis.memory_usage(name) for name in names]
    assert all(sizes) and sum(sizes) < 24 * 1024, sizes  # measured: 15.3 KB + 1.4 KB
