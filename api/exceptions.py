"""Every error the API returns is ``{"code", "detail", "fields"?}`` with a stable ``code``."""

from __future__ import annotations

import logging
from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.db import InterfaceError, OperationalError
from django.http import Http404, HttpRequest, JsonResponse
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from rest_framework import exceptions, status
from rest_framework.response import Response

from core import errors

logger = logging.getLogger(__name__)

_DOMAIN_STATUS = {
    errors.NotFound: status.HTTP_404_NOT_FOUND,
    errors.Invalid: status.HTTP_400_BAD_REQUEST,
    errors.Conflict: status.HTTP_409_CONFLICT,
    errors.Forbidden: status.HTTP_403_FORBIDDEN,
}

_DRF_CODES = {
    exceptions.ParseError: "malformed_json",
    exceptions.UnsupportedMediaType: "unsupported_media_type",
    exceptions.MethodNotAllowed: "method_not_allowed",
    exceptions.NotAcceptable: "not_acceptable",
    exceptions.Throttled: "rate_limited",
    exceptions.NotFound: "not_found",
    exceptions.PermissionDenied: "permission_denied",
    exceptions.NotAuthenticated: "missing_api_key",
}


def _flatten(detail: Any, prefix: str = "") -> dict[str, list[str]]:
    """DRF's nested error detail → ``{"a.b[0].c": ["message"]}``."""
    out: dict[str, list[str]] = {}
    if isinstance(detail, dict):
        for key, value in detail.items():
            if key == "non_field_errors":  # an error about the object (or list) itself
                out.update(_flatten(value, prefix))
            else:
                out.update(_flatten(value, f"{prefix}.{key}" if prefix else str(key)))
    elif isinstance(detail, list):
        if all(not isinstance(item, dict | list) for item in detail):
            out[prefix or "body"] = [str(item) for item in detail]
        else:
            for index, item in enumerate(detail):
                if item:
                    out.update(_flatten(item, f"{prefix}[{index}]"))
    else:
        out[prefix or "body"] = [str(detail)]
    return out


def error_body(
    code: str, detail: str, fields: dict[str, list[str]] | None = None
) -> dict[str, Any]:
    body: dict[str, Any] = {"code": code, "detail": detail}
    if fields:
        body["fields"] = fields
    return body


# A dependency that is down is the service's condition, not the client's mistake nor a bug: a
# 503 with a stable code, and a hint to retry soon. Django reconnects to PostgreSQL by itself
# (CONN_HEALTH_CHECKS) and redis-py to Redis, so the next request after recovery succeeds.
RETRY_AFTER_SECONDS = 1
_UNAVAILABLE: list[tuple[tuple[type[Exception], ...], str, str]] = [
    ((OperationalError, InterfaceError), "database_unavailable", "PostgreSQL is unavailable"),
    ((RedisConnectionError, RedisTimeoutError), "cache_unavailable", "Redis is unavailable"),
]


def _unavailable(exc: Exception) -> Response | None:
    for types, code, what in _UNAVAILABLE:
        if isinstance(exc, types):
            logger.warning("%s: %s: %s", code, type(exc).__name__, str(exc)[:300])
            return Response(
                error_body(code, f"{what}; retry shortly."),
                status=status.HTTP_503_SERVICE_UNAVAILABLE,
                headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
            )
    return None


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    unavailable = _unavailable(exc)
    if unavailable is not None:
        return unavailable
    if isinstance(exc, errors.DomainError):
        status_code = next(
            (s for cls, s in _DOMAIN_STATUS.items() if isinstance(exc, cls)),
            status.HTTP_400_BAD_REQUEST,
        )
        return Response(error_body(exc.code, exc.detail, exc.fields), status=status_code)
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()
    if not isinstance(exc, exceptions.APIException):
        return None  # a real bug: Django logs it and answers 500 through handler500
    headers: dict[str, str] = {}
    wait = getattr(exc, "wait", None)
    if isinstance(exc, exceptions.Throttled) and wait is not None:
        headers["Retry-After"] = str(int(wait) + 1)
    if isinstance(exc, exceptions.AuthenticationFailed | exceptions.NotAuthenticated):
        headers["WWW-Authenticate"] = 'Bearer realm="handover"'
    if isinstance(exc, exceptions.ValidationError):
        fields = _flatten(exc.detail)
        first_place, first_messages = next(iter(fields.items()))
        body = error_body("invalid", f"{first_place}: {first_messages[0]}", fields)
    else:
        code = next((c for cls, c in _DRF_CODES.items() if isinstance(exc, cls)), None)
        if code is None:
            codes = exc.get_codes()
            code = codes if isinstance(codes, str) else exc.default_code
        detail = exc.detail if isinstance(exc.detail, str) else str(exc.detail)
        if isinstance(exc, exceptions.ParseError):
            detail = f"The body is not valid JSON: {detail}"
        body = error_body(code, str(detail))
    return Response(body, status=exc.status_code, headers=headers)


def json_404(request: HttpRequest, exception: Exception | None = None) -> JsonResponse:
    return JsonResponse(error_body("not_found", "No such endpoint or object."), status=404)


def json_500(request: HttpRequest) -> JsonResponse:
    return JsonResponse(
        error_body("server_error", "Internal error; it has been logged."), status=500
    )
