"""Real Celery workers on the brokers a deployment may pick (ADR 0028): the write lane on Redis
and on RabbitMQ; and two workers on two per-user queues (CELERY_USER_QUEUES) sharing one
tenant's users without ever both holding one user."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from celery.signals import before_task_publish
from django.conf import settings
from kombu import pools as kombu_pools

from core.routing import user_queue_index
from extraction.models import ExtractionRun
from schemas.defaults import PROPERTY_ADVISOR
from schemas.services import agent_create
from tenants.models import KeyRole, Tenant
from tenants.services import api_key_create
from tests.conftest import Key
from tests.test_worker_e2e import ROOT, _test_database_url

RABBITMQ = "amqp://guest:guest@127.0.0.1:5672//"
LINES = [
    "Hi, I'm {name} and I live in Pune.",
    "My budget is 80 lakhs and I want a 3BHK apartment close to the metro station.",
    "We would like to move in by 15 June, ideally before the school year starts for the kids.",
] + [
    f"Please also remember detail number {i} about parking, lifts and power backup."
    for i in range(12)
]
# ≈ 245 tokens: one extraction run each time a user says them (the threshold's minimum is 200).


def _rabbitmq_listens() -> bool:
    with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", 5672), 1):
        return True
    return False


@contextlib.contextmanager
def _broker(url: str, queue: str) -> Iterator[None]:
    """This process's Celery sends to ``url`` (its pools rebuilt), queue ``queue``."""
    from config.celery import app

    saved = (app.conf["broker_url"], app.conf.task_default_queue)

    def reset() -> None:
        # The app's connection and producer pools were made for the broker it had.
        kombu_pools.reset()
        setattr(app, "_pool", None)  # noqa: B010
        setattr(app.amqp, "_producer_pool", None)  # noqa: B010

    reset()
    app.conf["broker_url"], app.conf.task_default_queue = url, queue
    app.conf.task_always_eager = False
    try:
        yield
    finally:
        reset()
        app.conf["broker_url"], app.conf.task_default_queue = saved


def _worker(url: str, queues: str, name: str, log: Path, **env: str) -> subprocess.Popen[bytes]:
    environment = {
        **os.environ,
        "DATABASE_URL": _test_database_url(),
        "CELERY_BROKER_URL": url,
        "CELERY_QUEUE": queues.split(",")[0].rsplit(".", 1)[0],
        "CACHE_KEY_PREFIX": str(settings.CACHES["default"]["KEY_PREFIX"]),
        **env,
    }
    return subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "-Q", queues, "--concurrency",
         "1", "--pool", "solo", "--loglevel", "INFO", "--hostname", f"{name}@test"],
        cwd=ROOT, env=environment, stdout=log.open("wb"), stderr=subprocess.STDOUT,
    )  # fmt: skip


def _stop(*workers: subprocess.Popen[bytes]) -> None:
    for worker in workers:
        worker.terminate()
    for worker in workers:
        try:
            worker.wait(20)
        except subprocess.TimeoutExpired:
            worker.kill()


def _talk(client: Any, user: str) -> None:
    opened = client.post("/v1/sessions", {"agent": "property", "user": user}, format="json")
    turns = [{"role": "user", "text": line.format(name=user.title())} for line in LINES]
    appended = client.post(
        f"/v1/sessions/{opened.json()['session_id']}/turns:batch", {"turns": turns}, format="json"
    )
    assert appended.status_code == 201, appended.json()


def _wait_for_runs(count: int, log: str, seconds: float = 25) -> list[ExtractionRun]:
    deadline = time.monotonic() + seconds
    runs: list[ExtractionRun] = []
    while time.monotonic() < deadline:
        runs = list(ExtractionRun.objects.filter(status="succeeded").order_by("pk"))
        if len(runs) >= count:
            return runs
        time.sleep(0.2)
    raise AssertionError(
        f"{len(runs)} of {count} runs done: "
        f"{list(ExtractionRun.objects.values_list('status', 'error'))}\n{log[-3000:]}"
    )


@pytest.fixture
def agent_client(tenant_a: Tenant) -> Any:
    agent_create(tenant_id=tenant_a.pk, slug="property", name="P", schema_fields=PROPERTY_ADVISOR,
                 settings={"extraction_token_threshold": 200}, actor="t")  # fmt: skip
    model, raw = api_key_create(tenant=tenant_a, name="agent", role=KeyRole.AGENT, actor="t")
    return Key(model, raw).client()


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("broker", ["redis", "rabbitmq"])
def test_a_worker_runs_the_write_lane_on_the_broker(
    broker: str, agent_client: Any, tmp_path: Path
) -> None:
    if broker == "rabbitmq" and not _rabbitmq_listens():
        pytest.skip("no RabbitMQ on 127.0.0.1:5672 (Debian: apt-get install rabbitmq-server)")
    url = RABBITMQ if broker == "rabbitmq" else settings.CELERY_BROKER_URL
    queue = f"hv-test-{uuid.uuid4().hex[:8]}"
    log = tmp_path / "worker.log"
    with _broker(url, queue):
        worker = _worker(url, queue, queue, log)
        try:
            _talk(agent_client, "priya")
            _wait_for_runs(1, log.read_text() if log.exists() else "")
        finally:
            _stop(worker)
            if broker == "rabbitmq":
                from kombu import Connection

                with Connection(url) as connection:
                    connection.default_channel.queue_delete(queue)  # type: ignore[attr-defined]
    body = agent_client.post(
        "/v1/sessions", {"agent": "property", "user": "priya"}, format="json"
    ).json()
    assert [f["value_text"] for f in body["facts"] if f["key"] == "budget"] == ["₹80 lakh"]
    worker_log = log.read_text()
    assert f"{queue}@test ready" in worker_log
    assert f"Connected to {'amqp' if broker == 'rabbitmq' else 'redis'}" in worker_log


def _users_on_both_queues(client: Any, tenant: Tenant, *, per_queue: int) -> list[str]:
    """Users (created by opening a session) until each of the two queues has ``per_queue``."""
    from memory.models import EndUser

    chosen: dict[int, list[str]] = {0: [], 1: []}
    for n in range(64):
        name = f"user-{n}"
        client.post("/v1/sessions", {"agent": "property", "user": name}, format="json")
        user = EndUser.objects.get(tenant=tenant, external_id=name)
        index = user_queue_index(tenant.pk, user.pk)
        if len(chosen[index]) < per_queue:
            chosen[index].append(name)
        if all(len(names) == per_queue for names in chosen.values()):
            return chosen[0] + chosen[1]
    raise AssertionError(chosen)


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_two_workers_on_two_queues_never_share_a_user(
    agent_client: Any, tenant_a: Tenant, tmp_path: Path, settings: Any
) -> None:
    settings.CELERY_USER_QUEUES = 2
    base = f"hv-test-{uuid.uuid4().hex[:8]}"
    url = settings.CELERY_BROKER_URL
    users = _users_on_both_queues(agent_client, tenant_a, per_queue=2)
    sent: dict[str, tuple[int, str]] = {}  # task id → (run id, queue)

    def record(sender: str | None = None, headers: Any = None, body: Any = None,
               routing_key: str = "", **kwargs: Any) -> None:  # fmt: skip
        if sender == "extraction.run":
            sent[headers["id"]] = (body[0][0], routing_key)

    before_task_publish.connect(record, weak=False)
    logs = [tmp_path / "worker-0.log", tmp_path / "worker-1.log"]
    with _broker(url, base):
        workers = [
            _worker(url, f"{base}.{n}", f"{base}-{n}", logs[n], CELERY_USER_QUEUES="2")
            for n in range(2)
        ]
        try:
            for _ in range(2):  # two runs per user, one after the other
                done = ExtractionRun.objects.filter(status="succeeded").count()
                for user in users:
                    _talk(agent_client, user)
                _wait_for_runs(done + len(users), "\n".join(p.read_text() for p in logs))
        finally:
            before_task_publish.disconnect(record)
            _stop(*workers)

    runs = list(ExtractionRun.objects.order_by("pk"))
    assert len(runs) == 2 * len(users) and {r.status for r in runs} == {"succeeded"}
    handled: dict[str, int] = {}  # task id → the worker that ran it
    for n, path in enumerate(logs):
        for line in path.read_text().splitlines():
            if line.startswith("{"):
                entry = json.loads(line)
                if entry["logger"] == "celery.app.trace" and "succeeded" in entry["message"]:
                    assert handled.setdefault(entry["task_id"], n) == n
    by_run = {run_id: (task, queue) for task, (run_id, queue) in sent.items()}
    workers_of_user: dict[int, set[int]] = {}
    for run in runs:
        task, queue = by_run[run.pk]
        index = user_queue_index(run.tenant_id, run.end_user_id)
        assert queue == f"{base}.{index}"  # routed by the hash of (tenant, user)
        workers_of_user.setdefault(run.end_user_id, set()).add(handled[task])
    # Each user's runs all ran on its queue's one worker; both workers had users.
    assert all(len(ran_on) == 1 for ran_on in workers_of_user.values()), workers_of_user
    assert {n for ran_on in workers_of_user.values() for n in ran_on} == {0, 1}
    # And no two runs of one user overlapped in time.
    for end_user_id in workers_of_user:
        spans = sorted(
            (r.started_at.timestamp(), r.finished_at.timestamp())
            for r in runs
            if r.end_user_id == end_user_id and r.started_at and r.finished_at
        )
        assert len(spans) == 2, spans
        assert spans[0][1] <= spans[1][0], spans
