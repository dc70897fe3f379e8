"""End to end with a real Celery worker on the real broker: turns over HTTP past the threshold,
then the extracted facts show up at session start; then an erase runs to the end in batches."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.db import connection

from schemas.defaults import PROPERTY_ADVISOR
from schemas.services import agent_create
from tenants.models import KeyRole, Tenant
from tenants.services import api_key_create
from tests.conftest import Key

ROOT = Path(__file__).resolve().parent.parent


def _test_database_url() -> str:
    db = connection.settings_dict
    auth = f"{db['USER']}:{db['PASSWORD']}@" if db["USER"] else ""
    if str(db["HOST"]).startswith("/"):
        return f"postgresql://{auth}/{db['NAME']}?host={db['HOST']}"
    return f"postgresql://{auth}{db['HOST']}:{db['PORT'] or 5432}/{db['NAME']}"


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_worker_extracts_after_the_threshold_and_session_start_shows_it(
    tenant_a: Tenant, tmp_path: Path
) -> None:
    from config.celery import app

    queue = f"hv-test-{uuid.uuid4().hex[:8]}"
    app.conf.task_always_eager = False
    app.conf.task_default_queue = queue
    env = {
        **os.environ,
        "DATABASE_URL": _test_database_url(),
        "CELERY_QUEUE": queue,
        "CACHE_KEY_PREFIX": str(settings.CACHES["default"]["KEY_PREFIX"]),
        "LIFECYCLE_BATCH_ROWS": "5",
    }  # fmt: skip  (an erase of 13 turns: several messages)
    log = (tmp_path / "worker.log").open("wb")
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "-Q", queue, "--concurrency", "1",
         "--pool", "solo", "--loglevel", "INFO", "--hostname", f"{queue}@test"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        agent_create(tenant_id=tenant_a.pk, slug="property", name="P", schema_fields=PROPERTY_ADVISOR,
                     settings={"extraction_token_threshold": 200}, actor="t")  # fmt: skip
        model, raw = api_key_create(tenant=tenant_a, name="agent", role=KeyRole.AGENT, actor="t")
        client = Key(model, raw).client()
        opened = client.post(
            "/v1/sessions",
            {"agent": "property", "user": "priya", "session": "call-1"},
            format="json",
        )
        session = opened.json()["session_id"]
        lines = [
            "Hi, I'm Priya and I live in Pune.",
            "My budget is 80 lakhs and I want a 3BHK apartment close to the metro station.",
            "We would like to move in by 15 June, ideally before the school year starts for the kids.",
        ] + [
            f"Please also remember detail number {i} about parking, lifts and power backup."
            for i in range(10)
        ]
        request_ids = set()
        for line in lines:
            appended = client.post(
                f"/v1/sessions/{session}/turns", {"role": "user", "text": line}, format="json"
            )
            assert appended.status_code == 201
            request_ids.add(appended["X-Request-ID"])

        deadline = time.monotonic() + 30
        body: dict[str, Any] = {}
        while time.monotonic() < deadline:
            body = client.post(
                "/v1/sessions",
                {"agent": "property", "user": "priya", "session": "call-1"},
                format="json",
            ).json()
            if any(f["key"] == "budget" for f in body["facts"]):
                break
            time.sleep(0.3)
        log.flush()
        worker_log = (tmp_path / "worker.log").read_text()[-3000:]
        assert [f["value_text"] for f in body["facts"] if f["key"] == "budget"] == ["₹80 lakh"], (
            worker_log
        )
        assert body["profile"]["city"]["value_text"] == "Pune"
        # The worker logs JSON too; the task's lines carry its id and the id of the request
        # (the append that crossed the threshold) that sent it.
        logged = [json.loads(line) for line in (tmp_path / "worker.log").read_text().splitlines()
                  if line.startswith("{")]  # fmt: skip
        done = [entry for entry in logged if entry["logger"] == "celery.app.trace"]
        assert done and done[0]["task_id"] == done[0]["data"]["id"], done
        assert done[0]["request_id"] in request_ids, (done, request_ids)
        assert "## Current facts" in body["context_block"] and "₹80 lakh" in body["context_block"]

        model, raw = api_key_create(tenant=tenant_a, name="op", role=KeyRole.OPERATOR, actor="t")
        operator = Key(model, raw).client()
        job = operator.delete("/v1/users/priya")
        assert job.status_code == 202, job.json()
        status: dict[str, Any] = {}
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            status = operator.get(f"/v1/erasures/{job.json()['id']}").json()
            if status["status"] == "done":
                break
            time.sleep(0.3)
        log.flush()
        worker_log = (tmp_path / "worker.log").read_text()
        assert status["status"] == "done", worker_log[-3000:]
        assert status["counts"]["memory.Turn"] == 13 and status["counts"]["memory.EndUser"] == 1
        assert worker_log.count("memory.erasure_step") >= 2 * 4  # ≥ 4 messages (received, done)
        from memory.models import EndUser

        assert not EndUser.objects.filter(tenant=tenant_a).exists()
    finally:
        worker.terminate()
        worker.wait(20)
        app.conf.task_default_queue = settings.CELERY_TASK_DEFAULT_QUEUE
