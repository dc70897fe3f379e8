"""The retry policy every Celery task of the project shares, and capped self-re-enqueueing.

STYLE.md: tasks are thin; retries back off; bulk jobs take a bounded batch and re-enqueue.
"""

from __future__ import annotations

import logging
from typing import Any

from celery import Task
from celery.exceptions import Retry

logger = logging.getLogger(__name__)

# 5 s, 10 s, 20 s … capped at 5 minutes: a model endpoint or a database failing over gets time.
BACKOFF_SECONDS = 5
BACKOFF_MAX_SECONDS = 300
# A bulk job re-enqueues itself one batch at a time; past this many links in one chain it
# stops and leaves the rest to its periodic sweep (or the next request), so a bug that always
# reports "more" cannot loop forever. 10,000 batches of 1,000 rows is 10^7 rows.
MAX_CHAIN_DEPTH = 10_000


class RetryingTask(Task):
    """Retries what ``autoretry_for`` names (by default any exception) with exponential
    backoff; when the last retry fails too — or at once, for an exception it does not name,
    which retrying cannot fix — ``give_up`` is called with the exception and the task's
    arguments (record the failure there), and the task then fails with that exception."""

    abstract = True
    acks_late = True
    autoretry_for: tuple[type[BaseException], ...] = (Exception,)
    max_retries = 5
    retry_backoff = BACKOFF_SECONDS
    retry_backoff_max = BACKOFF_MAX_SECONDS
    retry_jitter = False

    def give_up(self, exc: BaseException, *args: Any, **kwargs: Any) -> None:
        """Override: record that the work failed for good."""

    def retried(self, exc: BaseException) -> bool:
        """Whether ``exc`` was retried before it was given up on (for the recorded message)."""
        return isinstance(exc, self.autoretry_for)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().__call__(*args, **kwargs)
        except Retry:
            raise
        except self.autoretry_for:
            raise  # retried, or given up on in ``retry`` below after the last one
        except Exception as exc:
            if not self.request.called_directly:
                self.give_up(exc, *args, **kwargs)
            raise

    def retry(
        self,
        args: Any = None,
        kwargs: Any = None,
        exc: Exception | None = None,
        throw: bool = True,
        eta: Any = None,
        countdown: Any = None,
        max_retries: int | None = None,
        **options: Any,
    ) -> Any:
        # autoretry_for calls this on every failure; past max_retries Celery raises ``exc``
        # again from here. Given up here, not in on_failure: eager mode with
        # task_eager_propagates (the tests) re-raises before it would call on_failure.
        try:
            return super().retry(args, kwargs, exc, throw, eta, countdown, max_retries, **options)
        except Retry:
            raise
        except BaseException as final:
            # Only "no retries left": not a Reject (the retry could not be sent, which says
            # nothing about the work) and not a direct call outside Celery.
            if exc is not None and final is exc and not self.request.called_directly:
                self.give_up(exc, *(self.request.args or ()), **(self.request.kwargs or {}))
            raise


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
