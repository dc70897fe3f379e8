"""/metrics scraped from a real gunicorn with several workers: one scrape counts them all."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from django.conf import settings
from prometheus_client.parser import text_string_to_metric_families

from tests.test_worker_e2e import _test_database_url

ROOT = Path(__file__).resolve().parent.parent.parent


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _get(url: str) -> tuple[int, bytes]:
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.status, response.read()


def _readyz_count(text: str) -> float:
    return sum(
        sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name == "handover_http_requests_total" and sample.labels["endpoint"] == "readyz"
    )


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_one_scrape_adds_up_every_gunicorn_worker(tmp_path: Path) -> None:
    metrics_dir = tmp_path / "metrics"
    metrics_dir.mkdir()
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    env = {**os.environ, "DATABASE_URL": _test_database_url(), "PROMETHEUS_MULTIPROC_DIR": str(metrics_dir),
           "CACHE_KEY_PREFIX": str(settings.CACHES["default"]["KEY_PREFIX"]), "LOG_REQUESTS": "false"}  # fmt: skip
    log = (tmp_path / "gunicorn.log").open("wb")
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "config.wsgi", "--bind", f"127.0.0.1:{port}",
         "--workers", "3", "--worker-class", "sync", "--no-control-socket"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while True:
            assert server.poll() is None, (tmp_path / "gunicorn.log").read_text()[-3000:]
            try:
                if _get(f"{base}/healthz")[0] == 200:
                    break
            except OSError:
                assert time.monotonic() < deadline, "gunicorn did not start"
                time.sleep(0.2)

        # Readiness checks from 6 clients at once, until more than one worker has served some
        # (workers that are still starting serve none).
        sent = 0
        writers: set[str] = set()
        while len(writers) < 2:
            assert sent < 600, f"one worker served all {sent} requests"
            with ThreadPoolExecutor(6) as pool:
                statuses = list(pool.map(lambda _: _get(f"{base}/readyz")[0], range(60)))
            assert statuses == [200] * 60
            sent += 60
            writers = {path.stem.rsplit("_", 1)[-1] for path in metrics_dir.glob("counter_*.db")}

        # ...and whichever worker answers the scrape reports every one of them.
        for _ in range(3):
            status, body = _get(f"{base}/metrics")
            assert status == 200
            assert _readyz_count(body.decode()) == sent
    finally:
        server.terminate()
        server.wait(20)


@pytest.mark.slow
def test_metrics_serve_reports_what_worker_processes_counted(tmp_path: Path) -> None:
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(tmp_path)}
    count = (
        "from core import metrics; "
        "metrics.extraction_run_observed('succeeded', {'total': 1500.0}, {'acus': 4})"
    )
    for _ in range(2):  # two worker processes, one run each
        subprocess.run([sys.executable, "-c", count], cwd=ROOT, env=env, check=True)
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "manage.py", "metrics_serve", "--host", "127.0.0.1", "--port", str(port)],
        cwd=ROOT, env=env, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                body = _get(f"http://127.0.0.1:{port}/metrics")[1].decode()
                break
            except OSError:
                assert server.poll() is None and time.monotonic() < deadline
                time.sleep(0.2)
        samples = {
            (s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(body)
            for s in family.samples
        }
        assert samples[("handover_extraction_runs_total", (("status", "succeeded"),))] == 2
        assert samples[("handover_extraction_items_total", (("kind", "acus"),))] == 8
        assert (
            samples[("handover_extraction_stage_duration_seconds_sum", (("stage", "total"),))]
            == 3.0
        )
    finally:
        server.terminate()
        server.wait(20)
