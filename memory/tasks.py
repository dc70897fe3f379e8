"""Celery tasks of memory: thin (ids in, one service call), bulk work re-enqueued in batches
through ``core.tasks.requeue`` (capped chains), retries by ``core.tasks.RetryingTask``.

The periodic ones are scheduled by ``CELERY_BEAT_SCHEDULE`` in ``config/settings.py``.
"""

from __future__ import annotations

from typing import Any

from celery import shared_task

from core.tasks import RetryingTask, requeue
from memory.search.vector_index import BUILD_TASK, vector_index_build
from memory.services.erasure import ERASURE_TASK, erasure_fail, erasure_step
from memory.services.lifecycle import (
    RETENTION_TASK,
    TIER_DOWN_TASK,
    retention_sweep,
    tier_down_sweep,
)

MAX_RETRIES = 8  # 5 s doubling to 5 min: ≈ 16 minutes for a database or Redis to come back


class ErasureStepTask(RetryingTask):
    max_retries = MAX_RETRIES

    def give_up(self, exc: BaseException, *args: Any, **kwargs: Any) -> None:
        erasure_id = str(kwargs["erasure_id"] if "erasure_id" in kwargs else args[0])
        erasure_fail(erasure_id=erasure_id, error=f"gave up after {MAX_RETRIES} retries: {exc}")


@shared_task(base=ErasureStepTask, bind=True, name=ERASURE_TASK)
def erasure_step_task(self: Any, erasure_id: str, depth: int = 0) -> None:
    """One batch of an erase, then the next one as a new message (so a worker restart loses at
    most one batch, which the redelivery redoes)."""
    if erasure_step(erasure_id=erasure_id):
        requeue(self, erasure_id, depth=depth)


@shared_task(bind=True, name=RETENTION_TASK, acks_late=True)
def retention_sweep_task(self: Any, depth: int = 0) -> None:
    if retention_sweep():
        requeue(self, depth=depth)  # more than one batch was due: continue


@shared_task(bind=True, name=TIER_DOWN_TASK, acks_late=True)
def tier_down_sweep_task(self: Any, depth: int = 0) -> None:
    if tier_down_sweep():
        requeue(self, depth=depth)


@shared_task(name=BUILD_TASK, acks_late=True)
def acu_vector_index_build_task(end_user_id: int) -> None:
    """A heavy user's partial HNSW index (ADR 0029); idempotent, so a redelivery is harmless."""
    vector_index_build(end_user_id=end_user_id)
