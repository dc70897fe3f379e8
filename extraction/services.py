from __future__ import annotations

import logging

from django.db import connection, transaction
from django.utils import timezone

from extraction.models import ExtractionRun, RunStatus

logger = logging.getLogger(__name__)

EXTRACTION_TASK = "extraction.run"
FAILURE_BACKOFF_SECONDS = 600  # after a run fails for good, wait 10 min before scheduling again


def extraction_schedule_if_due(
    *,
    tenant_id: int,
    agent_id: int,
    end_user_id: int,
    pending_tokens: int | None,
    threshold: int | None,
    trigger: str = "threshold",
) -> ExtractionRun | None:
    """Create a pending run for this user and enqueue it after commit, when the pending tokens
    have reached the agent's threshold and no run is already waiting or running.

    Level-triggered, not edge-triggered: if a crash loses the enqueue, the next append at or
    above the threshold schedules it again. The partial unique index on open runs makes
    concurrent calls create one run.
    """
    if pending_tokens is None or threshold is None or pending_tokens < threshold:
        return None
    with transaction.atomic(), connection.cursor() as cursor:
        # A run that failed for good holds automatic scheduling back for a while, so a broken
        # model or a bad turn cannot turn every append into a new failed run.
        cursor.execute(
            "INSERT INTO extraction_extractionrun (tenant_id, agent_id, end_user_id, status, trigger, "
            "pending_tokens, timings, counts, error, created_at) "
            "SELECT %s, %s, %s, 'pending', %s, %s, '{}', '{}', '', now() WHERE NOT EXISTS ("
            "  SELECT 1 FROM extraction_extractionrun WHERE agent_id = %s AND end_user_id = %s "
            "  AND status = 'failed' AND finished_at > now() - make_interval(secs => %s)) "
            "ON CONFLICT (agent_id, end_user_id) WHERE status IN ('pending', 'running') DO NOTHING "
            "RETURNING id",
            [tenant_id, agent_id, end_user_id, trigger, pending_tokens, agent_id, end_user_id,
             FAILURE_BACKOFF_SECONDS],
        )  # fmt: skip
        row = cursor.fetchone()
        if row is None:
            return None
        run_id = row[0]
        transaction.on_commit(lambda: _enqueue(run_id))
    return ExtractionRun.objects.get(pk=run_id)


def _enqueue(run_id: int) -> None:
    from extraction.tasks import extraction_run  # the task module imports this one

    extraction_run.delay(run_id)


def extraction_run_execute(*, run_id: int) -> ExtractionRun | None:
    """Claim a pending run and execute it.

    The pipeline (smart keep, extraction, supersession, compression) is the write-lane issue;
    until it lands a claimed run is closed as failed with that reason, so an operator sees it.
    """
    claimed = ExtractionRun.objects.filter(pk=run_id, status=RunStatus.PENDING).update(
        status=RunStatus.RUNNING, started_at=timezone.now()
    )
    if claimed != 1:
        logger.info("run %s is not pending; skipped", run_id)
        return None
    ExtractionRun.objects.filter(pk=run_id).update(
        status=RunStatus.FAILED,
        finished_at=timezone.now(),
        error="The extraction pipeline is not part of this version yet.",
    )
    return ExtractionRun.objects.get(pk=run_id)
