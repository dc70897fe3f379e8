"""A real Celery worker on the real broker: the delivery is sent after the request commits,
a 500 is retried by a delayed message with backoff, and the retry is signed anew with the same
webhook-id."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from django.conf import settings

from schemas.models import Agent
from tests.conftest import Key
from tests.test_worker_e2e import ROOT, _test_database_url
from tests.webhooks.receiver import Receiver
from tests.webhooks.test_delivery import create, verify
from webhooks.models import WebhookDelivery


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_worker_delivers_after_commit_and_retries_a_500(
    operator_key_a: Key, agent_a: Agent, receiver: Receiver, tmp_path: Path
) -> None:
    from config.celery import app

    queue = f"hv-test-{uuid.uuid4().hex[:8]}"
    app.conf.task_always_eager = False
    app.conf.task_default_queue = queue
    env = {
        **os.environ, "DATABASE_URL": _test_database_url(), "CELERY_QUEUE": queue,
        "CACHE_KEY_PREFIX": str(settings.CACHES["default"]["KEY_PREFIX"]),
        "WEBHOOK_ALLOW_PRIVATE": "true", "WEBHOOK_RETRY_SECONDS": "1",
    }  # fmt: skip
    log_path = tmp_path / "worker.log"
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "-Q", queue, "--concurrency", "1",
         "--pool", "solo", "--loglevel", "INFO", "--hostname", f"{queue}@test"],
        cwd=ROOT, env=env, stdout=log_path.open("wb"), stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        hook = create(operator_key_a, receiver.url, ["fact.created"])
        receiver.statuses = [500, 200]
        written = operator_key_a.client().post(
            "/v1/users/u1/facts",
            {"agent": "advisor", "key": "city", "value": "Pune"},
            format="json",
        )
        assert written.status_code == 201
        deadline = time.monotonic() + 60
        while len(receiver.requests) < 2 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert len(receiver.requests) == 2, log_path.read_text()[-3000:]
        first, second = receiver.requests
        assert first.headers["webhook-id"] == second.headers["webhook-id"]
        assert verify(hook["secret"], second)["data"]["id"] == written.json()["id"]
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            delivery = WebhookDelivery.objects.get()
            if delivery.status == "delivered":
                break
            time.sleep(0.2)
        assert (delivery.status, delivery.attempts, delivery.response_code) == ("delivered", 2, 200)
    finally:
        worker.terminate()
        worker.wait(20)
        app.conf.task_default_queue = settings.CELERY_TASK_DEFAULT_QUEUE
        app.conf.task_always_eager = True
