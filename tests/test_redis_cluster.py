"""The call path on a real Redis Cluster (ADR 0028): three ``redis-server`` processes in cluster
mode on loopback ports, slots spread by ``redis-cli --cluster create``, the service's cache on
it through ``REDIS_CLUSTER`` (core/redis_cluster.py). Session start, appends and context run
against it, and a hot document's two keys sit in one slot."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.test import override_settings

from schemas.services import agent_create
from tenants.models import KeyRole, Tenant
from tenants.services import api_key_create
from tests.conftest import Key

REDIS_SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"
REDIS_CLI = shutil.which("redis-cli") or "/usr/bin/redis-cli"
NODES = 3

NO_REDIS_BINARIES = pytest.mark.skipif(
    not (Path(REDIS_SERVER).exists() and Path(REDIS_CLI).exists()),
    reason="redis-server / redis-cli not installed (Debian: apt-get install redis-server)",
)
ROOT = Path(__file__).resolve().parent.parent


def _free_ports(count: int) -> list[int]:
    # Cluster nodes also listen on port + 10000 (the bus): both must be free.
    ports: list[int] = []
    while len(ports) < count:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        if port + 10000 < 65536 and port not in ports:
            with socket.socket() as bus:
                try:
                    bus.bind(("127.0.0.1", port + 10000))
                except OSError:
                    continue
            ports.append(port)
    return ports


@pytest.fixture
def redis_cluster(tmp_path: Path) -> Iterator[list[int]]:
    ports = _free_ports(NODES)
    processes = []
    try:
        for port in ports:
            directory = tmp_path / str(port)
            directory.mkdir()
            processes.append(
                subprocess.Popen(
                    [
                        REDIS_SERVER,
                        "--port",
                        str(port),
                        "--bind",
                        "127.0.0.1",
                        "--cluster-enabled",
                        "yes",
                        "--cluster-config-file",
                        "nodes.conf",
                        "--cluster-node-timeout",
                        "2000",
                        "--appendonly",
                        "no",
                        "--save",
                        "",
                        "--dir",
                        str(directory),
                        "--logfile",
                        str(directory / "redis.log"),
                    ],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.STDOUT,
                )
            )
        for port in ports:
            _wait(lambda port=port: _cli(port, "ping") == "PONG", f"node {port} did not start")
        subprocess.run(
            [REDIS_CLI, "--cluster", "create", *(f"127.0.0.1:{port}" for port in ports),
             "--cluster-replicas", "0", "--cluster-yes"],
            check=True, capture_output=True, timeout=30,
        )  # fmt: skip
        for port in ports:
            _wait(
                lambda port=port: "cluster_state:ok" in _cli(port, "cluster", "info"),
                f"node {port} never saw the cluster ok",
            )
        yield ports
    finally:
        from core.redis_cluster import ClusterConnectionFactory

        ClusterConnectionFactory.forget()
        for process in processes:
            process.terminate()
        for process in processes:
            process.wait(10)


def _cli(port: int, *args: str) -> str:
    done = subprocess.run(
        [REDIS_CLI, "-p", str(port), *args], capture_output=True, text=True, timeout=5
    )
    return done.stdout.strip()


def _wait(check: Any, message: str, seconds: float = 15) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.1)
    raise AssertionError(message)


def _cluster_caches(port: int) -> dict[str, Any]:
    caches: dict[str, Any] = {name: dict(value) for name, value in settings.CACHES.items()}
    caches["default"]["LOCATION"] = f"redis://127.0.0.1:{port}/0"
    caches["default"]["OPTIONS"] = {
        **caches["default"]["OPTIONS"],
        "CONNECTION_FACTORY": "core.redis_cluster.ClusterConnectionFactory",
    }
    return caches


@pytest.mark.parametrize("broker", ["amqp://guest:guest@127.0.0.1:5672//", None])
def test_redis_cluster_selects_the_cluster_client_and_wants_a_broker_of_its_own(
    broker: str | None,
) -> None:
    env = {**os.environ, "REDIS_CLUSTER": "true", "SECRET_KEY": "x" * 40}
    env.pop("CELERY_BROKER_URL", None)
    if broker:
        env["CELERY_BROKER_URL"] = broker
    done = subprocess.run(
        [sys.executable, "-c", "from config import settings as s; "
         "print(s.CACHES['default']['OPTIONS']['CONNECTION_FACTORY'], s.CELERY_BROKER_URL)"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    if broker:
        assert done.stdout.split() == ["core.redis_cluster.ClusterConnectionFactory", broker]
    else:
        assert done.returncode != 0 and "needs CELERY_BROKER_URL" in done.stderr


@NO_REDIS_BINARIES
@pytest.mark.slow
@pytest.mark.django_db
def test_session_start_append_and_context_on_a_three_node_redis_cluster(
    tenant_a: Tenant, redis_cluster: list[int]
) -> None:
    from django_redis import get_redis_connection
    from redis.cluster import RedisCluster

    from memory.hot.cache import hot_cache_evict, hot_cache_get
    from memory.models import HotDocument

    agent_create(tenant_id=tenant_a.pk, slug="demo", name="D", actor="t")
    model, raw = api_key_create(tenant=tenant_a, name="agent", role=KeyRole.AGENT, actor="t")
    with override_settings(CACHES=_cluster_caches(redis_cluster[0])):
        client_redis = get_redis_connection("default")
        assert isinstance(client_redis, RedisCluster)
        assert len(client_redis.get_nodes()) == NODES
        client = Key(model, raw).client()
        users = ["priya", "jose", "mei", "tobi"]
        for user in users:
            opened = client.post("/v1/sessions", {"agent": "demo", "user": user}, format="json")
            assert opened.status_code == 201, opened.json()
            session = opened.json()["session_id"]
            for seq, text in enumerate(["Hi, budget is 80 lakhs.", "Pune, near the metro."], 1):
                appended = client.post(
                    f"/v1/sessions/{session}/turns",
                    {"role": "user", "text": text, "seq": seq},
                    format="json",
                )
                assert appended.status_code == 201, appended.json()
            again = client.post(
                f"/v1/sessions/{session}/turns",
                {"role": "user", "text": "Pune, near the metro.", "seq": 2},
                format="json",
            )
            assert again.status_code == 200  # exactly once, on the cluster too
            context = client.post("/v1/context", {"session": session}, format="json")
            assert context.status_code == 200, context.json()
            assert "Pune, near the metro." in context.json()["context"]
            resumed = client.post("/v1/sessions", {"agent": "demo", "user": user}, format="json")
            assert [t["text"] for t in resumed.json()["recent_turns"]] == [
                "Hi, budget is 80 lakhs.",
                "Pune, near the metro.",
            ]

        from django.core.cache import cache

        slots = set()
        for document in HotDocument.objects.filter(tenant=tenant_a):
            cached = hot_cache_get(document.cache_key)
            assert cached is not None and cached["version"] == document.version
            names = [
                cache.make_key(document.cache_key),
                cache.make_key(f"{document.cache_key}:tail"),
            ]
            assert client_redis.exists(*names) == 2
            pair = {client_redis.keyslot(name) for name in names}
            assert len(pair) == 1, names  # the hash tag: a document's keys share one slot
            slots |= pair
        assert len(slots) == len(users)  # and the users spread over slots (and so nodes)
        nodes = {client_redis.nodes_manager.get_node_from_slot(slot).name for slot in slots}
        assert nodes <= {f"127.0.0.1:{port}" for port in redis_cluster}
        # The rest of the call path used the cluster too, not a silent fallback to PostgreSQL:
        # the API key's cache entry and the rate-limit counter are there.
        names = [key.decode() for key in client_redis.scan_iter(match="*", count=1000)]
        assert any(":rate:" in name for name in names), names
        assert any("apikey" in name for name in names), names
        # An erase-style eviction of every document: one DEL split across slots by redis-py.
        documents = [d.cache_key for d in HotDocument.objects.filter(tenant=tenant_a)]
        assert hot_cache_evict(documents, strict=True) == 2 * len(users)
        assert all(hot_cache_get(key) is None for key in documents)
