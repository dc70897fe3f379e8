import os

from celery import Celery, signals

from config import logs

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("handover")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


_owned: set[str] = set()  # tasks whose log context this process set


@signals.task_prerun.connect
def _task_log_context(task_id: str | None = None, **kwargs: object) -> None:
    # A task's log lines carry its id where a request's carry the request id; a task run eagerly
    # inside a request keeps the request's.
    if task_id and logs.request_id.get() is None:
        logs.request_id.set(f"task-{task_id}")
        _owned.add(task_id)


@signals.task_postrun.connect
def _task_log_context_end(task_id: str | None = None, **kwargs: object) -> None:
    if task_id in _owned:
        _owned.discard(task_id)
        logs.request_id.set(None)
