"""/metrics, request ids and structured logs."""

from __future__ import annotations

import io
import json
import logging
import sys
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from django_redis import get_redis_connection
from prometheus_client.parser import text_string_to_metric_families

from config.celery import app
from core import logs, metrics
from extraction.services import EXTRACTION_TASK
from tenants.models import Tenant
from tests.conftest import Key

pytestmark = pytest.mark.django_db(transaction=True)


def _samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def _scrape(**headers: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    response = Client().get("/metrics", headers=headers)
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/plain; version=")
    return _samples(response.content.decode())


def _value(samples: dict[Any, float], name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


@pytest.fixture
def json_log() -> Iterator[io.StringIO]:
    """The request logger's output, through the production filter and formatter."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(logs.RequestIdFilter())
    handler.setFormatter(logs.JsonFormatter())
    root = logging.getLogger()
    root.addHandler(handler)
    level = root.level
    root.setLevel(logging.DEBUG)  # everything any layer logs: no secret may be in it
    yield stream
    root.setLevel(level)
    root.removeHandler(handler)


def test_metrics_count_requests_hot_cache_reads_and_latency_per_endpoint(
    agent_key_a: Key,
) -> None:
    before = _scrape()
    client = agent_key_a.client()
    body = {"agent": "advisor", "user": "priya", "session": "call-1"}
    first = client.post("/v1/sessions", body, format="json")
    client.post("/v1/sessions", body, format="json")  # resumed, from the cache
    session = first.json()["session_id"]
    client.post(f"/v1/sessions/{session}/turns", {"role": "user", "text": "hi"}, format="json")
    client.post(f"/v1/sessions/{session}/turns", {"role": "narrator", "text": ""}, format="json")
    after = _scrape()

    def delta(name: str, **labels: str) -> float:
        return _value(after, name, **labels) - _value(before, name, **labels)

    total = "handover_http_requests_total"
    assert delta(total, endpoint="session-open", method="POST", status="201") == 1
    assert delta(total, endpoint="session-open", method="POST", status="200") == 1
    assert delta(total, endpoint="turn-append", method="POST", status="201") == 1
    assert delta(total, endpoint="turn-append", method="POST", status="400") == 1
    histogram = "handover_http_request_duration_seconds"
    assert delta(f"{histogram}_count", endpoint="session-open", method="POST") == 2
    assert delta(f"{histogram}_bucket", endpoint="turn-append", method="POST", le="+Inf") == 2
    assert delta(f"{histogram}_sum", endpoint="turn-append", method="POST") > 0
    # The first open missed Redis (and rebuilt), the second hit it.
    assert delta("handover_hot_cache_reads_total", result="miss") >= 1
    assert delta("handover_hot_cache_reads_total", result="hit") >= 1


def test_metrics_need_no_api_key_but_honour_a_token(settings: Any) -> None:
    assert Client().get("/metrics").status_code == 200
    settings.METRICS_TOKEN = "scrape-me-" + "x" * 20
    denied = Client().get("/metrics")
    assert denied.status_code == 401 and denied.json()["code"] == "invalid_metrics_token"
    assert Client().get("/metrics", headers={"Authorization": "Bearer wrong"}).status_code == 401
    allowed = Client().get(
        "/metrics", headers={"Authorization": f"Bearer {settings.METRICS_TOKEN}"}
    )
    assert allowed.status_code == 200 and b"handover_http_requests_total" in allowed.content
    assert Client().post("/metrics").status_code == 405


def test_queue_depth_reads_the_real_broker() -> None:
    queue = f"hv-test-depth-{uuid.uuid4().hex[:8]}"
    collector = metrics.QueueDepthCollector(settings.CELERY_BROKER_URL, queue)
    app.conf.task_always_eager = False  # (reset by conftest for the next test)
    try:
        for run_id in (1, 2, 3):  # sent, never consumed: no worker listens on this queue
            app.send_task(EXTRACTION_TASK, args=[run_id], queue=queue)
        text = metrics.scrape(multiprocess_dir=None, queue_collector=collector).decode()
        assert _value(_samples(text), "handover_queue_depth", queue=queue) == 3
    finally:
        get_redis_connection("default").delete(queue)


def test_extraction_runs_report_stage_durations_and_counts(
    agent_key_a: Key, tenant_a: Tenant, json_log: io.StringIO
) -> None:
    from schemas.models import Agent

    Agent.objects.filter(slug="advisor").update(extraction_token_threshold=20)
    before = _scrape()
    client = agent_key_a.client()
    session = client.post(
        "/v1/sessions", {"agent": "advisor", "user": "priya"}, format="json"
    ).json()["session_id"]
    for text in ["I'm Priya and I live in Pune.", "I work as a teacher at a school in Pune."] * 2:
        client.post(f"/v1/sessions/{session}/turns", {"role": "user", "text": text}, format="json")
    after = _scrape()

    def delta(name: str, **labels: str) -> float:
        return _value(after, name, **labels) - _value(before, name, **labels)

    assert delta("handover_extraction_runs_total", status="succeeded") >= 1
    for stage in ("extract", "compress", "embed", "dedup", "write", "total"):
        assert delta("handover_extraction_stage_duration_seconds_count", stage=stage) >= 1
    assert delta("handover_extraction_items_total", kind="turns") >= 2
    assert delta("handover_extraction_items_total", kind="acus") >= 1
    # The run ran eagerly inside an append: that request's log line still has its id.
    lines = [json.loads(line) for line in json_log.getvalue().splitlines()]
    appends = [line for line in lines if line.get("endpoint") == "turn-append"]
    assert len(appends) == 4 and all(len(line.get("request_id", "")) == 32 for line in appends)


def test_request_id_is_honoured_or_made_and_logged_without_secrets(
    operator_key_a: Key, json_log: io.StringIO
) -> None:
    client = operator_key_a.client()
    given = client.get("/v1/agents", headers={"X-Request-ID": "trace-42.a:b"})
    assert given["X-Request-ID"] == "trace-42.a:b"
    made = client.get("/v1/agents", headers={"X-Request-ID": "bad id\nwith newline"})
    assert len(made["X-Request-ID"]) == 32 and made["X-Request-ID"] != given["X-Request-ID"]
    bad_key = Client().get("/v1/agents", headers={"Authorization": "Bearer hv_0123456789ab_nope"})
    assert bad_key.status_code == 401 and bad_key["X-Request-ID"]

    lines = [json.loads(line) for line in json_log.getvalue().splitlines()]
    requests = [line for line in lines if line["logger"] == "handover.request"]
    assert [(r["request_id"], r["endpoint"], r["status"]) for r in requests] == [
        ("trace-42.a:b", "agent-list", 200),
        (made["X-Request-ID"], "agent-list", 200),
        (bad_key["X-Request-ID"], "agent-list", 401),
    ]
    assert requests[0]["tenant_id"] == operator_key_a.model.tenant_id
    assert requests[0]["duration_ms"] > 0 and requests[0]["level"] == "INFO"
    logged = json_log.getvalue()
    assert operator_key_a.raw not in logged and "nope" not in logged
    assert operator_key_a.raw.split("_", 2)[2] not in logged  # not even the secret part alone


def test_json_formatter_outside_a_request_and_with_an_exception() -> None:
    formatter = logs.JsonFormatter()
    try:
        raise ValueError("boom")
    except ValueError:
        record = logging.getLogger("x").makeRecord(
            "x", logging.ERROR, "f.py", 1, "failed %s", ("run 7",), sys.exc_info()
        )
    record.run_id = 7
    entry = json.loads(formatter.format(record))
    assert entry["message"] == "failed run 7" and entry["level"] == "ERROR"
    assert entry["run_id"] == 7 and "ValueError: boom" in entry["exception"]
    assert "request_id" not in entry and entry["time"].endswith("Z")
