"""Sessions, turns and context over HTTP: shapes, query counts, isolation."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from rest_framework.test import APIClient

from memory.models import EndUser, Entity, HotDocument, Session, Turn
from schemas.models import Agent
from tenants.models import KeyRole, Tenant
from tenants.services import api_key_create
from tests.conftest import Key

LAKH = 100_000
# Transactions really commit here, so on-commit work (re-caching the hot document) runs as in
# production and the query counts are the real ones.
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def agent_key(tenant_a: Tenant, property_agent: Agent) -> Key:
    model, raw = api_key_create(tenant=tenant_a, name="agent", role=KeyRole.AGENT, actor="t")
    return Key(model, raw)


def _open(client: APIClient, user: str = "priya", **extra: Any) -> Any:
    return client.post("/v1/sessions", {"agent": "property", "user": user, **extra}, format="json")


def _snapshot() -> dict[str, Any]:
    return {
        "users": EndUser.objects.count(),
        "sessions": sorted(Session.objects.values_list("id", "last_activity_at", "next_seq")),
        "turns": Turn.objects.count(),
        "entities": sorted(Entity.objects.values_list("id", "status", "pinned")),
        "hot": sorted(HotDocument.objects.values_list("id", "version")),
    }


def test_open_session_returns_the_ready_context(agent_key: Key) -> None:
    response = _open(agent_key.client(), metadata={"channel": "voice"})
    assert response.status_code == 201
    body = response.json()
    assert set(body) == {
        "session_id", "created", "next_seq", "agent", "user", "hot_version", "system_block",
        "recent_messages", "context_block", "profile", "facts",
        "possibilities", "pinned", "recent_turns", "summary", "memory_tool",
    }  # fmt: skip
    assert body["created"] is True and body["facts"] == [] and body["recent_turns"] == []
    assert body["context_block"].startswith("# Memory of this user")
    tool = body["memory_tool"]["function"]
    assert tool["name"] == "search_memory" and "only when" in tool["description"]
    assert Session.objects.get(pk=body["session_id"]).metadata == {"channel": "voice"}


def test_resume_by_external_id(agent_key: Key) -> None:
    client = agent_key.client()
    first = _open(client, session="call-42").json()
    again = _open(client, session="call-42")
    assert again.status_code == 200 and again.json()["session_id"] == first["session_id"]
    other_user = _open(client, user="someone-else", session="call-42")
    assert other_user.status_code == 409 and other_user.json()["code"] == "session_user_mismatch"


def test_design_scenario_over_http(agent_key: Key) -> None:
    client = agent_key.client()
    session = _open(client).json()["session_id"]
    for lakhs, when in ((50, "2026-03-03T10:00:00Z"), (80, "2026-05-09T10:00:00Z")):
        response = client.post(
            "/v1/users/priya/facts",
            {
                "agent": "property",
                "key": "budget",
                "value": {"amount": lakhs * LAKH, "currency": "INR"},
                "valid_from": when,
            },
            format="json",
        )
        assert response.status_code == 201, response.json()
    client.post(
        f"/v1/sessions/{session}/turns",
        {"role": "user", "text": "Can we see villas this weekend?"},
        format="json",
    )
    body = _open(client).json()
    assert [f["value_text"] for f in body["facts"]] == ["₹80 lakh"]
    assert "₹80 lakh (as of 2026-05-09)" in body["context_block"]
    assert "50 lakh" not in body["context_block"]
    assert "user: Can we see villas this weekend?" in body["context_block"]
    timeline = client.get("/v1/users/priya/entities", {"agent": "property", "status": "any"}).json()
    assert [(e["value_text"], e["status"]) for e in timeline] == [
        ("₹50 lakh", "superseded"),
        ("₹80 lakh", "active"),
    ]
    as_of = client.get(
        "/v1/users/priya/entities", {"agent": "property", "as_of": "2026-05-01T00:00:00Z"}
    ).json()
    assert [e["value_text"] for e in as_of] == ["₹50 lakh"]


def test_warm_session_start_is_one_query(
    agent_key: Key, django_assert_num_queries: Any, sticky_tenant_scope: None
) -> None:
    client = agent_key.client()
    _open(client)  # first sight: creates the user and the hot document, caches both
    with django_assert_num_queries(1):  # INSERT … ON CONFLICT of the session row; the rest is Redis
        assert _open(client).status_code == 201


def test_cold_session_start_reads_agent_user_and_document_in_one_statement(
    agent_key: Key, django_assert_num_queries: Any, sticky_tenant_scope: None
) -> None:
    """A Redis miss (the copy gone, as after an eviction): the agent, the user and their hot
    document's row in one statement, then the open; the document is cached again."""
    from memory.hot.cache import hot_cache_evict, hot_cache_key

    client = agent_key.client()
    first = _open(client).json()
    tenant_id = HotDocument.objects.get().tenant_id
    hot_cache_evict(
        [hot_cache_key(tenant_id=tenant_id, agent_slug="property", user_external_id="priya")]
    )
    with django_assert_num_queries(2):
        again = _open(client)
    assert again.status_code == 201 and again.json()["system_block"] == first["system_block"]
    with django_assert_num_queries(1):  # cached again by the miss
        assert _open(client).status_code == 201


def test_search_reads_agent_and_user_in_one_statement(
    agent_key: Key, django_assert_num_queries: Any, sticky_tenant_scope: None
) -> None:
    client = agent_key.client()
    _open(client)
    body = {"agent": "property", "user": "priya", "query": "budget"}
    client.post("/v1/memory/search", body, format="json")  # loads the user's search index
    # agent and user; the hot document's versions and the facts; the turn-log fallback (no
    # memory unit yet, so nothing else was found)
    with django_assert_num_queries(3):
        assert client.post("/v1/memory/search", body, format="json").status_code == 200
    unknown = client.post("/v1/memory/search", {**body, "user": "nobody"}, format="json")
    assert unknown.status_code == 404 and unknown.json()["code"] == "user_not_found"
    other = client.post("/v1/memory/search", {**body, "agent": "nope"}, format="json")
    assert other.status_code == 404 and other.json()["code"] == "agent_not_found"


def test_turn_append_queries_are_pinned(
    agent_key: Key, django_assert_num_queries: Any, sticky_tenant_scope: None
) -> None:
    client = agent_key.client()
    session = _open(client).json()["session_id"]
    client.post(f"/v1/sessions/{session}/turns", {"role": "user", "text": "warm up"}, format="json")
    # One statement (allocate the seq, insert the turn, update the hot tail), one commit.
    with django_assert_num_queries(1):
        response = client.post(
            f"/v1/sessions/{session}/turns", {"role": "user", "text": "hello"}, format="json"
        )
    assert response.status_code == 201 and response.json()["seq"] == 2


def test_context_pack_queries_are_pinned(
    agent_key: Key, django_assert_num_queries: Any, sticky_tenant_scope: None
) -> None:
    client = agent_key.client()
    session = _open(client).json()["session_id"]
    with django_assert_num_queries(
        1
    ):  # the session (with agent and user); the document is in Redis
        response = client.post("/v1/context", {"session": session}, format="json")
    assert response.status_code == 200
    assert (
        response.json()["budget_tokens"] == 800
        and response.json()["tokenizer"] == "handover-approx-v1"
    )


def test_turn_append_201_then_200_then_409(agent_key: Key) -> None:
    client = agent_key.client()
    session = _open(client).json()["session_id"]
    url = f"/v1/sessions/{session}/turns"
    created = client.post(url, {"role": "user", "text": "hi", "seq": 1}, format="json")
    assert created.status_code == 201 and created.json()["created"] is True
    again = client.post(url, {"role": "user", "text": "hi", "seq": 1}, format="json")
    assert again.status_code == 200 and again.json()["id"] == created.json()["id"]
    conflict = client.post(url, {"role": "user", "text": "bye", "seq": 1}, format="json")
    assert conflict.status_code == 409 and conflict.json()["code"] == "turn_conflict"


def test_batch_import(agent_key: Key) -> None:
    client = agent_key.client()
    session = _open(client).json()["session_id"]
    turns = [
        {
            "role": "user" if i % 2 == 0 else "assistant",
            "text": f"t{i}",
            "occurred_at": "2023-05-08T13:56:00Z",
        }
        for i in range(20)
    ]
    response = client.post(f"/v1/sessions/{session}/turns:batch", {"turns": turns}, format="json")
    assert response.status_code == 201 and response.json()["created"] == 20
    assert [t["seq"] for t in response.json()["turns"]] == list(range(1, 21))
    too_many = client.post(
        f"/v1/sessions/{session}/turns:batch", {"turns": turns * 26}, format="json"
    )
    assert too_many.status_code == 400 and "turns" in too_many.json()["fields"]
    assert Turn.objects.count() == 20


def test_a_turns_utc_offset_is_kept(agent_key: Key) -> None:
    client = agent_key.client()
    session = _open(client).json()["session_id"]
    one = {"role": "user", "text": "hi", "occurred_at": "2026-05-07T08:10:00+10:00"}
    assert client.post(f"/v1/sessions/{session}/turns", one, format="json").status_code == 201
    batch = {"turns": [{"role": "user", "text": "later", "occurred_at": "2026-05-07T21:30:00-05:00"},
                       {"role": "user", "text": "now"}]}  # fmt: skip
    assert (
        client.post(f"/v1/sessions/{session}/turns:batch", batch, format="json").status_code == 201
    )
    stored = list(Turn.objects.order_by("seq"))
    assert [t.utc_offset for t in stored] == [600, -300, None]
    assert stored[0].occurred_local.isoformat() == "2026-05-07T08:10:00+10:00"
    assert stored[0].occurred_at == datetime.datetime(2026, 5, 6, 22, 10, tzinfo=datetime.UTC)


@pytest.mark.parametrize(
    ("body", "place"),
    [
        ({"role": "user"}, "text"),
        ({"role": "user", "text": 5}, "text"),
        ({"role": "narrator", "text": "x"}, "role"),
        ({"role": "user", "text": "x", "seq": "one"}, "seq"),
        ({"role": "user", "text": "x", "occurred_at": "yesterday"}, "occurred_at"),
        ({"role": "user", "text": "x", "mood": "happy"}, "mood"),
        ({"role": "user", "text": "nul\u0000"}, "text"),
    ],
)
def test_bad_turn_is_400_and_changes_nothing(
    agent_key: Key, body: dict[str, Any], place: str
) -> None:
    client = agent_key.client()
    session = _open(client).json()["session_id"]
    before = _snapshot()
    response = client.post(f"/v1/sessions/{session}/turns", body, format="json")
    assert response.status_code == 400 and place in response.json()["fields"], response.json()
    assert _snapshot() == before


def test_context_prefix_is_byte_stable_and_changes_with_a_fact(agent_key: Key) -> None:
    client = agent_key.client()
    session = _open(client).json()["session_id"]
    client.post(
        "/v1/users/priya/facts",
        {"agent": "property", "key": "city", "value": "Pune"},
        format="json",
    )
    first = client.post("/v1/context", {"session": session}, format="json").json()
    client.post(
        f"/v1/sessions/{session}/turns", {"role": "user", "text": "a new turn"}, format="json"
    )
    second = client.post("/v1/context", {"session": session}, format="json").json()
    prefix = first["context"].split("\n\n## Recent conversation")[0].rstrip("\n")
    assert "## Recent conversation" not in first["context"] and "Pune" in prefix
    assert second["context"].startswith(prefix + "\n\n## Recent conversation")
    assert first["stable_tokens"] == second["stable_tokens"]
    client.post(
        "/v1/users/priya/facts",
        {"agent": "property", "key": "city", "value": "Mumbai"},
        format="json",
    )
    third = client.post("/v1/context", {"session": session}, format="json").json()
    assert not third["context"].startswith(prefix) and "Mumbai" in third["context"]


def test_context_respects_a_small_budget(agent_key: Key) -> None:
    client = agent_key.client()
    session = _open(client).json()["session_id"]
    for i in range(30):
        client.post(
            "/v1/users/priya/facts",
            {"agent": "property", "key": f"pet:p{i}", "value": "a dog"},
            format="json",
        )
    body = client.post(
        "/v1/context", {"session": session, "budget_tokens": 100}, format="json"
    ).json()
    assert body["tokens"] <= 100 and body["dropped"]["profile"] > 0


def test_agent_scoped_key_cannot_reach_other_agents(
    tenant_a: Tenant, property_agent: Agent, agent_a: Agent
) -> None:
    model, raw = api_key_create(
        tenant=tenant_a, name="scoped", role=KeyRole.AGENT, agent_id=agent_a.pk, actor="t"
    )
    response = _open(Key(model, raw).client())
    assert response.status_code == 404 and response.json()["code"] == "agent_not_found"


OUTSIDER = [
    ("post", "/v1/sessions", lambda s, e: {"agent": "property", "user": "priya"}),
    ("post", "/v1/sessions/{session}/turns", lambda s, e: {"role": "user", "text": "hi"}),
    (
        "post",
        "/v1/sessions/{session}/turns:batch",
        lambda s, e: {"turns": [{"role": "user", "text": "hi"}]},
    ),
    ("post", "/v1/context", lambda s, e: {"session": s}),
    (
        "post",
        "/v1/users/priya/facts",
        lambda s, e: {"agent": "property", "key": "city", "value": "Delhi"},
    ),
    ("get", "/v1/users/priya/entities", lambda s, e: {"agent": "property"}),
    ("get", "/v1/entities/{entity}", lambda s, e: None),
    ("post", "/v1/entities/{entity}/correct", lambda s, e: {"value": "Delhi"}),
    ("post", "/v1/entities/{entity}/pin", lambda s, e: None),
    ("post", "/v1/entities/{entity}/unpin", lambda s, e: None),
    ("delete", "/v1/entities/{entity}", lambda s, e: None),
]


@pytest.mark.parametrize(
    ("method", "url", "body"), OUTSIDER, ids=[f"{m} {u}" for m, u, _ in OUTSIDER]
)
def test_outsider_gets_404_and_nothing_changes(
    agent_key: Key, key_b: Key, method: str, url: str, body: Any
) -> None:
    client = agent_key.client()
    session = _open(client).json()["session_id"]
    client.post(f"/v1/sessions/{session}/turns", {"role": "user", "text": "mine"}, format="json")
    entity = client.post(
        "/v1/users/priya/facts",
        {"agent": "property", "key": "city", "value": "Pune"},
        format="json",
    ).json()["id"]
    before = _snapshot()
    target = url.format(session=session, entity=entity)
    data = body(session, entity)
    if method == "get":
        response = key_b.client().get(target, data)
    else:
        response = getattr(key_b.client(), method)(target, data, format="json")
    assert response.status_code == 404, response.json()
    assert _snapshot() == before


def test_crossing_the_threshold_enqueues_one_extraction_run(
    agent_key: Key, property_agent: Agent
) -> None:
    from extraction.models import ExtractionRun
    from schemas.services import agent_settings_update

    agent_settings_update(
        agent=property_agent, changes={"extraction_token_threshold": 200}, actor="t"
    )
    client = agent_key.client()
    session = _open(client).json()["session_id"]
    url = f"/v1/sessions/{session}/turns"
    client.post(url, {"role": "user", "text": "word " * 150}, format="json")
    assert not ExtractionRun.objects.exists()  # 150 < 200
    client.post(url, {"role": "user", "text": "word " * 60}, format="json")
    client.post(url, {"role": "user", "text": "thanks, bye"}, format="json")
    runs = list(ExtractionRun.objects.all())
    assert len(runs) == 1 and runs[0].pending_tokens == 210
    # The task ran (eagerly, after commit): it claimed the run.
    assert runs[0].started_at is not None


def test_user_ids_with_slashes_and_unicode_work_in_urls(agent_key: Key) -> None:
    client = agent_key.client()
    for user in ("org/42", "josé@example.com"):
        assert (
            client.post(
                "/v1/sessions", {"agent": "property", "user": user}, format="json"
            ).status_code
            == 201
        )
        written = client.post(
            f"/v1/users/{user}/facts",
            {"agent": "property", "key": "city", "value": "Pune"},
            format="json",
        )
        assert written.status_code == 201, written.json()
        listed = client.get(f"/v1/users/{user}/entities", {"agent": "property"}).json()
        assert [e["value_text"] for e in listed] == ["Pune"]
