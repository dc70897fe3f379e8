from __future__ import annotations

from django.db.models import QuerySet

from extraction.models import ExtractionRun
from memory.models import EndUser
from schemas.models import Agent


def extraction_run_list(
    *, agent: Agent, end_user: EndUser, limit: int = 50
) -> QuerySet[ExtractionRun]:
    return ExtractionRun.objects.filter(
        tenant_id=agent.tenant_id, agent=agent, end_user=end_user
    ).order_by("-created_at", "-id")[:limit]
