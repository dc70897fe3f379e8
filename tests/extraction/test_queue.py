"""extraction.queue sends the tasks by name, after commit, to the app's default queue; a broker
that is down drops the pending run instead of failing the request."""

from __future__ import annotations

import base64
import json
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from celery import current_app
from django.db import transaction
from django_redis import get_redis_connection
from kombu.exceptions import OperationalError as BrokerDown

from extraction import queue
from extraction.models import ExtractionRun, RunStatus
from extraction.tasks import extraction_rebuild, extraction_run
from memory.models import EndUser
from schemas.models import Agent

pytestmark = pytest.mark.django_db


@pytest.fixture
def run(property_agent: Agent) -> ExtractionRun:
    user = EndUser.objects.create(tenant_id=property_agent.tenant_id, external_id="priya")
    return ExtractionRun.objects.create(
        tenant_id=property_agent.tenant_id, agent=property_agent, end_user=user
    )


def test_every_name_is_the_task_registered_under_it() -> None:
    assert current_app.tasks[queue.EXTRACTION_TASK] == extraction_run
    assert current_app.tasks[queue.REBUILD_TASK] == extraction_rebuild
    assert {queue.RECOVER_TASK, queue.RECOVER_SWEEP_TASK} <= set(current_app.tasks)


def test_a_run_is_sent_when_the_transaction_commits_not_before(
    run: ExtractionRun,
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    sent: list[int] = []
    monkeypatch.setattr(extraction_run, "delay", sent.append)
    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        queue.run_enqueue(run.pk)
        assert sent == []
    assert sent == [run.pk]


def test_a_rebuild_is_sent_when_the_transaction_commits(
    run: ExtractionRun,
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    sent: list[tuple[int, ...]] = []
    monkeypatch.setattr(extraction_rebuild, "delay", lambda *args: sent.append(args))
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        queue.rebuild_enqueue(tenant_id=run.tenant_id, agent_id=run.agent_id, end_user_id=7)
        assert sent == []
    assert len(callbacks) == 1 and sent == [(run.tenant_id, run.agent_id, 7)]


def test_the_message_names_its_task_and_goes_to_the_default_queue_of_the_app(
    run: ExtractionRun,
) -> None:
    """As ``.delay`` did: the queue the app is configured with when it sends (CELERY_QUEUE)."""
    app = current_app
    name = f"hv-test-queue-{uuid.uuid4().hex[:8]}"
    default = app.conf.task_default_queue
    app.conf.task_always_eager = False  # (reset by conftest for the next test)
    app.conf.task_default_queue = name
    redis = get_redis_connection("default")
    try:
        assert queue.run_send(run.pk) is True
        messages = redis.lrange(name, 0, -1)
    finally:
        app.conf.task_default_queue = default
        redis.delete(name)
    assert len(messages) == 1
    message = json.loads(messages[0])
    assert message["headers"]["task"] == "extraction.run"
    args, kwargs, _ = json.loads(base64.b64decode(message["body"]))
    assert (args, kwargs) == ([run.pk], {})


def test_a_broker_that_is_down_drops_the_pending_run(
    run: ExtractionRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    def down(run_id: int) -> None:
        raise BrokerDown("Error 2 connecting to unix socket: No such file or directory.")

    monkeypatch.setattr(extraction_run, "delay", down)
    assert queue.run_send(run.pk) is False
    assert not ExtractionRun.objects.filter(pk=run.pk).exists()


def test_a_broker_that_is_down_leaves_a_running_run_alone(
    run: ExtractionRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A running run has a worker, or is left for the recovery sweep: not deleted under it."""

    def down(run_id: int) -> None:
        raise BrokerDown("Connection refused")

    ExtractionRun.objects.filter(pk=run.pk).update(status=RunStatus.RUNNING)
    monkeypatch.setattr(extraction_run, "delay", down)
    assert queue.run_send(run.pk) is False
    assert ExtractionRun.objects.get(pk=run.pk).status == RunStatus.RUNNING


def test_with_user_queues_a_run_and_a_rebuild_go_to_the_queue_of_their_user(
    run: ExtractionRun, settings: Any, django_capture_on_commit_callbacks: Callable[..., Any]
) -> None:
    """CELERY_USER_QUEUES=3: <queue>.<crc32(tenant:user) % 3>, the same for both tasks."""
    from core.routing import user_queue_index

    settings.CELERY_USER_QUEUES = 3
    app = current_app
    name = f"hv-test-queue-{uuid.uuid4().hex[:8]}"
    default = app.conf.task_default_queue
    app.conf.task_always_eager = False  # (reset by conftest for the next test)
    app.conf.task_default_queue = name
    index = user_queue_index(run.tenant_id, run.end_user_id)
    redis = get_redis_connection("default")
    try:
        assert queue.run_send(run.pk) is True
        with django_capture_on_commit_callbacks(execute=True):
            queue.rebuild_enqueue(
                tenant_id=run.tenant_id, agent_id=run.agent_id, end_user_id=run.end_user_id
            )
        lengths = {n: redis.llen(f"{name}.{n}") for n in range(3)} | {"default": redis.llen(name)}
    finally:
        app.conf.task_default_queue = default
        redis.delete(name, *(f"{name}.{n}" for n in range(3)))
    assert lengths == {n: 2 if n == index else 0 for n in range(3)} | {"default": 0}
