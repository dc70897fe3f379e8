import os

from celery import Celery, signals

from config import logs

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("handover")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@signals.task_prerun.connect
def _task_log_context(task_id: str | None = None, **kwargs: object) -> None:
    # A task's log lines carry its id where a request's carry the request id.
    logs.request_id.set(f"task-{task_id}" if task_id else None)


@signals.task_postrun.connect
def _task_log_context_end(**kwargs: object) -> None:
    logs.request_id.set(None)
