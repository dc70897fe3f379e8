"""Open runs that no worker is on are sent again; a second delivery of a run writes nothing."""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest
from django.utils import timezone

from extraction import pipeline
from extraction.models import ExtractionRun, RunStatus
from extraction.services import extraction_run_execute, extraction_runs_recover
from memory.models import ACU, EndUser, Entity
from memory.services import TurnIn, hot_document_load, session_open, turn_append
from schemas.models import Agent
from tenants.models import Tenant
from tests.test_worker_e2e import _test_database_url

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    monkeypatch.setattr("extraction.tasks.extraction_run.delay", calls.append)
    return calls


def _user(agent: Agent, external_id: str) -> EndUser:
    user = EndUser.objects.create(tenant_id=agent.tenant_id, external_id=external_id)
    hot_document_load(agent=agent, end_user=user)
    opened = session_open(tenant_id=agent.tenant_id, agent_id=agent.pk, end_user_id=user.pk)
    turn_append(
        tenant_id=agent.tenant_id,
        session_id=opened.id,
        turns=[TurnIn("user", f"My budget is {40 + i} lakhs, flat {i}.") for i in range(3)],
    )
    return user


def _open_run(agent: Agent, user: EndUser, status: str) -> ExtractionRun:
    return ExtractionRun.objects.create(
        tenant_id=agent.tenant_id, agent=agent, end_user=user, status=status,
        started_at=timezone.now() if status == RunStatus.RUNNING else None,
    )  # fmt: skip


@pytest.fixture
def other_connection() -> Iterator[psycopg.Connection]:
    """A second PostgreSQL session: a live worker elsewhere, holding a user's lock."""
    with psycopg.connect(_test_database_url(), autocommit=True) as conn:
        yield conn


def test_running_runs_without_a_worker_and_pending_runs_are_sent_again(
    tenant_a: Tenant, property_agent: Agent, sent: list[int], other_connection: psycopg.Connection
) -> None:
    orphan = _open_run(property_agent, _user(property_agent, "orphan"), RunStatus.RUNNING)
    live_user = _user(property_agent, "live")
    live = _open_run(property_agent, live_user, RunStatus.RUNNING)
    waiting = _open_run(property_agent, _user(property_agent, "waiting"), RunStatus.PENDING)
    _open_run(property_agent, _user(property_agent, "done"), RunStatus.SUCCEEDED)
    key = pipeline._lock_key(property_agent.pk, live_user.pk)
    other_connection.execute(
        "SELECT pg_advisory_lock(%s, %s)", [pipeline._LOCK_NAMESPACE, key]
    )  # the live worker's lock

    assert sorted(extraction_runs_recover()) == sorted([orphan.pk, waiting.pk])
    assert sorted(sent) == sorted([orphan.pk, waiting.pk])
    assert not pipeline.user_lock_free(property_agent.pk, live_user.pk)
    assert live.pk not in sent
    # Checking a lock does not take it.
    assert pipeline.user_lock_free(property_agent.pk, orphan.end_user_id)


def test_an_orphaned_run_sent_again_completes_once(
    tenant_a: Tenant, property_agent: Agent, sent: list[int]
) -> None:
    user = _user(property_agent, "priya")
    run = _open_run(property_agent, user, RunStatus.RUNNING)  # its worker was killed
    assert extraction_runs_recover() == [run.pk]
    done = extraction_run_execute(run_id=run.pk)
    assert done is not None and done.status == RunStatus.SUCCEEDED
    facts, units = Entity.objects.filter(end_user=user).count(), ACU.objects.count()
    assert Entity.objects.filter(end_user=user, status="active").count() == 1
    assert (facts, units) == (3, 3)  # the budget said three times: two superseded versions
    # The broker delivers the original message too, an hour later: nothing changes.
    assert extraction_run_execute(run_id=run.pk) is None
    assert (Entity.objects.filter(end_user=user).count(), ACU.objects.count()) == (facts, units)


def test_a_second_delivery_that_claimed_during_the_run_writes_nothing(
    tenant_a: Tenant, property_agent: Agent
) -> None:
    user = _user(property_agent, "priya")
    run = _open_run(property_agent, user, RunStatus.RUNNING)
    first = extraction_run_execute(run_id=run.pk)
    assert first is not None and first.status == RunStatus.SUCCEEDED
    counts = first.counts
    # The second delivery claimed the run while the first held the lock (status running);
    # it gets the lock only after the first committed.
    with pytest.raises(pipeline.Busy):
        pipeline.execute(ExtractionRun.objects.get(pk=run.pk))
    assert ExtractionRun.objects.get(pk=run.pk).counts == counts


def test_the_periodic_sweep_leaves_a_queue_that_is_merely_behind(
    tenant_a: Tenant, property_agent: Agent, sent: list[int]
) -> None:
    from datetime import timedelta

    from extraction.tasks import extraction_recover_sweep

    orphan = _open_run(property_agent, _user(property_agent, "orphan"), RunStatus.RUNNING)
    queued = _open_run(property_agent, _user(property_agent, "queued"), RunStatus.PENDING)
    lost = _open_run(property_agent, _user(property_agent, "lost"), RunStatus.PENDING)
    ExtractionRun.objects.filter(pk=lost.pk).update(created_at=timezone.now() - timedelta(hours=2))
    extraction_recover_sweep()
    assert sorted(sent) == sorted([orphan.pk, lost.pk]) and queued.pk not in sent


def test_the_sweep_is_on_the_beat_schedule() -> None:
    from django.conf import settings

    from extraction.queue import RECOVER_SWEEP_TASK

    assert any(e["task"] == RECOVER_SWEEP_TASK for e in settings.CELERY_BEAT_SCHEDULE.values())
