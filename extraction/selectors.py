from __future__ import annotations

from collections.abc import Iterable

from django.db.models import QuerySet

from extraction.models import ExtractionRun
from memory.models import EndUser, Turn
from schemas.models import Agent


def extraction_run_list(
    *, agent: Agent, end_user: EndUser, limit: int = 50
) -> QuerySet[ExtractionRun]:
    return ExtractionRun.objects.filter(
        tenant_id=agent.tenant_id, agent=agent, end_user=end_user
    ).order_by("-created_at", "-id")[:limit]


def extraction_run_turn_refs(runs: Iterable[ExtractionRun]) -> list[ExtractionRun]:
    """The runs with ``first_turn`` / ``last_turn`` set to ``{session, seq}`` (or None): what
    the API shows instead of turn row ids, which count every tenant's turns. One query."""
    runs = list(runs)
    ids = {i for run in runs for i in (run.first_turn_id, run.last_turn_id) if i is not None}
    refs = {
        pk: {"session": session, "seq": seq}
        for pk, session, seq in Turn.objects.filter(pk__in=ids).values_list(
            "pk", "session_id", "seq"
        )
    } if ids else {}  # fmt: skip
    for run in runs:
        run.first_turn = refs.get(run.first_turn_id) if run.first_turn_id else None  # type: ignore[attr-defined]
        run.last_turn = refs.get(run.last_turn_id) if run.last_turn_id else None  # type: ignore[attr-defined]
    return runs
