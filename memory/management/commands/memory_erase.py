"""Erase everything held about one end user (guarantees and limits: docs/gdpr.md).

manage.py memory_erase --tenant demo --user priya          # enqueue the job, print its id
manage.py memory_erase --tenant demo --user priya --now    # run it here, to the end
manage.py memory_erase --tenant demo --resume <erasure id> # restart a failed job
"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from core.errors import NotFound
from memory.models import Erasure
from memory.services.erasure import (
    erasure_get_for_tenant,
    erasure_request,
    erasure_resume,
    erasure_run_to_end,
)
from tenants.models import Tenant


class Command(BaseCommand):
    help = "Erase one end user from every table and from Redis; leaves a tombstone."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--tenant", required=True, help="tenant slug")
        target = parser.add_mutually_exclusive_group(required=True)
        target.add_argument("--user", help="end user external id")
        target.add_argument("--resume", help="id of a failed erasure to restart")
        parser.add_argument("--now", action="store_true", help="run the job in this process")
        parser.add_argument("--actor", default="manage.py", help="who asked (for the audit log)")

    def handle(self, *args: Any, **options: Any) -> None:
        tenant = Tenant.objects.filter(slug=options["tenant"]).first()
        if tenant is None:
            raise CommandError(f"No tenant {options['tenant']!r}.")
        enqueue = not options["now"]  # --now: run it here rather than through the broker
        try:
            if options["resume"]:
                erasure = erasure_resume(
                    erasure=erasure_get_for_tenant(
                        tenant_id=tenant.pk, erasure_id=options["resume"]
                    ),
                    enqueue=enqueue,
                )
            else:
                erasure, _ = erasure_request(
                    tenant_id=tenant.pk,
                    external_id=options["user"],
                    actor=f"cli:{options['actor']}",
                    enqueue=enqueue,
                )
        except NotFound as exc:
            raise CommandError(exc.detail) from None
        if options["now"]:
            erasure = erasure_run_to_end(erasure_id=erasure.pk)
        self.stdout.write(json.dumps(_body(erasure), indent=2))


def _body(erasure: Erasure) -> dict[str, Any]:
    return {"id": str(erasure.pk), "status": erasure.status, "counts": erasure.counts}
