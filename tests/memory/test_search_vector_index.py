"""A heavy user's partial HNSW index (ADR 0029): asked for by their first SQL search, built by
the task, then used by the semantic leg with the same answer as the exact scan."""

from __future__ import annotations

import pytest
from django.db import connection

from memory.models import EndUser
from memory.search import memory_search, vector_index
from memory.search.legs import semantic_leg
from memory.search.vector_index import index_name, users_with_index, vector_index_build
from schemas.models import Agent
from tests.memory.test_search_index import JULY, MAY, _said


def _plan(agent: Agent, user: EndUser, vector: str) -> str:
    with connection.cursor() as cursor:
        cursor.execute(
            "EXPLAIN SELECT id FROM memory_acu WHERE tenant_id = %s AND agent_id = %s "
            f"AND end_user_id = {int(user.pk)} ORDER BY embedding <=> %s::vector LIMIT 50",
            [agent.tenant_id, agent.pk, vector],
        )
        return "\n".join(r[0] for r in cursor.fetchall())


def test_a_heavy_users_search_builds_their_index_and_the_leg_uses_it(
    advisor: Agent, priya: EndUser, monkeypatch: pytest.MonkeyPatch
) -> None:
    import memory.search.index as index_module

    monkeypatch.setattr(index_module, "MAX_USER_ROWS", 1)  # priya counts as heavy
    monkeypatch.setattr(vector_index, "_requested", set())
    vector_index.vector_index_forget()
    _said(advisor, priya, [("We adopted a puppy named Oscar.", MAY),
                           ("The Baner flat has a west view.", JULY)])  # fmt: skip
    result = memory_search(agent=advisor, end_user=priya, query="Oscar the puppy", k=2)
    assert "Oscar" in result.hits[0].text  # answered by the exact scan
    assert priya.pk in users_with_index()  # the (eager) task built it
    vector = "[" + ",".join(["0.05"] * 384) + "]"
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_sort = off")  # two rows: the planner would sort them
        plan = _plan(advisor, priya, vector)
    assert index_name(priya.pk) in plan
    exact = semantic_leg(agent=advisor, user=priya, vector=vector, session=None)
    indexed = semantic_leg(agent=advisor, user=priya, vector=vector, session=None, indexed=True)
    assert [h.id for h in indexed] == [h.id for h in exact] and len(exact) == 2


def test_building_twice_is_harmless(advisor: Agent, priya: EndUser) -> None:
    _said(advisor, priya, [("We adopted a puppy named Oscar.", MAY)])
    vector_index_build(end_user_id=priya.pk)
    vector_index_build(end_user_id=priya.pk)
    assert priya.pk in users_with_index()
