"""Celery tasks of memory: thin (ids in, one service call), bulk work re-enqueued in batches.

The periodic ones are scheduled by ``CELERY_BEAT_SCHEDULE`` in ``config/settings.py``.
"""

from __future__ import annotations

from typing import Any

from celery import shared_task

from memory.services.erasure import ERASURE_TASK, erasure_fail, erasure_step
from memory.services.lifecycle import (
    RETENTION_TASK,
    TIER_DOWN_TASK,
    retention_sweep,
    tier_down_sweep,
)

MAX_RETRIES = 8


@shared_task(bind=True, name=ERASURE_TASK, acks_late=True, max_retries=MAX_RETRIES)
def erasure_step_task(self: Any, erasure_id: str) -> None:
    """One batch of an erase, then the next one as a new message (so a worker restart loses at
    most one batch, which the redelivery redoes)."""
    try:
        more = erasure_step(erasure_id=erasure_id)
    except Exception as exc:
        if self.request.retries >= MAX_RETRIES:
            erasure_fail(erasure_id=erasure_id, error=f"gave up after {MAX_RETRIES} retries: {exc}")
            return
        raise self.retry(exc=exc, countdown=min(300, 5 * 2**self.request.retries)) from exc
    if more:
        erasure_step_task.delay(erasure_id)


@shared_task(name=RETENTION_TASK, acks_late=True)
def retention_sweep_task() -> None:
    if retention_sweep():
        retention_sweep_task.delay()  # more than one batch was due: continue


@shared_task(name=TIER_DOWN_TASK, acks_late=True)
def tier_down_sweep_task() -> None:
    if tier_down_sweep():
        tier_down_sweep_task.delay()
