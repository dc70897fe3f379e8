"""Erasing an end user: every row about them in every table, their Redis keys, their runs.

The request (``erasure_request``) is quick and synchronous: it detaches the user from their
external id (so a new user with that id starts empty at once), evicts their hot documents from
Redis, records the job, and enqueues it. The job (``erasure_step``, one bounded batch per call,
re-enqueued until done) deletes from every model that has a foreign key to ``EndUser`` —
discovered from the app registry, so a table added later is erased too — then the audit events
about the user, then the user, and leaves the ``Erasure`` row as a tombstone without personal
content (ADR 0015, docs/gdpr.md).
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import uuid
from typing import Any

from celery import current_app
from django.apps import apps
from django.conf import settings
from django.db import models, transaction
from django.db.models import Q
from django.utils import timezone

from core.errors import NotFound
from memory.hot.cache import hot_cache_evict
from memory.models import EndUser, Erasure, ErasureStatus, HotDocument
from tenants.models import AuditEvent
from tenants.services import audit_record
from webhooks.models import WebhookEvent
from webhooks.services import webhook_emit

logger = logging.getLogger(__name__)

ERASURE_TASK = "memory.erasure_step"
DETACHED_SUFFIX = "~erasing"  # appended to a detached user's hot-cache key (see below)
OPEN = (ErasureStatus.PENDING, ErasureStatus.RUNNING)


def subject_hash(*, tenant_id: int, external_id: str) -> str:
    """The tombstone's keyed hash: proves "this person was erased" to whoever holds the
    SECRET_KEY and the external id, and names no one to anybody else."""
    message = f"{tenant_id}:{external_id}".encode()
    return hmac.new(settings.SECRET_KEY.encode(), message, hashlib.sha256).hexdigest()


def _user_tables() -> list[tuple[type[models.Model], str]]:
    """Every (model, field) holding rows about an end user, from the app registry; rows of
    models that others among them reference (sessions) come last. The hot document and the
    tombstone are handled apart."""
    found: list[tuple[type[models.Model], str]] = []
    for model in apps.get_models():
        if model in (EndUser, Erasure, HotDocument):
            continue
        for field in model._meta.concrete_fields:
            if isinstance(field, models.ForeignKey) and field.related_model is EndUser:
                found.append((model, field.name))
                break
    models_found = {model for model, _ in found}

    def referenced(model: type[models.Model]) -> bool:
        return any(
            isinstance(f, models.ForeignKey) and f.related_model is model
            for other in models_found - {model}
            for f in other._meta.concrete_fields
        )

    return sorted(found, key=lambda pair: (referenced(pair[0]), pair[0]._meta.label))


def audit_events_about(*, tenant_id: int, end_user_id: int) -> Any:
    """Audit events about one end user: every event that names them (facts, forgets, …)."""
    return AuditEvent.objects.filter(tenant_id=tenant_id).filter(
        Q(after__end_user_id=end_user_id)
        | Q(before__end_user_id=end_user_id)
        | Q(target_type="end_user", target_id=str(end_user_id))
    )


def _hot_keys(end_user_id: int) -> list[str]:
    keys: list[str] = []
    for key in HotDocument.objects.filter(end_user_id=end_user_id).values_list(
        "cache_key", flat=True
    ):
        original = key.removesuffix(DETACHED_SUFFIX)
        keys += [original, original + DETACHED_SUFFIX]
    return keys


def _forget_in_process(end_user_id: int) -> None:
    from memory.search import search_cache_forget_user

    search_cache_forget_user(end_user_id=end_user_id)


def erasure_request(
    *, tenant_id: int, external_id: str, actor: str, enqueue: bool = True
) -> tuple[Erasure, bool]:
    """Start erasing the end user known by ``external_id``; returns (the job, whether it is new).

    Asking again for a user already erased or being erased returns that job. The user is
    detached at once: the external id is free for a new, empty user, and no read finds the old
    one by it. Raises NotFound for a user the tenant never had. ``enqueue=False`` leaves the
    job to the caller (``erasure_run_to_end``).
    """
    digest = subject_hash(tenant_id=tenant_id, external_id=external_id)
    with transaction.atomic():
        # Waits for an extraction run's write transaction on this user (it share-locks the row)
        # and makes a run that wakes up later find the user gone (pipeline.UserErased).
        user = (
            EndUser.objects.select_for_update()
            .filter(tenant_id=tenant_id, external_id=external_id)
            .first()
        )
        if user is None:
            earlier = (
                Erasure.objects.filter(tenant_id=tenant_id, subject_hash=digest)
                .order_by("-requested_at")
                .first()
            )
            if earlier is not None:
                return earlier, False
            raise NotFound(f"No user {external_id!r}.", code="user_not_found")
        erasure = Erasure.objects.create(
            id=uuid.uuid4(), tenant_id=tenant_id, subject_hash=digest, end_user=user, actor=actor
        )
        EndUser.objects.filter(pk=user.pk).update(external_id=f"erasing:{erasure.pk}")
        # The hot-cache key is derived from the external id: a new user with that id would get
        # the same key. The doomed user's documents move to a key of their own.
        keys = _hot_keys(user.pk)
        for document in HotDocument.objects.filter(end_user=user):
            HotDocument.objects.filter(pk=document.pk).update(
                cache_key=document.cache_key + DETACHED_SUFFIX
            )
        audit_record(
            tenant=tenant_id, actor=actor, action="end_user.erase_request",
            target_type="erasure", target_id=erasure.pk, after={},
        )  # fmt: skip
        transaction.on_commit(lambda: hot_cache_evict(keys))
        if enqueue:
            transaction.on_commit(lambda: erasure_enqueue(erasure_id=erasure.pk))
    return erasure, True


def erasure_enqueue(*, erasure_id: uuid.UUID | str) -> None:
    """Send the job's first step, by task name (services never import their tasks). The task
    is registered in every process (``MemoryConfig.ready``), so it runs eagerly when Celery is
    set to; callers send it on commit."""
    current_app.signature(ERASURE_TASK, args=[str(erasure_id)]).apply_async()


def _batch_rows() -> int:
    return int(settings.LIFECYCLE_BATCH_ROWS)


def erasure_step(*, erasure_id: uuid.UUID | str) -> bool:
    """One bounded step of an erase; True when more remain (the caller re-enqueues).

    Each step deletes at most ``LIFECYCLE_BATCH_ROWS`` rows of one table in its own
    transaction, so an erase of a very large user never holds long locks or much memory. The
    last step deletes what is left (rows written while the job ran included) and the user,
    under a lock on the user's row, then records the tombstone.
    """
    claimed = Erasure.objects.filter(pk=erasure_id, status__in=OPEN).update(
        status=ErasureStatus.RUNNING
    )
    if not claimed:
        return False
    with transaction.atomic():
        erasure = Erasure.objects.select_for_update().get(pk=erasure_id)
        if erasure.status not in OPEN:  # a concurrent step finished it
            return False
        if erasure.started_at is None:
            erasure.started_at = timezone.now()
        user_id = erasure.end_user_id
        if user_id is None:
            return _finish(erasure, keys=[])
        hot_cache_evict(_hot_keys(user_id), strict=True)
        batch = _batch_rows()
        # Webhook events about the user name them (their external id): erased too.
        tables: list[tuple[type[models.Model], str]] = [
            *_user_tables(),
            (WebhookEvent, "end_user_id"),
            (AuditEvent, ""),
        ]
        for model, field in tables:
            if model is AuditEvent:
                rows = audit_events_about(tenant_id=erasure.tenant_id, end_user_id=user_id)
            else:
                rows = model._base_manager.filter(**{field: user_id})
            pks = list(rows.order_by("pk").values_list("pk", flat=True)[:batch])
            if not pks:
                continue
            _count(erasure, _admin_log_forget(model, pks))
            _, per_model = model._base_manager.filter(pk__in=pks).delete()
            _count(erasure, per_model)
            erasure.save(update_fields=["counts", "started_at", "status"])
            return True
        # Last step: no new row can reference the user while we hold its row lock.
        EndUser.objects.select_for_update().filter(pk=user_id).first()
        for model, field in tables:
            rows = (
                audit_events_about(tenant_id=erasure.tenant_id, end_user_id=user_id)
                if model is AuditEvent
                else model._base_manager.filter(**{field: user_id})
            )
            _count(erasure, _admin_log_forget(model, list(rows.values_list("pk", flat=True))))
            _count(erasure, rows.delete()[1])
        keys = _hot_keys(user_id)
        documents = HotDocument.objects.filter(end_user_id=user_id)
        _count(
            erasure, _admin_log_forget(HotDocument, list(documents.values_list("pk", flat=True)))
        )
        _count(erasure, documents.delete()[1])
        _count(erasure, _admin_log_forget(EndUser, [user_id]))
        _count(erasure, EndUser.objects.filter(pk=user_id).delete()[1])
        _forget_in_process(user_id)
        return _finish(erasure, keys=keys)


def _admin_log_forget(model: type[models.Model], pks: list[Any]) -> dict[str, int]:
    """The admin's change log names objects by their ``str()`` (an external id, a fact's value):
    its entries about the rows being erased go with them."""
    if not pks or not apps.is_installed("django.contrib.admin"):
        return {}
    from django.contrib.admin.models import LogEntry
    from django.contrib.contenttypes.models import ContentType

    content_type = ContentType.objects.get_for_model(model, for_concrete_model=False)
    entries = LogEntry.objects.filter(
        content_type=content_type, object_id__in=[str(pk) for pk in pks]
    )
    return entries.delete()[1]


def _count(erasure: Erasure, per_model: dict[str, int]) -> None:
    for label, number in per_model.items():
        if number and label != Erasure._meta.label:
            erasure.counts[label] = erasure.counts.get(label, 0) + number


def _finish(erasure: Erasure, *, keys: list[str]) -> bool:
    erasure.status = ErasureStatus.DONE
    erasure.end_user = None
    erasure.finished_at = timezone.now()
    erasure.error = ""
    erasure.save()
    # No personal content: the job's id, the actor, the counts per table.
    audit_record(
        tenant=erasure.tenant_id, actor=erasure.actor, action="end_user.erase",
        target_type="erasure", target_id=erasure.pk,
        after={"counts": erasure.counts, "requested_at": erasure.requested_at.isoformat()},
    )  # fmt: skip
    webhook_emit(
        tenant_id=erasure.tenant_id,
        events=[("erasure.done", {"id": str(erasure.pk), "status": erasure.status,
                 "counts": erasure.counts, "finished_at": erasure.finished_at.isoformat()})],
    )  # fmt: skip
    # Evicted before this commit too (strictly, at the start of the step); this pass catches a
    # copy an in-flight request re-cached meanwhile, and cannot fail the finished job.
    transaction.on_commit(lambda: hot_cache_evict(keys))
    return False


def erasure_fail(*, erasure_id: uuid.UUID | str, error: str) -> None:
    """Record a job that gave up; ``erasure_resume`` starts it again where it stopped."""
    Erasure.objects.filter(pk=erasure_id, status__in=OPEN).update(
        status=ErasureStatus.FAILED, error=error[:2000], finished_at=timezone.now()
    )


def erasure_resume(*, erasure: Erasure, enqueue: bool = True) -> Erasure:
    """Restart a failed erase (its user is still detached; it continues where it stopped)."""
    if (
        Erasure.objects.filter(pk=erasure.pk, status=ErasureStatus.FAILED).update(
            status=ErasureStatus.PENDING, finished_at=None
        )
        and enqueue
    ):
        transaction.on_commit(lambda: erasure_enqueue(erasure_id=erasure.pk))
    erasure.refresh_from_db()
    return erasure


def erasure_run_to_end(*, erasure_id: uuid.UUID | str) -> Erasure:
    """Run every step in this process (the management command's ``--now``; tests)."""
    while erasure_step(erasure_id=erasure_id):
        pass
    return Erasure.objects.get(pk=erasure_id)


def erasure_get_for_tenant(*, tenant_id: int, erasure_id: object) -> Erasure:
    try:
        pk = uuid.UUID(str(erasure_id))
    except ValueError:
        raise NotFound(f"No erasure {erasure_id!r}.", code="erasure_not_found") from None
    erasure = Erasure.objects.filter(tenant_id=tenant_id, pk=pk).first()
    if erasure is None:
        raise NotFound(f"No erasure {erasure_id!r}.", code="erasure_not_found")
    return erasure
