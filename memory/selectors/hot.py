"""Reads of the hot document: its payload, Redis' copy and whether it is current (ADR 0020),
packing it into a budget, and the operator's "as of" view of the block."""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.db.models import Q
from django.utils import timezone

from core import metrics
from core.text import iso
from memory.hot.cache import hot_cache_get, hot_cache_key
from memory.models import EndUser, HotDocument, Turn
from memory.presenters import facts_split, turn_present
from memory.rendering import Packed, context_block_render, pack, stable_block_render
from memory.selectors.facts import entity_list
from schemas.models import Agent


def hot_document_payload(document: HotDocument, *, agent_slug: str) -> dict[str, Any]:
    return {
        "version": document.version,
        "stable_version": document.stable_version,
        "agent_id": document.agent_id,
        "agent": agent_slug,
        "end_user_id": document.end_user_id,
        "profile": document.profile,
        "facts": document.facts,
        "possibilities": document.possibilities,
        "pinned": document.pinned,
        "summary": document.summary,
        "stable_block": document.stable_block,
        "recent_turns": document.recent_turns,
        "expires_next_at": iso(document.expires_next_at),
        "pending_tokens": document.pending_tokens,
    }


def hot_document_cached(
    *, tenant_id: int, agent_slug: str, user_external_id: str
) -> dict[str, Any] | None:
    """The hot document from Redis if it is there and still in force, else None."""
    document = hot_cache_get(
        hot_cache_key(tenant_id=tenant_id, agent_slug=agent_slug, user_external_id=user_external_id)
    )
    if document is not None:
        expires = document.get("expires_next_at")
        if expires is not None and expires <= timezone.now().astimezone(datetime.UTC).isoformat():
            document = None  # an ephemeral fact ran out: the caller rebuilds
    metrics.hot_cache_read(hit=document is not None)
    return document


def hot_document_current(
    document: dict[str, Any], *, version: int | None, stable_version: int | None
) -> bool:
    """Whether a copy read from Redis is PostgreSQL's current document: its tail holds the
    current version (every change rewrites the tail) and its stable part is no older than the
    last rebuild. A copy left behind by a failed Redis write fails this (ADR 0020)."""
    if version is None or stable_version is None:
        return False  # no document in PostgreSQL: whatever Redis holds is left over
    return bool(document["version"] == version and document["stable_version"] >= stable_version)


def context_pack(
    *, document: dict[str, Any], budget_tokens: int, hits: Sequence[str] = ()
) -> Packed:
    return pack(
        pinned=document["pinned"],
        profile=document["profile"],
        facts=document["facts"],
        possibilities=document["possibilities"],
        summary=document["summary"],
        recent_turns=document["recent_turns"],
        hits=hits,
        budget_tokens=budget_tokens,
    )


# --- The operator's "as of" view ---------------------------------------------------------------


@dataclass(frozen=True)
class BlockAsOf:
    text: str
    facts: int
    turns: int
    summary_included: bool


def context_block_as_of(
    *,
    agent: Agent,
    end_user: EndUser,
    as_of: datetime.datetime | None = None,
    known_at: datetime.datetime | None = None,
) -> BlockAsOf:
    """The session-start context block this user would have got at world time ``as_of``, from
    what Handover knew at ``known_at`` (each defaulting to now): the facts in force then, the
    turns recorded by then, rendered as the call path renders them.

    The rolling summary is not versioned, so it is shown for the present only; a block for a
    past moment leaves it out rather than leak later knowledge into it.
    """
    now = timezone.now()
    world, known = as_of or now, known_at or now
    entities = list(entity_list(agent=agent, end_user=end_user, as_of=world, known_at=known))
    parts = facts_split(entities)
    present = as_of is None and known_at is None
    summary = ""
    if present:
        summary = (
            HotDocument.objects.filter(tenant_id=agent.tenant_id, agent=agent, end_user=end_user)
            .values_list("summary", flat=True)
            .first()
            or ""
        )
    turns = (
        Turn.objects.filter(
            tenant_id=agent.tenant_id,
            agent=agent,
            end_user=end_user,
            occurred_at__lte=world,
            recorded_at__lte=known,
        )
        .filter(Q(archived_at__isnull=True) | Q(archived_at__gt=known))
        .order_by("-id")[: agent.context_window_turns]
    )
    recent = [turn_present(t) for t in reversed(list(turns))]
    stable = stable_block_render(summary=summary, **parts)
    return BlockAsOf(
        text=context_block_render(stable, recent),
        facts=len(entities),
        turns=len(recent),
        summary_included=bool(summary),
    )
