"""Structured logs: one JSON object per line, carrying the request id of the request (or task)
being served. Configured from settings.LOGGING; see docs/observability.md."""

from __future__ import annotations

import datetime
import json
import logging
import re
from contextvars import ContextVar

request_id: ContextVar[str | None] = ContextVar("request_id", default=None)
task_id: ContextVar[str | None] = ContextVar("task_id", default=None)  # in a Celery task

# A client's X-Request-ID is kept only if it looks like an id: it ends up in every log line.
_ACCEPTABLE_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")

# Attributes every LogRecord has; anything else was passed with extra= and is logged as a field.
_STANDARD = set(logging.makeLogRecord({}).__dict__) | {
    "message",
    "asctime",
    "request_id",
    "task_id",
}


def acceptable_request_id(value: str | None) -> str | None:
    return value if value and _ACCEPTABLE_ID.fullmatch(value) else None


class RequestIdFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = request_id.get()
        return True


class JsonFormatter(logging.Formatter):
    """``{"time", "level", "logger", "message", "request_id"?, "task_id"?, ...extra,
    "exception"?}``."""

    def format(self, record: logging.LogRecord) -> str:
        moment = datetime.datetime.fromtimestamp(record.created, datetime.UTC)
        entry: dict[str, object] = {
            "time": moment.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        rid = getattr(record, "request_id", None) or request_id.get()
        if rid:
            entry["request_id"] = rid
        task = task_id.get()
        if task:
            entry["task_id"] = task
        for key, value in record.__dict__.items():
            if key not in _STANDARD and not key.startswith("_"):
                entry[key] = value
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str, ensure_ascii=False)


class PathRedactFilter(logging.Filter):
    """Django's own request loggers (``django.request`` on a 500, ``django.security``) put the
    request's path in the message and the request on the record; a path carries user ids, which
    are personal data and never logged (docs/observability.md). This replaces the path with the
    route pattern (``/v1/users/<path:user>/export``) and drops the request object."""

    WITHHELD = "[path withheld]"

    def filter(self, record: logging.LogRecord) -> bool:
        request = record.__dict__.pop("request", None)
        if request is None:
            return True
        path = getattr(request, "path", None)
        match = getattr(request, "resolver_match", None)
        pattern = str(getattr(match, "route", "") or "")
        route = f"/{pattern}" if pattern else None
        replacement = route or self.WITHHELD
        if path:
            record.msg = str(record.msg).replace(path, replacement)
            if isinstance(record.args, tuple):
                record.args = tuple(
                    arg.replace(path, replacement) if isinstance(arg, str) else arg
                    for arg in record.args
                )
        record.route = replacement
        return True
