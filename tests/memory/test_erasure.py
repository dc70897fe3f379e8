"""Erasing an end user: the verification scan over every model and the whole Redis keyspace,
the tombstone, a new user with the same id, and erases racing extraction runs."""

from __future__ import annotations

import datetime
import hashlib
import json
import re
import threading
import time
import uuid
from typing import Any

import pytest
from django.apps import apps
from django.contrib.admin.models import CHANGE, LogEntry
from django.db import connection, models
from django_redis import get_redis_connection

from extraction import pipeline
from extraction.models import ExtractionRun, RunStatus
from extraction.services import extraction_run_execute, extraction_run_request
from memory.hot.cache import user_key_digest
from memory.models import ACU, EndUser, Entity, Erasure, HotDocument, Session, Turn
from memory.selectors import hot_document_cached
from memory.services import (
    TurnIn,
    end_user_get_or_create,
    entity_forget,
    entity_pin_set,
    entity_upsert,
    hot_document_load,
    session_open,
    turn_append,
)
from memory.services.erasure import erasure_request, erasure_run_to_end, subject_hash
from schemas.models import Agent
from tenants.models import AuditEvent, Tenant
from tests.factories import UserFactory

UTC = datetime.UTC
MAY = datetime.datetime(2026, 5, 9, 10, 0, tzinfo=UTC)
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _no_enqueue(monkeypatch: pytest.MonkeyPatch) -> None:
    """Extraction runs here run when the test says; erase jobs still run (eagerly) on commit."""
    monkeypatch.setattr("extraction.queue.run_send", lambda run_id: True)


class Subject:
    def __init__(self, user: EndUser, canary: str, sessions: list[str]) -> None:
        self.user = user
        self.canary = canary
        self.sessions = sessions
        self.by_external_id = True  # off once a new user has taken the external id

    def needles(self) -> list[str]:
        if not self.by_external_id:
            return [self.canary, *self.sessions]
        digest = user_key_digest(self.user.external_id)  # the hot-cache key names hold it
        return [self.canary, self.user.external_id, digest, *self.sessions]


def _converse(agent: Agent, user: EndUser, canary: str, when: datetime.datetime) -> str:
    opened = session_open(
        tenant_id=agent.tenant_id, agent_id=agent.pk, end_user_id=user.pk,
        metadata={"participants": {"user": "Priya", "assistant": "Asha"}, "note": canary},
    )  # fmt: skip
    turn_append(
        tenant_id=agent.tenant_id,
        session_id=opened.id,
        turns=[
            TurnIn("user", f"My budget is 50 lakhs. My code word is {canary}.", occurred_at=when),
            TurnIn("assistant", "Noted, what city?", occurred_at=when),
            TurnIn("user", f"Pune please, near {canary} park.", occurred_at=when),
        ],
    )
    return str(opened.id)


def _rich_user(agent: Agent, external_id: str) -> Subject:
    """A user with something in every table: turns, facts (superseded, pinned, forgotten),
    memory units, a summary, a cached hot document, a run, audit events."""
    canary = f"zqx{uuid.uuid4().hex[:12]}"
    user = end_user_get_or_create(tenant_id=agent.tenant_id, external_id=external_id)
    hot_document_load(agent=agent, end_user=user)
    sessions = [_converse(agent, user, canary, MAY)]
    run = extraction_run_request(tenant_id=agent.tenant_id, agent_id=agent.pk, end_user_id=user.pk)
    assert run is not None
    done = extraction_run_execute(run_id=run.pk)
    assert done is not None and done.status == RunStatus.SUCCEEDED
    entity_upsert(agent=agent, end_user=user, key="budget", value=8_000_000, actor="t")
    city, _ = entity_upsert(agent=agent, end_user=user, key="city", value=f"{canary}pur", actor="t")
    entity_pin_set(entity=city, pinned=True, actor="t")
    pet, _ = entity_upsert(agent=agent, end_user=user, key="pet", value="a cat", actor="t")
    entity_forget(entity=pet, actor="t")
    sessions.append(_converse(agent, user, canary, MAY + datetime.timedelta(days=1)))
    hot_document_load(agent=agent, end_user=user)  # cached in Redis
    return Subject(user, canary, sessions)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, default=str)


def scan_database(subject: Subject) -> list[str]:
    """Every place in every model of the app registry that still names the subject: their
    primary key, a foreign key to them, an ``end_user_id`` in JSON, or any of their strings."""
    found: list[str] = []
    needles = subject.needles()
    pk = subject.user.pk
    pattern = re.compile(rf'"end_user_id":\s*{pk}\b')
    for model in apps.get_models():
        for row in model._base_manager.all().iterator():
            for field in model._meta.concrete_fields:
                value = getattr(row, field.attname)
                if value is None:
                    continue
                place = f"{model._meta.label}.{field.name}"
                if isinstance(field, models.ForeignKey) and field.related_model is EndUser:
                    if value == pk:
                        found.append(place)
                    continue
                if model is EndUser and field.primary_key and value == pk:
                    found.append(place)
                    continue
                text = _text(value)
                found += [f"{place} ∋ {n}" for n in needles if n in text]
                if isinstance(value, dict | list) and pattern.search(text):
                    found.append(f"{place} ∋ end_user_id")
    return found


def scan_redis(subject: Subject) -> list[str]:
    """The whole keyspace, whatever its prefix: key names and values of every type."""
    redis = get_redis_connection("default")
    found: list[str] = []
    needles = subject.needles()
    for key in redis.scan_iter(match="*", count=1000):
        kind = redis.type(key).decode()
        values: Any = []
        if kind == "string":
            values = [redis.get(key)]
        elif kind == "hash":
            values = list(redis.hgetall(key).items())
        elif kind == "list":
            values = redis.lrange(key, 0, -1)
        elif kind == "set":
            values = list(redis.smembers(key))
        elif kind == "zset":
            values = redis.zrange(key, 0, -1)
        blob = key.decode(errors="replace") + repr(values)
        found += [f"{key!r} ∋ {n}" for n in needles if n in blob]
    return found


def _erase(subject: Subject, **kwargs: Any) -> Erasure:
    erasure, created = erasure_request(
        tenant_id=subject.user.tenant_id, external_id=subject.user.external_id, actor="user:op",
        **kwargs,
    )  # fmt: skip
    assert created
    erasure.refresh_from_db()
    return erasure


def test_after_an_erase_no_model_and_no_redis_key_holds_anything_of_the_user(
    property_agent: Agent,
) -> None:
    subject = _rich_user(property_agent, "canary-user@example.com")
    bystander = _rich_user(property_agent, "bystander")
    # What the admin's change log holds after an operator acted on the user and a fact.
    operator: Any = UserFactory(username="op")
    rows: list[models.Model] = [subject.user, Entity.objects.filter(end_user=subject.user)[0]]
    for row in rows:
        LogEntry.objects.log_actions(
            user_id=operator.pk, queryset=[row], action_flag=CHANGE, change_message="erase"
        )
    # The scanners see the subject before the erase, everywhere it was written.
    before = scan_database(subject)
    for place in ("memory.Turn.text", "memory.Session.metadata", "memory.HotDocument.recent_turns",
                  "memory.ACU.text", "memory.Entity.value", "tenants.AuditEvent.after",
                  "extraction.ExtractionRun.end_user", "memory.EndUser.external_id",
                  "admin.LogEntry.object_repr"):  # fmt: skip
        assert any(p.startswith(place) for p in before), (place, before)
    assert scan_redis(subject), "the hot document is cached before the erase"
    kept = {
        "turns": Turn.objects.filter(end_user=bystander.user).count(),
        "entities": Entity.objects.filter(end_user=bystander.user).count(),
        "acus": ACU.objects.filter(end_user=bystander.user).count(),
    }

    erasure = _erase(subject)  # the job runs eagerly on commit

    assert erasure.status == "done"
    assert scan_database(subject) == []
    assert scan_redis(subject) == []
    # The tombstone: a keyed hash, counts per table, the actor, times; nothing personal.
    assert erasure.subject_hash == subject_hash(
        tenant_id=subject.user.tenant_id, external_id=subject.user.external_id
    )
    assert erasure.end_user_id is None and erasure.actor == "user:op"
    assert erasure.counts["memory.Turn"] == 6 and erasure.counts["memory.Session"] == 2
    assert erasure.counts["memory.EndUser"] == 1 and erasure.counts["memory.HotDocument"] == 1
    assert erasure.counts["extraction.ExtractionRun"] == 1
    assert erasure.counts["tenants.AuditEvent"] >= 4 and erasure.counts["admin.LogEntry"] == 2
    assert erasure.finished_at is not None and erasure.started_at is not None
    event = AuditEvent.objects.get(action="end_user.erase")
    assert event.target_id == str(erasure.pk) and event.after == {
        "counts": erasure.counts,
        "requested_at": erasure.requested_at.isoformat(),
    }
    # The bystander in the same tenant keeps everything.
    assert kept == {
        "turns": Turn.objects.filter(end_user=bystander.user).count(),
        "entities": Entity.objects.filter(end_user=bystander.user).count(),
        "acus": ACU.objects.filter(end_user=bystander.user).count(),
    }
    assert scan_database(bystander) != []


def test_a_new_user_with_the_same_external_id_starts_empty_even_before_the_job_ran(
    property_agent: Agent,
) -> None:
    subject = _rich_user(property_agent, "priya")
    erasure = _erase(subject, enqueue=False)
    assert erasure.status == "pending"
    # At once: no read finds the old user or their cached document by the external id.
    assert (
        hot_document_cached(
            tenant_id=property_agent.tenant_id, agent_slug="property", user_external_id="priya"
        )
        is None
    )
    fresh = end_user_get_or_create(tenant_id=property_agent.tenant_id, external_id="priya")
    assert fresh.pk != subject.user.pk
    document = hot_document_load(agent=property_agent, end_user=fresh)
    assert (document["facts"], document["pinned"], document["recent_turns"]) == ([], [], [])
    assert document["summary"] == "" and subject.canary not in document["stable_block"]
    _converse(property_agent, fresh, "fresh-start", MAY)

    done = erasure_run_to_end(erasure_id=erasure.pk)

    subject.by_external_id = False  # "priya" is the new user now
    assert done.status == "done" and scan_database(subject) == [] and scan_redis(subject) == []
    assert Turn.objects.filter(end_user=fresh).count() == 3  # the new user is untouched
    assert EndUser.objects.get(tenant_id=property_agent.tenant_id, external_id="priya") == fresh


def test_erasing_twice_returns_the_same_job(property_agent: Agent) -> None:
    subject = _rich_user(property_agent, "twice")
    first = _erase(subject)
    again, created = erasure_request(
        tenant_id=property_agent.tenant_id, external_id="twice", actor="t"
    )
    assert (again.pk, created, again.status) == (first.pk, False, "done")


def test_the_job_deletes_in_bounded_batches(property_agent: Agent, settings: Any) -> None:
    settings.LIFECYCLE_BATCH_ROWS = 2
    subject = _rich_user(property_agent, "batched")
    from memory.services import erasure as module

    steps: list[int] = []
    real = module.erasure_step

    def counting(**kwargs: Any) -> bool:
        before = sum(m._base_manager.count() for m in apps.get_models() if m is not Erasure)
        more = real(**kwargs)
        after = sum(m._base_manager.count() for m in apps.get_models() if m is not Erasure)
        steps.append(before - after)
        return more

    erasure = _erase(subject, enqueue=False)
    while counting(erasure_id=erasure.pk):
        pass
    assert max(steps[:-1]) <= 2  # every step but the last deletes at most one batch
    assert len(steps) >= 10
    assert scan_database(subject) == []


@pytest.mark.parametrize("moment", ["while the run computes", "while the run commits"])
def test_an_erase_racing_an_extraction_run_leaves_nothing_behind(
    property_agent: Agent, monkeypatch: pytest.MonkeyPatch, moment: str
) -> None:
    subject = _rich_user(property_agent, "racer")
    _converse(property_agent, subject.user, subject.canary, MAY + datetime.timedelta(days=2))
    run = extraction_run_request(
        tenant_id=property_agent.tenant_id, agent_id=property_agent.pk, end_user_id=subject.user.pk
    )
    assert run is not None
    erased: list[Erasure] = []
    threads: list[threading.Thread] = []

    if moment == "while the run computes":
        real_stages = pipeline.run_stages

        def erase_midway(*args: Any, **kwargs: Any) -> Any:
            result = real_stages(*args, **kwargs)
            erased.append(_erase(subject))  # commits, and the job runs to the end, here
            return result

        monkeypatch.setattr(pipeline, "run_stages", erase_midway)
    else:

        def erase_from_another_connection() -> None:
            try:
                erased.append(_erase(subject))
            finally:
                connection.close()

        last_write = pipeline.hot_document_rebuild

        def before_commit(**kwargs: Any) -> Any:
            written = last_write(**kwargs)
            # The run holds its share lock on the user: the erase must wait for our commit.
            thread = threading.Thread(target=erase_from_another_connection)
            thread.start()
            time.sleep(0.5)
            assert thread.is_alive(), "the erase did not wait for the run's transaction"
            threads.append(thread)
            return written

        monkeypatch.setattr(pipeline, "hot_document_rebuild", before_commit)

    outcome = extraction_run_execute(run_id=run.pk)
    for thread in threads:
        thread.join(30)

    if moment == "while the run computes":
        assert outcome is None  # it found the user gone and wrote nothing
    else:
        assert outcome is not None and outcome.status == RunStatus.SUCCEEDED
    assert len(erased) == 1
    erased[0].refresh_from_db()
    assert erased[0].status == "done"
    assert scan_database(subject) == []
    assert scan_redis(subject) == []


def test_a_pending_run_that_wakes_after_the_erase_writes_nothing(property_agent: Agent) -> None:
    subject = _rich_user(property_agent, "sleeper")
    _converse(property_agent, subject.user, subject.canary, MAY + datetime.timedelta(days=2))
    run = extraction_run_request(
        tenant_id=property_agent.tenant_id, agent_id=property_agent.pk, end_user_id=subject.user.pk
    )
    assert run is not None
    _erase(subject)
    assert not ExtractionRun.objects.filter(pk=run.pk).exists()
    assert extraction_run_execute(run_id=run.pk) is None
    assert scan_database(subject) == [] and scan_redis(subject) == []
    assert not Session.objects.exists() and not HotDocument.objects.exists()


def test_the_tombstone_hash_is_keyed_with_the_secret_key(settings: Any, tenant_a: Tenant) -> None:
    plain = hashlib.sha256(f"{tenant_a.pk}:priya".encode()).hexdigest()
    first = subject_hash(tenant_id=tenant_a.pk, external_id="priya")
    settings.SECRET_KEY = "another-secret-key-of-at-least-32-characters"
    second = subject_hash(tenant_id=tenant_a.pk, external_id="priya")
    assert len(first) == 64 and first != second and plain not in (first, second)
