"""The one place that reads the process environment.

Every reader fails loudly: a value that does not parse is an error at start-up, never a silent
default (``DJANGO_DEBUG=ture`` stops the process instead of meaning False). Any variable may
instead be given as ``<NAME>_FILE``, the path of a file holding the value (for secrets).
"""

from __future__ import annotations

import os
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def _raw(name: str) -> str | None:
    file_name = os.environ.get(f"{name}_FILE")
    if file_name:
        try:
            return Path(file_name).read_text().strip()
        except OSError as exc:
            raise ImproperlyConfigured(f"{name}_FILE={file_name!r} cannot be read: {exc}") from exc
    value = os.environ.get(name)
    if value is None or value.strip() == "":
        return None
    return value.strip()


def string(name: str, default: str | None = None, *, required: bool = False) -> str | None:
    value = _raw(name)
    if value is None:
        if required:
            raise ImproperlyConfigured(f"{name} must be set")
        return default
    return value


def boolean(name: str, default: bool) -> bool:
    value = _raw(name)
    if value is None:
        return default
    lowered = value.lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}={value!r} is not a boolean (use one of true/false/1/0)")


def integer(name: str, default: int, *, minimum: int | None = None) -> int:
    value = _raw(name)
    if value is None:
        return default
    try:
        number = int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={value!r} is not an integer") from None
    if minimum is not None and number < minimum:
        raise ImproperlyConfigured(f"{name}={number} must be at least {minimum}")
    return number


def string_list(name: str, default: list[str]) -> list[str]:
    value = _raw(name)
    if value is None:
        return default
    items = [item.strip() for item in value.split(",") if item.strip()]
    if not items:
        raise ImproperlyConfigured(f"{name}={value!r} holds no items")
    return items


def choice(name: str, default: str, *, choices: tuple[str, ...]) -> str:
    value = _raw(name)
    if value is None:
        return default
    if value not in choices:
        raise ImproperlyConfigured(f"{name}={value!r} must be one of {', '.join(choices)}")
    return value


def url(name: str, default: str, *, schemes: tuple[str, ...]) -> str:
    value = _raw(name) or default
    scheme = value.split("://", 1)[0] if "://" in value else ""
    if scheme not in schemes:
        raise ImproperlyConfigured(
            f"{name}={value!r} must start with one of {', '.join(s + '://' for s in schemes)}"
        )
    return value


def var_dir() -> Path:
    """Where the embedded PostgreSQL, Redis and demo credentials live."""
    return Path(string("HANDOVER_VAR_DIR") or BASE_DIR / "var").resolve()


def embedded_database_url() -> str:
    return f"postgresql://postgres:@/postgres?host={var_dir() / 'pgdata'}"


def embedded_redis_url() -> str:
    return f"unix://{var_dir() / 'redis' / 'redis.sock'}"
