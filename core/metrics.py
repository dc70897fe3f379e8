"""Prometheus metrics: defined once here, observed where things happen, scraped at /metrics.

Under gunicorn (several processes) and Celery's prefork pool, ``PROMETHEUS_MULTIPROC_DIR``
must name a directory shared by every process of the machine, emptied before they start
(``make run`` does both, under ``var/metrics``): each process then writes its samples to
memory-mapped files there, and a scrape adds them up. Without it, each process counts alone
(fine for tests and ``runserver``). See docs/observability.md and ADR 0019.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from typing import Any

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import REGISTRY, Collector

logger = logging.getLogger(__name__)

# The call path's budgets are 2-5 ms; search's 20 ms; a batch import may take a second.
HTTP_BUCKETS = (0.001, 0.002, 0.003, 0.005, 0.0075, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5)
# An extraction stage takes milliseconds (rules) to tens of seconds (a model call).
STAGE_BUCKETS = (0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300)

http_request_duration = Histogram(
    "handover_http_request_duration_seconds",
    "Time from the first middleware to the response, per endpoint (route name).",
    ["endpoint", "method"],
    buckets=HTTP_BUCKETS,
)
http_requests = Counter(
    "handover_http_requests",
    "Requests answered, per endpoint and status code.",
    ["endpoint", "method", "status"],
)
hot_cache_reads = Counter(
    "handover_hot_cache_reads",
    "Hot-document reads from Redis: hit, or miss (then read from PostgreSQL).",
    ["result"],
)
extraction_runs = Counter(
    "handover_extraction_runs",
    "Extraction run attempts, by outcome: succeeded, failed (for good), retrying (an error the "
    "task retries with backoff: a model timeout, 429 or 5xx).",
    ["status"],
)
extraction_stage_duration = Histogram(
    "handover_extraction_stage_duration_seconds",
    "Time per write-lane stage (smart_keep, extract, compress, embed, dedup, summary, write, "
    "total) of the runs that succeeded.",
    ["stage"],
    buckets=STAGE_BUCKETS,
)
extraction_items = Counter(
    "handover_extraction_items",
    "What runs did, by kind: turns, facts, superseded, acus, duplicates_dropped (dedup), "
    "atomicity_rejects, archived, kept, facts_rejected, summary_untraceable, model_calls, "
    "tokens_in, tokens_out.",
    ["kind"],
)

webhook_attempts = Counter(
    "handover_webhook_attempts",
    "Webhook delivery attempts, by outcome: delivered (2xx), retrying (scheduled again), "
    "failed (the last attempt, or an address the rules refuse).",
    ["outcome"],
)


def hot_cache_read(hit: bool) -> None:
    hot_cache_reads.labels("hit" if hit else "miss").inc()


def extraction_run_observed(
    status: str, timings: Mapping[str, float] | None = None, counts: Mapping[str, int] | None = None
) -> None:
    """One finished run: its outcome, its stage timings (ms) and counts."""
    extraction_runs.labels(status).inc()
    for stage, milliseconds in (timings or {}).items():
        extraction_stage_duration.labels(stage).observe(milliseconds / 1000)
    for kind, number in (counts or {}).items():
        if number:
            extraction_items.labels(kind).inc(number)


class QueueDepthCollector(Collector):
    """``handover_queue_depth``: messages waiting in the Celery queue, read at scrape time.

    One ``LLEN`` per scrape on a Redis broker (kombu keeps a queue as a list, plus one list per
    priority step when priorities are used). RabbitMQ has its own exporter; nothing is reported.
    """

    def __init__(self, broker_url: str, queue: str) -> None:
        self.broker_url = broker_url
        self.queue = queue
        self._client: Any = None

    def _redis(self) -> Any:
        if self._client is None:
            import redis

            url = self.broker_url
            if url.startswith("redis+socket://"):
                url = "unix://" + url.removeprefix("redis+socket://")
            self._client = redis.Redis.from_url(url, socket_timeout=0.5, socket_connect_timeout=0.5)
        return self._client

    def collect(self) -> Iterable[Metric]:
        if not self.broker_url.startswith(("redis", "rediss", "unix")):
            return
        family = GaugeMetricFamily(
            "handover_queue_depth",
            "Tasks waiting in the Celery queue (Redis broker).",
            labels=["queue"],
        )
        try:
            client = self._redis()
            keys = [self.queue, *(f"{self.queue}\x06\x16{p}" for p in (3, 6, 9))]
            with client.pipeline(transaction=False) as pipe:
                for key in keys:
                    pipe.llen(key)
                depth = sum(pipe.execute())
        except Exception as exc:  # a scrape must not fail because the broker is down
            logger.warning("queue depth unavailable: %s", type(exc).__name__)
            return
        family.add_metric([self.queue], depth)
        yield family


def scrape(*, multiprocess_dir: str | None, queue_collector: Collector | None = None) -> bytes:
    """The exposition text: every process's samples in multiprocess mode, else this one's."""
    if multiprocess_dir:
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry, path=multiprocess_dir)
    else:
        registry = REGISTRY
    text = generate_latest(registry)
    if queue_collector is not None:
        extra = CollectorRegistry()
        extra.register(queue_collector)
        text += generate_latest(extra)
    return text
