"""Smoke test of the embedded runtime: start Handover the way `make run` does, on a fresh var/."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from celery import Celery

ROOT = Path(__file__).resolve().parent.parent


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _get(url: str, key: str | None = None) -> tuple[int, Any]:
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {key}"} if key else {})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def _start(var: Path, port: int, log: Path) -> subprocess.Popen[bytes]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DATABASE_URL", "REDIS_URL", "SECRET_KEY_FILE", "CACHE_KEY_PREFIX"}
    }
    env["HANDOVER_VAR_DIR"] = str(var)
    return subprocess.Popen(
        [sys.executable, "-m", "config.runtime", "run", "--port", str(port), "--workers", "1", "--concurrency", "1"],
        cwd=ROOT, env=env, stdout=log.open("ab"), stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip


def _wait_ready(
    base: str, process: subprocess.Popen[bytes], log: Path, timeout: float = 120
) -> float:
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        assert process.poll() is None, f"runtime exited early:\n{log.read_text()[-4000:]}"
        try:
            if _get(f"{base}/readyz")[0] == 200:
                return time.monotonic() - started
        except OSError:
            pass
        time.sleep(0.25)
    raise AssertionError(f"/readyz not 200 after {timeout}s:\n{log.read_text()[-4000:]}")


def _stop(process: subprocess.Popen[bytes]) -> int:
    process.send_signal(signal.SIGINT)
    return process.wait(60)


@pytest.mark.slow
def test_run_serves_demo_and_a_second_run_reuses_data_and_credentials(tmp_path: Path) -> None:
    var = tmp_path / "var"
    log = tmp_path / "run.log"
    port = _free_port()
    base = f"http://127.0.0.1:{port}"

    process = _start(var, port, log)
    try:
        # The bound: ready within 60 s of start with the venv built (fresh var/ here).
        assert _wait_ready(base, process, log) < 60
        credentials = json.loads((var / "demo-credentials.json").read_text())
        assert set(credentials) == {
            "base_url",
            "api_key",
            "agent",
            "admin_username",
            "admin_password",
        }
        assert credentials["base_url"] == base
        status, agents = _get(f"{base}/v1/agents", credentials["api_key"])
        assert status == 200 and [a["slug"] for a in agents] == [credentials["agent"]]
        assert _get(f"{base}/v1/agents")[0] == 401

        # Metrics: gunicorn's workers count into var/metrics and /metrics adds them up.
        with urllib.request.urlopen(f"{base}/metrics", timeout=5) as response:
            scraped = response.read().decode()
        assert (
            'handover_http_requests_total{endpoint="agent-list",method="GET",status="200"} 1.0'
            in scraped
        )
        assert any((var / "metrics").glob("counter_*.db"))

        # The worker is up and consuming from the real broker.
        broker = Celery(broker=f"redis+socket://{var / 'redis' / 'redis.sock'}")
        replies: list[Any] = []
        deadline = time.monotonic() + 60
        while not replies and time.monotonic() < deadline:
            replies = broker.control.ping(timeout=1.0) or []
        assert replies, f"no Celery worker answered:\n{log.read_text()[-4000:]}"
    finally:
        assert _stop(process) == 0
    # Ctrl-C stopped everything it started.
    assert not (var / "pgdata" / "postmaster.pid").exists()
    assert not (var / "redis" / "redis.sock").exists()

    process = _start(var, port, log)
    try:
        _wait_ready(base, process, log)
        again = json.loads((var / "demo-credentials.json").read_text())
        assert again == credentials
        assert _get(f"{base}/v1/agents", credentials["api_key"])[0] == 200
    finally:
        assert _stop(process) == 0
