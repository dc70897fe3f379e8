"""The ``extraction_runs`` section of a user's export (memory.services.export imports nothing above it)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from core.text import iso
from extraction.models import ExtractionRun
from memory.models import EndUser
from memory.services.export import CHUNK_ROWS, section_register


def extraction_runs(user: EndUser, agents: dict[int, str]) -> Iterator[dict[str, Any]]:
    runs = ExtractionRun.objects.filter(tenant_id=user.tenant_id, end_user=user).order_by("id")
    for run in runs.iterator(chunk_size=CHUNK_ROWS):
        yield {
            "id": run.pk,
            "agent": agents.get(run.agent_id),
            "status": run.status,
            "trigger": run.trigger,
            "schema_version": run.schema_version,
            "first_turn_id": run.first_turn_id,
            "last_turn_id": run.last_turn_id,
            "timings": run.timings,
            "counts": run.counts,
            "error": run.error,
            "created_at": iso(run.created_at),
            "started_at": iso(run.started_at),
            "finished_at": iso(run.finished_at),
        }


def register() -> None:
    section_register("extraction_runs", extraction_runs)
