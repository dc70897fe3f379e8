from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable

from django.conf import settings
from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse

from api.exceptions import error_body
from core import logs, metrics
from tenants.rls import tenant_scope_exit


class BodySizeLimitMiddleware:
    """Refuse an oversize body from its Content-Length, before anything reads it."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        limit = settings.API_MAX_BODY_BYTES
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            return JsonResponse(
                error_body("invalid_content_length", "Content-Length is not a number."), status=400
            )
        if length > limit:
            detail = f"The request body is {length} bytes; the limit is {limit}."
            return JsonResponse(error_body("request_too_large", detail), status=413)
        return self.get_response(request)


class StorableTextMiddleware:
    """A NUL character in the path or the query string (``%00``) is a 400 before any view:
    PostgreSQL text cannot hold one, so no user, agent or fact is ever named with it."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if "\x00" in request.path or "%00" in request.META.get("QUERY_STRING", ""):
            return JsonResponse(
                error_body("invalid_text", "The path or query contains a NUL character."),
                status=400,
            )
        return self.get_response(request)


class ServerTimingMiddleware:
    """``Server-Timing: app;dur=…, db;dur=…;desc="N queries"`` on every response.

    Lets a client (and bench/latency.py) split its observed latency into network and server
    queueing, application time and PostgreSQL time, without a profiler.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        spent = [0.0, 0]

        def timed(
            execute: Callable[..., object], sql: str, params: object, many: bool, context: object
        ) -> object:
            started = time.perf_counter()
            try:
                return execute(sql, params, many, context)
            finally:
                spent[0] += time.perf_counter() - started
                spent[1] += 1

        started = time.perf_counter()
        with connection.execute_wrapper(timed):
            response = self.get_response(request)
        app_ms = (time.perf_counter() - started) * 1000
        response["Server-Timing"] = (
            f'app;dur={app_ms:.3f}, db;dur={spent[0] * 1000:.3f};desc="{spent[1]} queries"'
        )
        return response


class TenantScopeMiddleware:
    """Only API requests run in a tenant's row-level-security scope (entered when the key is
    checked, tenants.rls). Any other request (the admin, health, metrics) leaves it first."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not request.path.startswith("/v1/"):
            tenant_scope_exit()
        return self.get_response(request)


class RequestContextMiddleware:
    """A request id on every request, its latency in the metrics, one structured log line.

    The id is the client's ``X-Request-ID`` when it looks like one, else a new one; it is
    returned in the response and carried by every log line written while serving the request.
    The log line names the route, never the path (user ids are personal data) or any header.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.log_requests = settings.LOG_REQUESTS

    def __call__(self, request: HttpRequest) -> HttpResponse:
        # META, not request.headers: that builds a mapping of every header on each request.
        rid = logs.acceptable_request_id(request.META.get("HTTP_X_REQUEST_ID")) or uuid.uuid4().hex
        token = logs.request_id.set(rid)
        started = time.perf_counter()
        try:
            response = self.get_response(request)
            elapsed = time.perf_counter() - started
            endpoint = _endpoint(request)
            method = request.method or ""
            metrics.http_request_duration.labels(endpoint, method).observe(elapsed)
            metrics.http_requests.labels(endpoint, method, str(response.status_code)).inc()
            response["X-Request-ID"] = rid
            if self.log_requests:
                principal = getattr(request, "auth", None)
                request_logger.info(
                    "%s %s %s",
                    method,
                    endpoint,
                    response.status_code,
                    extra={
                        "method": method,
                        "endpoint": endpoint,
                        "status": response.status_code,
                        "duration_ms": round(elapsed * 1000, 3),
                        "tenant_id": getattr(principal, "tenant_id", None),
                    },
                )
            return response
        finally:
            logs.request_id.reset(token)


request_logger = logging.getLogger("handover.request")


def _endpoint(request: HttpRequest) -> str:
    lean = getattr(request, "route_name", None)  # served by api.callpath: no URL resolution
    if lean is not None:
        return str(lean)
    match = request.resolver_match
    if match is None:
        return "unmatched"
    if match.app_name == "admin":
        return "admin"
    return match.url_name or "other"
