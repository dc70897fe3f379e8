"""/metrics: Prometheus exposition, outside the API-key scheme (ADR 0019)."""

from __future__ import annotations

import hmac

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.http import require_GET
from prometheus_client import CONTENT_TYPE_LATEST

from api.exceptions import error_body
from core import metrics

_queue = metrics.QueueDepthCollector(
    settings.CELERY_BROKER_URL, settings.CELERY_TASK_DEFAULT_QUEUE or "handover"
)


@require_GET
def metrics_view(request: HttpRequest) -> HttpResponse:
    """Open unless ``METRICS_TOKEN`` is set; then ``Authorization: Bearer <token>`` only."""
    token = settings.METRICS_TOKEN
    if token:
        given = request.headers.get("Authorization", "")
        if not hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
            response = JsonResponse(
                error_body(
                    "invalid_metrics_token", "Send 'Authorization: Bearer <METRICS_TOKEN>'."
                ),
                status=401,
            )
            response["WWW-Authenticate"] = 'Bearer realm="handover-metrics"'
            return response
    body = metrics.scrape(
        multiprocess_dir=settings.PROMETHEUS_MULTIPROC_DIR, queue_collector=_queue
    )
    return HttpResponse(body, content_type=CONTENT_TYPE_LATEST)
