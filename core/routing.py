"""Which Celery queue a user's write-lane task goes to.

With ``CELERY_USER_QUEUES=N`` (N > 1) the per-user tasks (an extraction run, a rebuild) go to
``<CELERY_QUEUE>.<k>``, ``k`` a stable hash of (tenant, end user) modulo N; a worker consumes
some of those queues (``-Q handover.0,handover.2``), so all of one user's work lands on one
queue, in order, and workers on different queues never hold the same user (the per-user lock of
the write lane still guards a queue served by several processes). Everything else (sweeps,
recovery, erasure steps) stays on ``CELERY_QUEUE``, which some worker must also consume.
With N = 1 (the default) everything goes to ``CELERY_QUEUE``, as before.
"""

from __future__ import annotations

import zlib

from celery import current_app
from django.conf import settings


def user_queue_index(tenant_id: int, end_user_id: int) -> int:
    # crc32, not hash(): the same in every process and on every machine.
    return zlib.crc32(f"{tenant_id}:{end_user_id}".encode()) % settings.CELERY_USER_QUEUES


def user_queue(tenant_id: int, end_user_id: int) -> str | None:
    """The queue of this user's write-lane tasks; None: the default queue."""
    if settings.CELERY_USER_QUEUES <= 1:
        return None
    base = current_app.conf.task_default_queue
    return f"{base}.{user_queue_index(tenant_id, end_user_id)}"
