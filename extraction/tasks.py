"""Celery tasks of extraction: thin (ids in, one service call). Sent by name (``queue``)."""

from __future__ import annotations

from typing import Any

from celery import shared_task
from celery.signals import worker_ready
from django.db import InterfaceError, OperationalError
from redis.exceptions import RedisError

from core.tasks import RetryingTask
from extraction.extractors import RetryableError
from extraction.queue import EXTRACTION_TASK, REBUILD_TASK, RECOVER_SWEEP_TASK, RECOVER_TASK
from extraction.services import (
    PENDING_LOST_AFTER,
    extraction_rebuild_user,
    extraction_run_execute,
    extraction_run_fail,
    extraction_runs_recover,
)


class ExtractionRunTask(RetryingTask):
    """Only what may pass is retried: the model endpoint (timeouts, 429, 5xx) and the database
    or Redis going away. Anything else is deterministic — the same input fails the same way —
    so the run is recorded failed at once instead of being retried (issue 16)."""

    autoretry_for = (
        RetryableError, TimeoutError, ConnectionError, OperationalError, InterfaceError, RedisError,
    )  # fmt: skip

    def give_up(self, exc: BaseException, run_id: int) -> None:
        if self.retried(exc):
            error = f"gave up after {self.max_retries} retries: {exc}"
        else:
            error = f"failed: {type(exc).__name__}: {exc}"
        extraction_run_fail(run_id=run_id, error=error)


@shared_task(base=ExtractionRunTask, name=EXTRACTION_TASK)
def extraction_run(run_id: int) -> None:
    """The run id in, one service call; what it raises is retried with backoff (core.tasks)."""
    extraction_run_execute(run_id=run_id)


@shared_task(name=REBUILD_TASK, acks_late=True)
def extraction_rebuild(tenant_id: int, agent_id: int, end_user_id: int) -> None:
    """An operator's rebuild of one user's derived memory, off the request path."""
    extraction_rebuild_user(tenant_id=tenant_id, agent_id=agent_id, end_user_id=end_user_id)


@shared_task(name=RECOVER_TASK)
def extraction_recover() -> None:
    """Re-send the open runs no worker is on (a worker killed mid-run, a lost enqueue)."""
    extraction_runs_recover()


@shared_task(name=RECOVER_SWEEP_TASK)
def extraction_recover_sweep() -> None:
    """Periodic (beat): runs left by a worker that died and was never replaced; pending runs
    whose message was lost. A queue that is merely behind is left alone."""
    extraction_runs_recover(pending_older_than=PENDING_LOST_AFTER)


@worker_ready.connect
def _recover_on_start(**kwargs: Any) -> None:
    # A worker that starts is often one that replaces a dead one: pick up what it left. Sent
    # as a task, so it runs in a pool process with its own database connection.
    extraction_recover.delay()
