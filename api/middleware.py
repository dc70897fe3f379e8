from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse

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
                {"code": "invalid_content_length", "detail": "Content-Length is not a number."},
                status=400,
            )
        if length > limit:
            return JsonResponse(
                {
                    "code": "request_too_large",
                    "detail": f"The request body is {length} bytes; the limit is {limit}.",
                },
                status=413,
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
        import time

        from django.db import connection

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
