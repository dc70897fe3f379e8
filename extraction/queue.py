"""Sending extraction's Celery tasks, by name, after the transaction that asked commits.

The task module imports the services, so the services never import it: they ask here, and the
message names its task. The task object is the one Celery registered under that name (the
extraction app registers it at start, see ``ExtractionConfig.ready``), so eager mode (the tests)
runs it in place, and the message goes to the default queue, ``CELERY_QUEUE``, as before.
"""

from __future__ import annotations

import contextlib
import logging
from typing import Any

from celery import current_app
from django.conf import settings
from django.db import DatabaseError, transaction

from core.routing import user_queue
from extraction.models import ExtractionRun, RunStatus

logger = logging.getLogger(__name__)

EXTRACTION_TASK = "extraction.run"
REBUILD_TASK = "extraction.rebuild"
RECOVER_TASK = "extraction.recover"
RECOVER_SWEEP_TASK = "extraction.recover_sweep"


def _send(name: str, *args: Any, queue: str | None = None) -> None:
    # queue None: the default queue (CELERY_QUEUE); a user's queue with CELERY_USER_QUEUES.
    if queue is None:
        current_app.tasks[name].delay(*args)
    else:
        current_app.tasks[name].apply_async(args, queue=queue)


def _run_queue(run_id: int) -> str | None:
    if settings.CELERY_USER_QUEUES <= 1:
        return None  # no lookup: one queue for everything (the default)
    owner = ExtractionRun.objects.filter(pk=run_id).values_list("tenant_id", "end_user_id").first()
    return user_queue(*owner) if owner else None


def run_enqueue(run_id: int) -> None:
    """Send the run to a worker once the current transaction commits (now, outside one)."""
    transaction.on_commit(lambda: run_send(run_id))


def run_send(run_id: int) -> bool:
    """Send the run now; returns whether the broker took it.

    The turns are committed and acknowledged, so a broker that is down (kombu's
    OperationalError, a socket error) never fails the request: the run no worker will hear of
    is dropped, so the next append at the threshold schedules again (level-triggered), and a
    run left behind is re-sent when a worker starts (ADR 0021).
    """
    try:
        _send(EXTRACTION_TASK, run_id, queue=_run_queue(run_id))
    except Exception as exc:
        logger.warning("run %s not enqueued (%s: %s); dropped", run_id, type(exc).__name__, exc)
        with contextlib.suppress(DatabaseError):
            ExtractionRun.objects.filter(pk=run_id, status=RunStatus.PENDING).delete()
        return False
    return True


def rebuild_enqueue(*, tenant_id: int, agent_id: int, end_user_id: int) -> None:
    """Send a rebuild of one user's derived memory once the current transaction commits."""
    transaction.on_commit(
        lambda: _send(
            REBUILD_TASK, tenant_id, agent_id, end_user_id, queue=user_queue(tenant_id, end_user_id)
        )
    )
