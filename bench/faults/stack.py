"""The stack under test: PostgreSQL, Redis, gunicorn and a Celery worker, each a process of ours."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bench.latency import Client
from config import runtime

ROOT = Path(__file__).resolve().parents[2]
MODEL_KEY_ENV = "HV_FAULTS_MODEL_KEY"
MODEL_CONNECTION = "faults-model"
MODEL_TIMEOUT_SECONDS = 1  # OPENAI_TIMEOUT for the stack: a hung model costs a run 1 s


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Stack:
    """PostgreSQL, Redis, gunicorn and a Celery worker under ``root``, each under our control."""

    def __init__(
        self, root: Path, *, web_workers: int = 4, web_threads: int = 1, concurrency: int = 1
    ) -> None:
        self.root = root
        self.var = root / "var"
        self.pgdata = self.var / "pgdata"
        self.port = _free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        # The deployment's model connection (MODEL_CONNECTIONS) points here before the
        # scripted model that answers on it exists (the model scenario starts it).
        self.model_port = _free_port()
        self.web_workers, self.web_threads, self.concurrency = (
            web_workers,
            web_threads,
            concurrency,
        )
        self.exit = contextlib.ExitStack()
        self.web: subprocess.Popen[bytes] | None = None
        self.worker: subprocess.Popen[bytes] | None = None
        self.redis: subprocess.Popen[bytes] | None = None
        self.env: dict[str, str] = {}
        self.key = ""

    def __enter__(self) -> Stack:
        try:
            self.start()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> None:
        self.var.mkdir(parents=True, exist_ok=True)
        self.db_url = self.exit.enter_context(runtime.embedded_postgres(self.var))
        self.redis = runtime.redis_start(self.var)
        self.redis_sock = self.var / "redis" / "redis.sock"
        drop = {"DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL", "SECRET_KEY", "SECRET_KEY_FILE",
                "CACHE_KEY_PREFIX", "CELERY_QUEUE", "CELERY_TASK_ALWAYS_EAGER"}  # fmt: skip
        self.env = {k: v for k, v in os.environ.items() if k not in drop}
        # Bounded load from few keys, far over any per-key limit: the limiter is not under test.
        self.env.setdefault("API_KEY_RATE_PER_MINUTE", "0")
        self.env.update(
            {
                "DJANGO_SETTINGS_MODULE": "config.settings",
                "HANDOVER_VAR_DIR": str(self.var),
                "DATABASE_URL": self.db_url,
                "REDIS_URL": f"unix://{self.redis_sock}",
                "SECRET_KEY": "faults-" + "x" * 40,
                "ACCESS_LOG": "false",
                "OPENAI_TIMEOUT": str(MODEL_TIMEOUT_SECONDS),
                MODEL_KEY_ENV: "sk-faults",
                # The scripted model the model scenario starts on this port, on loopback.
                "MODEL_CONNECTIONS": json.dumps(
                    {
                        MODEL_CONNECTION: {
                            "base_url": f"http://127.0.0.1:{self.model_port}/v1",
                            "api_key_env": MODEL_KEY_ENV,
                            "allow_private": True,
                        }
                    }
                ),
            }
        )
        credentials = self.var / "demo-credentials.json"
        runtime.prepare(self.env, self.base_url, credentials, static=False)
        self.key = json.loads(credentials.read_text())["api_key"]
        self.start_web()
        self.start_worker()

    def _spawn(self, args: list[str], log: str) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            args, cwd=ROOT, env=self.env, stdout=(self.root / log).open("ab"),
            stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip

    def start_web(self) -> None:
        self.web = self._spawn(
            runtime.gunicorn_command("127.0.0.1", self.port, self.web_workers, self.web_threads),
            "web.log",
        )
        deadline = time.monotonic() + 60
        while not self.ready():
            if self.web.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"the server did not start; see {self.root / 'web.log'}")
            time.sleep(0.1)

    def ready(self) -> bool:
        try:
            status, *_ = Client(self.port, "-").call("GET", "/readyz")
        except OSError:
            return False
        return status == 200

    def web_pids(self) -> set[int]:
        assert self.web is not None
        found = subprocess.run(
            ["pgrep", "-g", str(self.web.pid)], capture_output=True, text=True, check=False
        )
        return {int(pid) for pid in found.stdout.split()}

    def start_worker(self) -> None:
        self.worker = self._spawn(
            runtime.worker_command(self.concurrency, f"faults@{self.port}"), "worker.log"
        )

    def kill_worker(self) -> None:
        """SIGKILL the worker and its pool processes at once: no graceful anything."""
        assert self.worker is not None
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.worker.pid, signal.SIGKILL)
        self.worker.wait(10)

    def stop_redis(self) -> None:
        assert self.redis is not None
        runtime.redis_stop(self.redis, kill=True)

    def start_redis(self) -> None:
        self.redis = runtime.redis_start(self.var)

    def stop_postgres(self) -> None:
        runtime.postgres_stop(self.pgdata)

    def start_postgres(self) -> None:
        runtime.postgres_start(self.pgdata)

    @contextlib.contextmanager
    def db(self) -> Iterator[Any]:
        import psycopg

        with psycopg.connect(self.db_url, autocommit=True) as connection:
            yield connection

    def redis_client(self) -> Any:
        import redis

        return redis.Redis(unix_socket_path=str(self.redis_sock))

    def client(self) -> Client:
        return Client(self.port, self.key)

    def close(self) -> None:
        for process in (self.web, self.worker):
            if process is not None and process.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGTERM)
        for process in (self.web, self.worker):
            if process is not None:
                try:
                    process.wait(20)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, signal.SIGKILL)
        if self.redis is not None:
            runtime.redis_stop(self.redis)
        self.exit.close()
        # pgserver's atexit hook would log "exiting …" once more, into whatever stream a test
        # runner has closed by then; the server is stopped already.
        logging.getLogger("pgserver").disabled = True
