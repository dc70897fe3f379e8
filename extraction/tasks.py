from __future__ import annotations

from typing import Any

from celery import shared_task
from celery.signals import worker_ready

from extraction.services import (
    EXTRACTION_TASK,
    PENDING_LOST_AFTER,
    REBUILD_TASK,
    RECOVER_SWEEP_TASK,
    RECOVER_TASK,
    extraction_rebuild_user,
    extraction_run_execute,
    extraction_run_fail,
    extraction_runs_recover,
)

MAX_RETRIES = 5


@shared_task(bind=True, name=EXTRACTION_TASK, acks_late=True, max_retries=MAX_RETRIES)
def extraction_run(self: Any, run_id: int) -> None:
    """Thin: the run id in, one service call. Retries what may pass, with backoff."""
    try:
        extraction_run_execute(run_id=run_id)
    except Exception as exc:
        if self.request.retries >= MAX_RETRIES:
            extraction_run_fail(run_id=run_id, error=f"gave up after {MAX_RETRIES} retries: {exc}")
            return
        raise self.retry(exc=exc, countdown=min(300, 5 * 2**self.request.retries)) from exc


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
