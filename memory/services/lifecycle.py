"""Retention and tier-down: the periodic sweeps (Celery beat, ``CELERY_BEAT_SCHEDULE``).

- Retention (per tenant, off by default): raw turns said more than ``turn_retention_days`` ago
  are deleted in batches; the facts and memory units derived from them stay unless the tenant's
  ``retention_purges_derived`` says otherwise. Expired ephemeral facts, hidden from the moment
  they expire, are deleted once they are that long past their expiry.
- Tier-down: sessions idle for more than ``session_idle_days`` are marked archived and their
  user's hot document is evicted from Redis. Resuming the session reads the document from
  PostgreSQL and re-caches it: the agent sees the same context, one slower read.
"""

from __future__ import annotations

import datetime
import logging
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from memory.hot.cache import hot_cache_evict
from memory.hot.document import hot_document_rebuild
from memory.models import ACU, Category, EndUser, Entity, HotDocument, Session, Status, Turn
from schemas.models import Agent
from tenants.models import Tenant
from tenants.services import audit_record

logger = logging.getLogger(__name__)

RETENTION_TASK = "memory.retention_sweep"
TIER_DOWN_TASK = "memory.tier_down_sweep"
ACTOR = "lifecycle"


def _batch(batch: int | None) -> int:
    return batch or int(settings.LIFECYCLE_BATCH_ROWS)


def _delete_batch(rows: Any, batch: int) -> tuple[int, bool]:
    pks = list(rows.order_by("pk").values_list("pk", flat=True)[:batch])
    if not pks:
        return 0, False
    deleted = rows.model._base_manager.filter(pk__in=pks).delete()[1].get(rows.model._meta.label, 0)
    return deleted, len(pks) == batch


def retention_apply(
    *, tenant: Tenant, now: datetime.datetime | None = None, batch: int | None = None
) -> tuple[dict[str, int], bool]:
    """One batch per kind of row of this tenant's retention; returns (counts, whether more are
    due). Each kind is deleted in its own transaction."""
    counts = {"turns": 0, "acus": 0, "fact_versions": 0, "expired_facts": 0}
    if not tenant.turn_retention_days:
        return counts, False
    size = _batch(batch)
    cutoff = (now or timezone.now()) - datetime.timedelta(days=tenant.turn_retention_days)
    more = False

    old_turns = Turn.objects.filter(tenant=tenant, occurred_at__lt=cutoff)
    rows = list(
        old_turns.order_by("id").values_list("id", "agent_id", "end_user_id", "archived_at")[:size]
    )
    if rows:
        with transaction.atomic():
            deleted = Turn.objects.filter(tenant=tenant, pk__in=[r[0] for r in rows]).delete()
            counts["turns"] = deleted[1].get(Turn._meta.label, 0)
            # An unarchived turn may be in its hot document's recent conversation: re-render.
            for agent_id, end_user_id in sorted({(r[1], r[2]) for r in rows if r[3] is None}):
                hot_document_rebuild(
                    agent=Agent.objects.get(pk=agent_id, tenant=tenant),
                    end_user=EndUser.objects.get(pk=end_user_id, tenant=tenant),
                )
        more |= len(rows) == size

    expired = Entity.objects.filter(
        tenant=tenant, category=Category.EPHEMERAL, expires_at__lt=cutoff
    )
    with transaction.atomic():
        counts["expired_facts"], due = _delete_batch(expired, size)
        more |= due
    if tenant.retention_purges_derived:
        with transaction.atomic():
            units = ACU.objects.filter(tenant=tenant, occurred_at__lt=cutoff)
            counts["acus"], due = _delete_batch(units, size)
            more |= due
        with transaction.atomic():
            # History only: the facts in force stay until forgotten or superseded.
            history = Entity.objects.filter(tenant=tenant, superseded_at__lt=cutoff).exclude(
                status=Status.ACTIVE
            )
            counts["fact_versions"], due = _delete_batch(history, size)
            more |= due
    if any(counts.values()):
        audit_record(
            tenant=tenant, actor=ACTOR, action="retention.apply", target_type="tenant",
            target_id=tenant.pk, after={"cutoff": cutoff.isoformat(), **counts},
        )  # fmt: skip
    return counts, more


def sessions_tier_down(
    *, tenant: Tenant, now: datetime.datetime | None = None, batch: int | None = None
) -> tuple[int, bool]:
    """Archive one batch of this tenant's idle sessions and evict their users' hot documents
    from Redis (unless the user has a session with that agent that is not idle). Returns (how
    many sessions were archived, whether more are due)."""
    if not tenant.session_idle_days:
        return 0, False
    size = _batch(batch)
    now = now or timezone.now()
    cutoff = now - datetime.timedelta(days=tenant.session_idle_days)
    idle = Session.objects.filter(
        tenant=tenant, archived_at__isnull=True, last_activity_at__lt=cutoff
    )
    rows = list(
        idle.order_by("last_activity_at").values_list("id", "agent_id", "end_user_id")[:size]
    )
    if not rows:
        return 0, False
    pairs = {(agent_id, end_user_id) for _, agent_id, end_user_id in rows}
    users = {end_user_id for _, end_user_id in pairs}
    busy = set(
        Session.objects.filter(tenant=tenant, end_user_id__in=users, last_activity_at__gte=cutoff)
        .values_list("agent_id", "end_user_id")
        .distinct()
    )
    keys = [
        key
        for agent_id, end_user_id, key in HotDocument.objects.filter(
            tenant=tenant, end_user_id__in=users
        ).values_list("agent_id", "end_user_id", "cache_key")
        if (agent_id, end_user_id) in pairs - busy
    ]
    with transaction.atomic():
        # The activity condition again: a session resumed meanwhile stays as it is.
        archived = idle.filter(pk__in=[r[0] for r in rows]).update(archived_at=now)
        transaction.on_commit(lambda: hot_cache_evict(keys))
    return archived, len(rows) == size


def retention_sweep(*, now: datetime.datetime | None = None) -> bool:
    """One batch of every tenant's retention; True when more are due."""
    more = False
    for tenant in Tenant.objects.filter(turn_retention_days__isnull=False).order_by("pk"):
        counts, due = retention_apply(tenant=tenant, now=now)
        if any(counts.values()):
            logger.info("retention of tenant %s: %s", tenant.slug, counts)
        more |= due
    return more


def tier_down_sweep(*, now: datetime.datetime | None = None) -> bool:
    more = False
    for tenant in Tenant.objects.filter(session_idle_days__isnull=False).order_by("pk"):
        archived, due = sessions_tier_down(tenant=tenant, now=now)
        if archived:
            logger.info("tenant %s: %d idle sessions tiered down", tenant.slug, archived)
        more |= due
    return more
