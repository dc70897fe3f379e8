"""Memory's Celery tasks: the erase step retries and then records that it gave up; bulk jobs
re-enqueue themselves through a capped chain."""

from __future__ import annotations

from typing import Any

import pytest

from config.celery import app as celery_app
from memory import tasks
from memory.models import EndUser
from memory.services.erasure import ERASURE_TASK, erasure_request
from tenants.models import Tenant


def test_an_erase_step_that_keeps_failing_is_retried_then_recorded_as_failed(
    tenant_a: Tenant, monkeypatch: pytest.MonkeyPatch
) -> None:
    EndUser.objects.create(tenant=tenant_a, external_id="stuck")
    erasure, _ = erasure_request(
        tenant_id=tenant_a.pk, external_id="stuck", actor="t", enqueue=False
    )
    attempts: list[str] = []

    def failing(*, erasure_id: str) -> bool:
        attempts.append(erasure_id)
        raise RuntimeError("Redis unreachable")

    monkeypatch.setattr(tasks, "erasure_step", failing)
    # As a worker runs it: each retry is handled by Celery, not propagated to the caller (the
    # autouse _eager_celery fixture sets propagation back on for the next test).
    celery_app.conf.task_eager_propagates = False
    try:
        tasks.erasure_step_task.apply_async(args=(str(erasure.pk),))
    finally:
        celery_app.conf.task_eager_propagates = True

    erasure.refresh_from_db()
    assert len(attempts) == 1 + tasks.MAX_RETRIES
    assert (erasure.status, erasure.error) == (
        "failed",
        f"gave up after {tasks.MAX_RETRIES} retries: Redis unreachable",
    )


@pytest.mark.parametrize("task", ["retention_sweep_task", "tier_down_sweep_task"])
def test_a_sweep_that_always_has_more_stops_at_the_chain_cap(
    monkeypatch: pytest.MonkeyPatch, task: str
) -> None:
    calls: list[int] = []

    def always_more() -> bool:
        calls.append(1)
        return True

    monkeypatch.setattr(tasks, task.removesuffix("_task"), always_more)
    monkeypatch.setattr("core.tasks.MAX_CHAIN_DEPTH", 4)
    getattr(tasks, task).delay()
    assert len(calls) == 4  # links at depth 0, 1, 2, 3; the fifth is not sent


def test_an_erase_is_sent_by_task_name_after_commit_and_runs_to_the_end(
    tenant_a: Tenant, monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any
) -> None:
    EndUser.objects.create(tenant=tenant_a, external_id="gone")
    sent: list[str] = []
    real = celery_app.signature

    def spy(name: str, *args: Any, **kwargs: Any) -> Any:
        sent.append(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(celery_app, "signature", spy)
    with django_capture_on_commit_callbacks(execute=True):
        erasure, created = erasure_request(tenant_id=tenant_a.pk, external_id="gone", actor="t")
        assert created and sent == []  # nothing is sent before the request commits
    assert sent == [ERASURE_TASK]
    erasure.refresh_from_db()
    assert erasure.status == "done" and not EndUser.objects.filter(tenant=tenant_a).exists()
