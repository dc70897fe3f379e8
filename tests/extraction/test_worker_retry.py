"""With a real worker on the real broker, a run whose model stays down is retried with backoff
and then recorded as failed (core.tasks.RetryingTask outside eager mode)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from django.conf import settings

from extraction import queue
from extraction.models import ExtractionRun, RunStatus
from memory.models import EndUser
from schemas.models import Agent
from tests.test_worker_e2e import _test_database_url

ROOT = Path(__file__).resolve().parent.parent.parent

# The worker of this test: its model endpoint is down, and it gives up after one retry (5 s)
# instead of five (2.5 minutes).
WORKER = """
import sys

from config.celery import app
import django

django.setup()
from extraction import pipeline
from extraction.tasks import extraction_run


def down(run):
    raise TimeoutError("model endpoint timed out")


pipeline.execute = down
extraction_run.max_retries = 1
queue = sys.argv[1]
app.worker_main(["worker", "-Q", queue, "--pool", "solo", "--concurrency", "1",
                 "--loglevel", "INFO", "--hostname", f"{queue}@test"])
"""


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_worker_retries_a_failing_run_then_records_it_failed(
    property_agent: Agent, tmp_path: Path
) -> None:
    from config.celery import app

    name = f"hv-test-{uuid.uuid4().hex[:8]}"
    app.conf.task_always_eager = False
    app.conf.task_default_queue = name
    env = {
        **os.environ,
        "DATABASE_URL": _test_database_url(),
        "CELERY_QUEUE": name,
        "CACHE_KEY_PREFIX": str(settings.CACHES["default"]["KEY_PREFIX"]),
    }
    log_path = tmp_path / "worker.log"
    log = log_path.open("wb")
    worker = subprocess.Popen(
        [sys.executable, "-c", WORKER, name],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        user = EndUser.objects.create(tenant_id=property_agent.tenant_id, external_id="priya")
        run = ExtractionRun.objects.create(
            tenant_id=property_agent.tenant_id, agent=property_agent, end_user=user
        )
        assert queue.run_send(run.pk)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            run.refresh_from_db()
            if run.status == RunStatus.FAILED:
                break
            time.sleep(0.3)
        log.flush()
        worker_log = log_path.read_text()
        assert run.status == RunStatus.FAILED, worker_log[-3000:]
        assert run.error == "gave up after 1 retries: model endpoint timed out"
        assert "Retry in 5s" in worker_log, worker_log[-3000:]
    finally:
        worker.terminate()
        worker.wait(20)
        app.conf.task_default_queue = settings.CELERY_TASK_DEFAULT_QUEUE
