import os
from typing import Any

from celery import Celery, signals

from core import logs

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("handover")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


_owned: set[str] = set()  # tasks whose log context this process set
REQUEST_ID_HEADER = "hv_request_id"


@signals.before_task_publish.connect
def _carry_request_id(headers: dict[str, object] | None = None, **kwargs: object) -> None:
    # A task sent while serving a request carries that request's id to the worker.
    rid = logs.request_id.get()
    if rid and headers is not None:
        headers.setdefault(REQUEST_ID_HEADER, rid)


@signals.task_prerun.connect
def _task_log_context(task_id: str | None = None, task: Any = None, **kwargs: object) -> None:
    # A task's lines carry the id of the request that sent it (else "task-<id>") and its own id;
    # a task run eagerly inside a request leaves the request's context alone.
    if task_id and logs.request_id.get() is None:
        origin = getattr(task.request, REQUEST_ID_HEADER, None) if task is not None else None
        logs.request_id.set(str(origin) if origin else f"task-{task_id}")
        logs.task_id.set(task_id)
        _owned.add(task_id)


@signals.task_postrun.connect
def _task_log_context_end(task_id: str | None = None, **kwargs: object) -> None:
    if task_id in _owned:
        _owned.discard(task_id)
        logs.request_id.set(None)
        logs.task_id.set(None)
