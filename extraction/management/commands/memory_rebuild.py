"""Rebuild derived memory (facts the write lane made, memory units, summaries, hot documents)
from the turn log with each agent's active schema: how a schema change reaches old
conversations.

    manage.py memory_rebuild --tenant demo [--agent demo] [--user priya]
"""

from __future__ import annotations

import sys
import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from extraction.services import extraction_rebuild_user
from memory.models import HotDocument, Turn
from tenants.models import Tenant


class Command(BaseCommand):
    help = "Rebuild facts, memory units, summaries and hot documents from the turn log."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--tenant", required=True, help="tenant slug")
        parser.add_argument("--agent", help="agent slug (default: every agent)")
        parser.add_argument("--user", help="end user external id (default: every user)")

    def handle(
        self, *args: Any, tenant: str, agent: str | None, user: str | None, **options: Any
    ) -> None:
        found = Tenant.objects.filter(slug=tenant).first()
        if found is None:
            raise CommandError(f"No tenant {tenant!r}.")
        pairs = Turn.objects.filter(tenant=found)
        if agent:
            pairs = pairs.filter(agent__slug=agent)
        if user:
            pairs = pairs.filter(end_user__external_id=user)
        targets = list(
            pairs.values_list("agent_id", "end_user_id")
            .distinct()
            .order_by("agent_id", "end_user_id")
        )
        if not targets:
            raise CommandError("Nothing to rebuild: no turns match.")
        started = time.monotonic()
        totals = {"facts": 0, "acus": 0, "turns": 0}
        for index, (agent_id, end_user_id) in enumerate(targets, 1):
            runs = extraction_rebuild_user(
                agent_id=agent_id, end_user_id=end_user_id, tenant_id=found.pk
            )
            for run in runs:
                for name in totals:
                    totals[name] += int(run.counts.get(name, 0))
            failed = [r for r in runs if r.status != "succeeded"]
            width = 30
            filled = width * index // len(targets)
            sys.stderr.write(
                f"\r[{'#' * filled}{'.' * (width - filled)}] {index}/{len(targets)} users "
                f"· {totals['turns']} turns · {totals['facts']} facts · {totals['acus']} units"
            )
            if failed:
                sys.stderr.write(
                    f"\n  agent {agent_id} user {end_user_id}: run {failed[0].pk} {failed[0].status}: {failed[0].error}\n"
                )
        sys.stderr.write("\n")
        documents = HotDocument.objects.filter(tenant=found).count()
        self.stdout.write(
            f"rebuilt {len(targets)} users in {time.monotonic() - started:.1f}s: {totals['turns']} turns, "
            f"{totals['facts']} facts, {totals['acus']} memory units ({documents} hot documents)"
        )
