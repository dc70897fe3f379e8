"""The data subject's export: every tier, every fact version, streamed in bounded memory."""

from __future__ import annotations

import datetime
import json
import tracemalloc
from typing import Any

import pytest
from django.utils import timezone

from extraction.services import extraction_run_execute, extraction_run_request
from memory.models import EndUser, Entity, Turn
from memory.services import (
    TurnIn,
    entity_pin_set,
    entity_upsert,
    hot_document_load,
    session_open,
    turn_append,
)
from memory.services.export import FORMAT_VERSION, user_export_stream
from schemas.models import Agent

UTC = datetime.UTC
MARCH = datetime.datetime(2026, 3, 3, 10, 0, tzinfo=UTC)
MAY = datetime.datetime(2026, 5, 9, 10, 0, tzinfo=UTC)
SECTIONS = ["format_version", "exported_at", "tenant", "options", "end_user", "sessions",
            "turns", "entities", "acus", "hot_documents", "extraction_runs", "audit_events"]  # fmt: skip


def _export(user: EndUser, **kwargs: Any) -> dict[str, Any]:
    chunks = list(user_export_stream(end_user=user, **kwargs))
    return dict(json.loads(b"".join(chunks)))


def _talk(agent: Agent, user: EndUser, *texts: str, when: datetime.datetime = MAY) -> str:
    opened = session_open(tenant_id=agent.tenant_id, agent_id=agent.pk, end_user_id=user.pk)
    turn_append(
        tenant_id=agent.tenant_id,
        session_id=opened.id,
        turns=[TurnIn("user", text, occurred_at=when) for text in texts],
    )
    return str(opened.id)


@pytest.mark.django_db(transaction=True)
def test_export_holds_superseded_expired_and_pinned_facts_and_every_tier(
    advisor: Agent, priya: EndUser, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("extraction.queue.run_send", lambda run_id: True)
    hot_document_load(agent=advisor, end_user=priya)
    session = _talk(advisor, priya, "Hi, I'm Priya. My budget is 50 lakhs.", "I live in Pune.")
    run = extraction_run_request(tenant_id=advisor.tenant_id, agent_id=advisor.pk, end_user_id=priya.pk)  # fmt: skip
    assert run is not None and extraction_run_execute(run_id=run.pk) is not None
    entity_upsert(agent=advisor, end_user=priya, key="budget", value=8_000_000, actor="t")
    city = Entity.objects.get(end_user=priya, key="city", status="active")
    entity_pin_set(entity=city, pinned=True, actor="t")
    expired_from = timezone.now() - datetime.timedelta(days=3)  # ttl 24 h: long expired
    entity_upsert(agent=advisor, end_user=priya, key="site_visit_today", value="Baner villa",
                  valid_from=expired_from, actor="t")  # fmt: skip

    export = _export(priya)

    assert list(export) == SECTIONS
    assert export["format_version"] == FORMAT_VERSION == 1
    assert export["end_user"]["external_id"] == "priya" and export["tenant"] == "tenant-a"
    facts = {(e["key"], e["value_text"], e["status"], e["pinned"], e["expired"]) for e in export["entities"]}  # fmt: skip
    assert ("budget", "₹50 lakh", "superseded", False, False) in facts
    assert ("budget", "8,000,000", "active", False, False) in facts
    assert ("city", "Pune", "active", True, False) in facts
    assert ("site_visit_today", "Baner villa", "active", False, True) in facts
    assert [s["id"] for s in export["sessions"]] == [session]
    assert [t["text"] for t in export["turns"]] == [
        "Hi, I'm Priya. My budget is 50 lakhs.",
        "I live in Pune.",
    ]
    assert len(export["acus"]) == 3 and all("embedding" not in a for a in export["acus"])
    assert all(a["session"] == session for a in export["acus"])
    [document] = export["hot_documents"]
    assert "Pune" in document["context_block"] and document["summary"]
    assert [r["status"] for r in export["extraction_runs"]] == ["succeeded"]
    actions = [e["action"] for e in export["audit_events"]]
    assert actions.count("entity.upsert") >= 3 and "entity.pin" in actions

    with_vectors = _export(priya, embeddings=True)
    assert with_vectors["options"] == {"embeddings": True}
    assert all(len(a["embedding"]) == 384 for a in with_vectors["acus"])


def _many_turns(agent: Agent, user: EndUser, count: int) -> None:
    session = _talk(agent, user, "first")
    now = timezone.now()
    Turn.objects.bulk_create(
        [
            Turn(tenant_id=agent.tenant_id, session_id=session, agent=agent, end_user=user,
                 seq=i + 2, role="user", text=f"turn {i} " + "lorem ipsum dolor " * 12,
                 tokens=40, occurred_at=now, recorded_at=now)
            for i in range(count)
        ],
        batch_size=1000,
    )  # fmt: skip


def _peak_bytes(user: EndUser) -> tuple[int, int]:
    tracemalloc.start()
    try:
        total = 0
        for chunk in user_export_stream(end_user=user):
            total += len(chunk)
        return tracemalloc.get_traced_memory()[1], total
    finally:
        tracemalloc.stop()


@pytest.mark.django_db
def test_export_streams_in_bounded_memory(advisor: Agent, tenant_a: Any) -> None:
    few = EndUser.objects.create(tenant=tenant_a, external_id="few")
    many = EndUser.objects.create(tenant=tenant_a, external_id="many")
    _many_turns(advisor, few, 500)
    _many_turns(advisor, many, 8000)
    _peak_bytes(few)  # warm up imports and caches

    peak_few, size_few = _peak_bytes(few)
    peak_many, size_many = _peak_bytes(many)

    assert size_many > 15 * size_few  # 16x the turns, 16x the bytes out
    # ...but not 16x the memory: the turns are never all in memory at once.
    assert peak_many < 2 * peak_few + 512 * 1024, (peak_few, peak_many, size_many)
    assert peak_many < size_many / 4
