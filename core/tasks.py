"""The retry policy every Celery task of the project shares, and capped self-re-enqueueing.

STYLE.md: tasks are thin; retries back off; bulk jobs take a bounded batch and re-enqueue.
"""

from __future__ import annotations

import logging
from typing import Any

from celery import Task

logger = logging.getLogger(__name__)

# 5 s, 10 s, 20 s … capped at 5 minutes: a model endpoint or a database failing over gets time.
BACKOFF_SECONDS = 5
BACKOFF_MAX_SECONDS = 300
# A bulk job re-enqueues itself one batch at a time; past this many links in one chain it
# stops and leaves the rest to its periodic sweep (or the next request), so a bug that always
# reports "more" cannot loop forever. 10,000 batches of 1,000 rows is 10^7 rows.
MAX_CHAIN_DEPTH = 10_000


class RetryingTask(Task):
    """Retries any exception with exponential backoff; after the last retry ``give_up`` is
    called with the exception and the task's arguments (record the failure there)."""

    abstract = True
    acks_late = True
    autoretry_for: tuple[type[BaseException], ...] = (Exception,)
    max_retries = 5
    retry_backoff = BACKOFF_SECONDS
    retry_backoff_max = BACKOFF_MAX_SECONDS
    retry_jitter = False

    def give_up(self, exc: BaseException, *args: Any, **kwargs: Any) -> None:
        """Override: record that the work failed for good."""

    def on_failure(
        self, exc: BaseException, task_id: str, args: Any, kwargs: Any, einfo: Any
    ) -> None:
        self.give_up(exc, *args, **kwargs)


def requeue(task: Any, *args: Any, depth: int, **kwargs: Any) -> bool:
    """Send the next link of a self-re-enqueueing job, unless the chain is ``MAX_CHAIN_DEPTH``
    long already. Returns whether it was sent."""
    if depth + 1 >= MAX_CHAIN_DEPTH:
        logger.warning(
            "task chain capped", extra={"task": task.name, "depth": depth, "cap": MAX_CHAIN_DEPTH}
        )
        return False
    task.apply_async(args=args, kwargs={**kwargs, "depth": depth + 1})
    return True
