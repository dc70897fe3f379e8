"""Celery tasks of webhooks: thin (ids in, one service call), sent by name (``services``).

A failed attempt is not a task failure: the service records it on the delivery and schedules
the next one itself (backoff from the delivery's attempts, kept in the database), so retries
survive a worker restart and the sweep finds what a lost message left behind."""

from __future__ import annotations

from celery import shared_task

from webhooks.services import DELIVER_TASK, webhook_deliveries_sweep, webhook_delivery_attempt

SWEEP_TASK = "webhooks.sweep"


@shared_task(name=DELIVER_TASK, acks_late=True)
def webhook_deliver(delivery_id: str) -> None:
    webhook_delivery_attempt(delivery_id=delivery_id)


@shared_task(name=SWEEP_TASK)
def webhook_sweep() -> None:
    """Periodic (beat): due deliveries without a message on the way, stuck attempts."""
    webhook_deliveries_sweep()
