"""Webhook events of extraction runs: ``run.completed`` and ``run.failed`` (ADR 0031)."""

from __future__ import annotations

from typing import Any

from extraction.models import ExtractionRun, RunStatus
from memory.models import EndUser
from schemas.models import Agent
from webhooks.services import webhook_emit

TYPES = {RunStatus.SUCCEEDED: "run.completed", RunStatus.FAILED: "run.failed"}


def run_event_emit(run: ExtractionRun) -> None:
    """In the transaction that finished the run; the data is read only when an endpoint
    listens (no query otherwise, beyond the one that asks)."""
    type_ = TYPES.get(RunStatus(run.status))
    if type_ is None:
        return

    def data() -> dict[str, Any]:
        agent = Agent.objects.filter(pk=run.agent_id).values_list("slug", flat=True).first()
        user = EndUser.objects.filter(pk=run.end_user_id).values_list("external_id", flat=True)
        return {
            "id": str(run.public_id), "agent": agent, "user": user.first(), "status": run.status,
            "trigger": run.trigger, "schema_version": run.schema_version, "counts": run.counts,
            "error": run.error, "finished_at": run.finished_at.isoformat() if run.finished_at else None,
        }  # fmt: skip

    webhook_emit(tenant_id=run.tenant_id, events=[(type_, data)], end_user_id=run.end_user_id)
