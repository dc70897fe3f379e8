from __future__ import annotations

import time
from collections.abc import Callable

from django.core.cache import cache
from django.db import connection
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView


class HealthzApi(APIView):
    """The process is up. Touches nothing else."""

    authentication_classes: list[type] = []
    permission_classes = [AllowAny]

    @extend_schema(
        responses=inline_serializer("Healthz", {"status": serializers.CharField()}),
        tags=["health"],
    )
    def get(self, request: Request) -> Response:
        return Response({"status": "ok"})


def _check(probe: Callable[[], object]) -> dict[str, object]:
    started = time.perf_counter()
    try:
        probe()
    except Exception as exc:
        return {"ok": False, "error": f"{type(exc).__name__}: {exc}"[:300]}
    return {"ok": True, "ms": round((time.perf_counter() - started) * 1000, 2)}


def _postgres() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")


def _redis() -> None:
    cache.client.get_client().ping()  # type: ignore[attr-defined]


READYZ = inline_serializer(
    "Readyz", {"status": serializers.CharField(), "checks": serializers.DictField()}
)


class ReadyzApi(APIView):
    """PostgreSQL and Redis reachable: 200, else 503 with what failed."""

    authentication_classes: list[type] = []
    permission_classes = [AllowAny]

    @extend_schema(
        responses={200: READYZ, 503: READYZ},
        tags=["health"],
        description="200 when PostgreSQL and Redis answer; 503, with the same body, when one "
        "does not (`checks` says which).",
    )
    def get(self, request: Request) -> Response:
        checks = {"postgres": _check(_postgres), "redis": _check(_redis)}
        ready = all(check["ok"] for check in checks.values())
        return Response(
            {"status": "ready" if ready else "unavailable", "checks": checks},
            status=200 if ready else 503,
        )
