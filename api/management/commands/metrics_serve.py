"""``manage.py metrics_serve``: /metrics for a machine that runs only Celery workers.

The API's own /metrics covers the processes of its machine; a worker-only machine has no HTTP
server, so this one serves what its workers wrote to ``PROMETHEUS_MULTIPROC_DIR``.
"""

from __future__ import annotations

import time
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser


class Command(BaseCommand):
    help = "Serve this machine's worker metrics (PROMETHEUS_MULTIPROC_DIR) over HTTP."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default="0.0.0.0")  # noqa: S104  (a scrape target)
        parser.add_argument("--port", type=int, default=9108)

    def handle(self, *args: Any, **options: Any) -> None:
        from prometheus_client import CollectorRegistry, multiprocess, start_http_server

        if not settings.PROMETHEUS_MULTIPROC_DIR:
            raise CommandError("set PROMETHEUS_MULTIPROC_DIR to the directory the workers use")
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry, path=settings.PROMETHEUS_MULTIPROC_DIR)
        start_http_server(options["port"], addr=options["host"], registry=registry)
        self.stderr.write(f"worker metrics on http://{options['host']}:{options['port']}/metrics")
        while True:
            time.sleep(3600)
