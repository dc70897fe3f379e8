from __future__ import annotations

import contextlib
import datetime
import logging
from typing import Any

from django.core.cache import cache
from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone
from redis.exceptions import RedisError

from core import metrics
from core.errors import Conflict
from extraction import pipeline, queue
from extraction.events import run_event_emit
from extraction.extractors import ExtractionFailed
from extraction.models import ExtractionRun, RunStatus
from extraction.queue import EXTRACTION_TASK as EXTRACTION_TASK  # its name, for callers
from memory.models import ACU, EndUser, Entity, HotDocument, Status, Turn
from schemas.models import Agent
from tenants.models import Tenant
from tenants.services import audit_record

logger = logging.getLogger(__name__)

# A pending run older than this is taken for lost (a broker outage ate its message), not queued.
PENDING_LOST_AFTER = datetime.timedelta(hours=1)
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
    with contextlib.suppress(RedisError):
        if cache.get(_budget_paused_key(tenant_id)):
            return None  # the tenant's extraction budget is spent for today: the turns wait
    with transaction.atomic(), connection.cursor() as cursor:
        # A run that failed for good holds automatic scheduling back for a while, so a broken
        # model or a bad turn cannot turn every append into a new failed run.
        cursor.execute(
            "INSERT INTO extraction_extractionrun (tenant_id, agent_id, end_user_id, status, trigger, "
            "pending_tokens, timings, counts, explanations, error, created_at, public_id) "
            "SELECT %s, %s, %s, 'pending', %s, %s, '{}', '{}', '[]', '', now(), gen_random_uuid() "
            "WHERE NOT EXISTS ("
            "  SELECT 1 FROM extraction_extractionrun WHERE agent_id = %s AND end_user_id = %s "
            "  AND status = 'failed' AND finished_at > now() - make_interval(secs => %s)) "
            "ON CONFLICT (tenant_id, agent_id, end_user_id) WHERE status IN ('pending', 'running') DO NOTHING "
            "RETURNING id",
            [tenant_id, agent_id, end_user_id, trigger, pending_tokens, agent_id, end_user_id,
             FAILURE_BACKOFF_SECONDS],
        )  # fmt: skip
        row = cursor.fetchone()
        if row is None:
            return None
        run_id = row[0]
        queue.run_enqueue(run_id)
    return ExtractionRun.objects.filter(pk=run_id).first()  # None: dropped, not enqueued


def extraction_runs_recover(*, pending_older_than: datetime.timedelta | None = None) -> list[int]:
    """Send the open runs no worker is on to the queue again; returns their ids.

    ``pending_older_than``: re-send only pending runs created longer ago than this (the
    periodic sweep, so that a queue that is merely behind is not flooded with copies); None
    (a worker starting): every pending run.

    A worker killed outright (SIGKILL, out of memory, a lost host) leaves its run ``running``
    and its message unacknowledged in the broker until the visibility timeout (an hour); an
    enqueue lost to a broker outage leaves a run ``pending``. A running run whose user lock is
    free has no worker. Sending a run twice is harmless: the claim, the user lock and the
    re-check under it let exactly one execution write (ADR 0009, ADR 0021).
    """
    orphans = []
    for run_id, status_, agent_id, end_user_id, created_at in ExtractionRun.objects.filter(
        status__in=[RunStatus.PENDING, RunStatus.RUNNING]
    ).values_list("pk", "status", "agent_id", "end_user_id", "created_at"):
        if status_ == RunStatus.RUNNING and not pipeline.user_lock_free(agent_id, end_user_id):
            continue  # a live worker holds it
        if (
            status_ == RunStatus.PENDING
            and pending_older_than is not None
            and (created_at > timezone.now() - pending_older_than)
        ):
            continue  # probably still in the queue
        orphans.append(run_id)
    for run_id in orphans:
        queue.run_send(run_id)
    if orphans:
        logger.info("re-sent %d open runs no worker was on: %s", len(orphans), orphans)
    return orphans


def extraction_run_request(
    *, agent_id: int, end_user_id: int, tenant_id: int, trigger: str = "operator"
) -> ExtractionRun | None:
    """Schedule a run now, whatever the pending count (an operator, or a rebuild)."""
    return extraction_schedule_if_due(
        tenant_id=tenant_id, agent_id=agent_id, end_user_id=end_user_id, pending_tokens=1,
        threshold=0, trigger=trigger,
    )  # fmt: skip


# --- The tenant's daily extraction budget (model tokens) ------------------------------------


def _budget_paused_key(tenant_id: int) -> str:
    return f"extraction-paused:{tenant_id}:{timezone.now():%Y%m%d}"


def extraction_tokens_today(*, tenant_id: int) -> int:
    """Model tokens (in + out) the tenant's runs have spent since midnight UTC."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT COALESCE(SUM(COALESCE((counts->>'tokens_in')::bigint, 0) "
            "+ COALESCE((counts->>'tokens_out')::bigint, 0)), 0) FROM extraction_extractionrun "
            "WHERE tenant_id = %s AND finished_at >= date_trunc('day', now() AT TIME ZONE 'UTC') "
            "AT TIME ZONE 'UTC'",
            [tenant_id],
        )
        row = cursor.fetchone()
    return int(row[0]) if row else 0


def extraction_budget_spent(*, tenant_id: int) -> bool:
    """True when the tenant has a daily cap and has reached it (checked before each run)."""
    cap = (
        Tenant.objects.filter(pk=tenant_id)
        .values_list("extraction_tokens_per_day", flat=True)
        .first()
    )
    return cap is not None and extraction_tokens_today(tenant_id=tenant_id) >= cap


def _until_midnight() -> int:
    now = timezone.now()
    midnight = (now + datetime.timedelta(days=1)).replace(hour=0, minute=0, second=0, microsecond=0)
    return max(1, int((midnight - now).total_seconds()))


def _pause(run_id: int, tenant_id: int) -> ExtractionRun:
    ExtractionRun.objects.filter(pk=run_id).update(
        status=RunStatus.PAUSED, finished_at=timezone.now(),
        error="paused: the tenant's daily extraction token budget is spent; extraction resumes "
        "after midnight UTC (the turns are kept and extracted then)",
    )  # fmt: skip
    # Remembered in Redis until midnight, so appends stop scheduling runs that would pause too.
    with contextlib.suppress(RedisError):
        cache.set(_budget_paused_key(tenant_id), 1, _until_midnight())
    logger.info("run %s paused: tenant %s spent its extraction budget", run_id, tenant_id)
    return ExtractionRun.objects.get(pk=run_id)


def extraction_run_execute(*, run_id: int) -> ExtractionRun | None:
    """Claim a run and execute the pipeline.

    Returns None when there is nothing to do: the run is no longer pending or running (an erase
    deletes its user's runs), another worker holds this user's lock (it will finish the work),
    or the user was erased while it computed (it writes nothing). A failure that retrying
    cannot fix is recorded on the run; any other exception puts the run back to pending and is
    raised, so the Celery task retries it with backoff.
    """
    claimed = ExtractionRun.objects.filter(
        pk=run_id, status__in=[RunStatus.PENDING, RunStatus.RUNNING]
    ).update(status=RunStatus.RUNNING, started_at=timezone.now())
    if claimed != 1:
        logger.info("run %s is not pending or running; skipped", run_id)
        return None
    run = ExtractionRun.objects.get(pk=run_id)
    if extraction_budget_spent(tenant_id=run.tenant_id):
        return _pause(run_id, run.tenant_id)
    try:
        finished = pipeline.execute(run)
    except pipeline.Busy:
        logger.info("run %s: another run holds the user's lock; it finishes the work", run_id)
        return None
    except pipeline.UserErased:
        logger.info("run %s: the user was erased; nothing written", run_id)
        ExtractionRun.objects.filter(pk=run_id).update(
            status=RunStatus.CANCELLED, finished_at=timezone.now(), error="the user was erased"
        )
        return None
    except ExtractionFailed as exc:
        usage = exc.usage
        return extraction_run_fail(
            run_id=run_id, error=str(exc), counts=usage.counts() if usage else None,
            explanations=[{"outcome": "not written", **n} for n in usage.notes] if usage else None,
        )  # fmt: skip
    except Exception as exc:
        ExtractionRun.objects.filter(pk=run_id, status=RunStatus.RUNNING).update(
            status=RunStatus.PENDING, error=f"{type(exc).__name__}: {exc}"[:2000]
        )
        metrics.extraction_run_observed("retrying")  # back to pending; the task retries it
        raise
    metrics.extraction_run_observed(finished.status, finished.timings, finished.counts)
    return finished


def extraction_run_fail(
    *,
    run_id: int,
    error: str,
    counts: dict[str, int] | None = None,
    explanations: list[dict[str, Any]] | None = None,
) -> ExtractionRun:
    """Record a run failed for good; ``counts``: what it spent before failing (model calls and
    tokens count against the tenant's daily budget like a finished run's); ``explanations``:
    what the extractor noted until then (the malformed answer, its repair), for the inspector."""
    changes: dict[str, object] = {"counts": counts} if counts is not None else {}
    if explanations is not None:
        changes["explanations"] = explanations
    with transaction.atomic():  # the run.failed webhook event commits with the failure
        ExtractionRun.objects.filter(pk=run_id).update(
            status=RunStatus.FAILED, finished_at=timezone.now(), error=error[:2000], **changes
        )
        failed = ExtractionRun.objects.get(pk=run_id)
        run_event_emit(failed)
    metrics.extraction_run_observed(RunStatus.FAILED, counts=counts)
    return failed


LANE_ACTOR_PREFIX = "extraction_run:"


def extraction_rebuild_user(
    *, agent_id: int, end_user_id: int, tenant_id: int
) -> list[ExtractionRun]:
    """Rebuild one user's derived memory from the turn log with the active schema.

    Facts the write lane made, all memory units, the summary and the watermark are reset and the
    whole log is extracted again (in as many runs as its length needs). Facts written by people
    or clients (API, operators) are kept; one the lane had superseded becomes active again
    unless the rebuild supersedes it anew. Deterministic with the rules extractor.
    """
    agent = Agent.objects.get(pk=agent_id, tenant_id=tenant_id)
    end_user = EndUser.objects.get(pk=end_user_id, tenant_id=tenant_id)
    with pipeline.user_lock(agent.pk, end_user.pk), transaction.atomic():
        ExtractionRun.objects.filter(
            agent=agent, end_user=end_user, status__in=[RunStatus.PENDING, RunStatus.RUNNING]
        ).update(
            status=RunStatus.CANCELLED, finished_at=timezone.now(), error="cancelled by a rebuild"
        )
        mine = Entity.objects.filter(tenant_id=tenant_id, agent=agent, end_user=end_user)
        mine.filter(created_by__startswith=LANE_ACTOR_PREFIX).delete()
        orphans = mine.filter(status=Status.SUPERSEDED, superseded_by__isnull=True).order_by(
            "key", "-valid_from"
        )
        revived: set[str] = set(mine.filter(status=Status.ACTIVE).values_list("key", flat=True))
        for entity in orphans:
            if entity.key not in revived:
                Entity.objects.filter(pk=entity.pk).update(
                    status=Status.ACTIVE, valid_until=None, superseded_at=None
                )
                revived.add(entity.key)
        ACU.objects.filter(tenant_id=tenant_id, agent=agent, end_user=end_user).delete()
        Turn.objects.filter(tenant_id=tenant_id, agent=agent, end_user=end_user).update(
            archived_at=None
        )
        # The summary is in the stable part: a new version, so a cached copy is not trusted.
        HotDocument.objects.filter(agent=agent, end_user=end_user).update(
            summary="",
            watermark_turn_id=0,
            version=F("version") + 1,
            stable_version=F("version") + 1,
        )
    runs: list[ExtractionRun] = []
    while True:
        run = ExtractionRun.objects.create(
            tenant_id=tenant_id, agent=agent, end_user=end_user, trigger="rebuild"
        )
        done = extraction_run_execute(run_id=run.pk)
        if done is None:
            break
        runs.append(done)
        if done.status != RunStatus.SUCCEEDED or not done.counts.get("turns"):
            break
        if done.counts["turns"] < pipeline.MAX_WINDOW_TURNS:
            break
    return runs


def extraction_operator_request(
    *, agent: Agent, end_user: EndUser, rebuild: bool, actor: str
) -> ExtractionRun | None:
    """An operator asks for extraction now: a run over the pending turns, or (``rebuild``) a
    rebuild of the user's derived memory from the whole turn log, in the background. Audited.

    Returns the run scheduled, or None when one is already open, and then records nothing
    (a rebuild cancels an open run and returns None, as its runs are created as it goes).
    """
    with transaction.atomic():
        run = None
        if rebuild:
            queue.rebuild_enqueue(
                tenant_id=agent.tenant_id, agent_id=agent.pk, end_user_id=end_user.pk
            )
        else:
            run = extraction_run_request(
                tenant_id=agent.tenant_id,
                agent_id=agent.pk,
                end_user_id=end_user.pk,
                trigger="operator",
            )
            if run is None:
                return None
        audit_record(
            tenant=agent.tenant_id, actor=actor,
            action="extraction.rebuild" if rebuild else "extraction.request",
            target_type="end_user", target_id=end_user.pk, after={"agent": agent.slug},
        )  # fmt: skip
        return run


def extraction_run_start(*, agent: Agent, end_user: EndUser, actor: str) -> ExtractionRun:
    """An operator's run now over the API: ``extraction_operator_request``, where a run that is
    already open (or one that failed in the last 10 minutes) is a Conflict, not a None."""
    run = extraction_operator_request(agent=agent, end_user=end_user, rebuild=False, actor=actor)
    if run is None:
        raise Conflict("A run for this user is already pending or running.", code="run_open")
    return run
