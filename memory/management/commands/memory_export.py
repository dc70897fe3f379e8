"""Export everything held about one end user (the format: docs/gdpr.md).

manage.py memory_export --tenant demo --user priya [--embeddings] [--output export.json]
"""

from __future__ import annotations

import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from core.errors import NotFound
from memory.selectors import end_user_get_for_tenant
from memory.services.export import user_export_stream
from tenants.models import Tenant


class Command(BaseCommand):
    help = "Write one end user's export (JSON, format_version 1) to stdout or a file."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--tenant", required=True, help="tenant slug")
        parser.add_argument("--user", required=True, help="end user external id")
        parser.add_argument("--embeddings", action="store_true", help="include ACU embeddings")
        parser.add_argument("--output", help="file to write (default: stdout)")

    def handle(
        self, *args: Any, tenant: str, user: str, embeddings: bool, output: str | None, **_: Any
    ) -> None:
        found = Tenant.objects.filter(slug=tenant).first()
        if found is None:
            raise CommandError(f"No tenant {tenant!r}.")
        try:
            end_user = end_user_get_for_tenant(tenant_id=found.pk, external_id=user)
        except NotFound as exc:
            raise CommandError(exc.detail) from None
        chunks = user_export_stream(end_user=end_user, embeddings=embeddings)
        if output:
            with open(output, "wb") as sink:
                for chunk in chunks:
                    sink.write(chunk)
            self.stderr.write(f"wrote {output}")
        else:
            for chunk in chunks:
                sys.stdout.buffer.write(chunk)
            sys.stdout.flush()
