"""What an agent reads on demand: its context packed into a token budget, and memory search,
each for a session or a user it may see."""

from __future__ import annotations

from dataclasses import dataclass, field

from memory.hot.document import hot_document_load
from memory.models import EndUser
from memory.rendering import Packed
from memory.search import Hit, SearchResult, memory_search
from memory.selectors.hot import context_pack
from memory.selectors.sessions import (
    end_user_get_for_tenant,
    session_get_for_tenant,
    session_get_for_user,
)
from schemas.models import Agent

SEARCH_HITS_IN_CONTEXT = 8  # ≈ 8 short memory units or turns; they share the budget with the turns


@dataclass(frozen=True)
class ContextPacked:
    packed: Packed
    hot_version: int
    retrieved: list[Hit] = field(default_factory=list)  # the hits packed, in order


def context_pack_for_session(
    *,
    tenant_id: int,
    session_id: object,
    agent_scope: int | None = None,
    query: str | None = None,
    budget_tokens: int | None = None,
) -> ContextPacked:
    """The session's hot document packed into ``budget_tokens`` (default: the agent's). With a
    ``query``, memory search hits (not facts: those are in the document already) join the
    volatile part, after the stable prefix, within the budget. Warm and without a query: one
    statement (the session with its agent, user and document versions) and one Redis read."""
    session = session_get_for_tenant(
        tenant_id=tenant_id, session_id=session_id, agent_scope=agent_scope
    )
    document = hot_document_load(
        agent=session.agent,
        end_user=session.end_user,
        current=(session.hot_version, session.hot_stable_version),  # type: ignore[attr-defined]
    )
    hits: list[Hit] = []
    if query:
        found = memory_search(
            agent=session.agent, end_user=session.end_user, query=query,
            k=SEARCH_HITS_IN_CONTEXT, resolve_in=session, facts=False,
        )  # fmt: skip
        # Facts are in the document already (so not searched: beside the ranker they would lead
        # and leave fewer slots), except one the query points at ("my usual…").
        hits = [h for h in found.hits if h.source != "entity" or "reference" in h.legs]
    packed = context_pack(
        document=document,
        budget_tokens=budget_tokens or session.agent.context_budget_tokens,
        hits=[hit.text for hit in hits],
    )
    return ContextPacked(packed, document["version"], [hits[i] for i in packed.hits_kept])


def memory_search_for_user(
    *,
    agent: Agent,
    user_external_id: str,
    query: str,
    k: int,
    session_id: object | None = None,
    end_user: EndUser | None = None,
) -> SearchResult:
    """Search one user's memory for one agent; with ``session_id`` (a session of this user's)
    the search keeps to what was said in it, and references in the query ("the other one",
    "same as last time") are resolved against it first. ``end_user``: the user, when the
    caller has read them already (``agent_user_get``)."""
    if end_user is None:
        end_user = end_user_get_for_tenant(tenant_id=agent.tenant_id, external_id=user_external_id)
    session = None
    if session_id is not None:
        session = session_get_for_user(
            tenant_id=agent.tenant_id, session_id=session_id, agent_id=agent.pk,
            end_user_id=end_user.pk,
        )  # fmt: skip
    return memory_search(
        agent=agent, end_user=end_user, query=query, k=k,
        session=str(session_id) if session_id else None, resolve_in=session,
    )  # fmt: skip
