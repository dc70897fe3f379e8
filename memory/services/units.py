"""What the write lane (extraction) writes below the facts: memory units (tier 2), the turns
it archives out of the hot tier, and the lock that keeps an erase from overtaking it."""

from __future__ import annotations

from typing import Any

from django.db import connection
from django.utils import timezone

from memory.embedding import vector_literal
from memory.models import EndUser, Turn
from schemas.models import Agent


def end_user_lock_live(*, end_user: EndUser) -> bool:
    """In the caller's transaction: share-lock the user's row and tell whether it still is this
    user (not erased, not being erased). Holding the lock until commit keeps an erase from
    starting before the caller's writes are in, so the erase then removes them too."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT 1 FROM memory_enduser WHERE id = %s AND tenant_id = %s AND external_id = %s "
            "FOR SHARE",
            [end_user.pk, end_user.tenant_id, end_user.external_id],
        )
        return cursor.fetchone() is not None


def acu_create_many(*, agent: Agent, end_user: EndUser, units: list[dict[str, Any]]) -> int:
    """Insert memory units; one whose content hash this user already has is skipped (so a
    re-run of a window cannot duplicate). Returns how many were inserted."""
    if not units:
        return 0
    inserted = 0
    with connection.cursor() as cursor:
        for unit in units:
            cursor.execute(
                "INSERT INTO memory_acu (tenant_id, agent_id, end_user_id, session_id, text, embedding, "
                "keywords, first_seq, last_seq, occurred_at, content_hash, created_at) "
                "VALUES (%s, %s, %s, %s, %s, %s::vector, to_tsvector(%s::regconfig, %s), %s, %s, %s, %s, now()) "
                "ON CONFLICT (tenant_id, agent_id, end_user_id, content_hash) DO NOTHING",
                [agent.tenant_id, agent.pk, end_user.pk, unit["session_id"], unit["text"],
                 vector_literal(unit["embedding"]), agent.search_language, unit["text"],
                 unit["first_seq"], unit["last_seq"],
                 unit["occurred_at"], unit["content_hash"]],
            )  # fmt: skip
            inserted += cursor.rowcount
    return inserted


def acu_nearest(
    *, agent: Agent, end_user: EndUser, vectors: list[Any], k: int = 3
) -> list[list[tuple[str, float]]]:
    """For each of ``vectors``, the user's stored units closest to it, with cosine similarity
    (exact scans): one statement for all of them, not one per vector (a run's dedup asked one
    query per unit: 7.6 s of a LoCoMo build, bench/extraction.py)."""
    if not vectors:
        return []
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT q.i, a.text, a.similarity FROM unnest(%s::vector[]) WITH ORDINALITY AS q(v, i) "
            "CROSS JOIN LATERAL (SELECT text, 1 - (embedding <=> q.v) AS similarity FROM memory_acu "
            "WHERE tenant_id = %s AND agent_id = %s AND end_user_id = %s AND embedding IS NOT NULL "
            "ORDER BY embedding <=> q.v LIMIT %s) a ORDER BY q.i, a.similarity DESC",
            [[vector_literal(v) for v in vectors], agent.tenant_id, agent.pk, end_user.pk, k],
        )
        out: list[list[tuple[str, float]]] = [[] for _ in vectors]
        for index, text, similarity in cursor.fetchall():
            out[int(index) - 1].append((text, float(similarity)))
    return out


def turns_archive(*, agent: Agent, end_user: EndUser, through_turn_id: int, keep: set[int]) -> int:
    """Evict turns from the hot tier (mark, never move or rewrite): every unarchived turn up to
    ``through_turn_id`` except those in ``keep``."""
    return (
        Turn.objects.filter(
            tenant_id=agent.tenant_id,
            agent=agent,
            end_user=end_user,
            archived_at__isnull=True,
            id__lte=through_turn_id,
        )
        .exclude(id__in=keep)
        .update(archived_at=timezone.now())
    )
