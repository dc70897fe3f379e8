"""The MCP server for many users of one agent, driven by the MCP SDK's own client in process
(the server calls the live test server over loopback HTTP, as it does in production): the user
per call, kept apart; record_turn exactly once; the schema resource; the prompts."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from handover_client import AsyncHandover
from handover_client.mcp_server import build_server
from mcp import Client

from memory.models import EndUser, Entity, Session, Turn
from memory.services import TurnIn, end_user_get_or_create, session_open, turn_append
from schemas.models import Agent
from tenants.models import KeyRole, Tenant
from tenants.services import api_key_create

pytestmark = pytest.mark.django_db(transaction=True)
BUDGET = {"amount": 8_000_000, "currency": "INR"}


@pytest.fixture
def raw_key(tenant_a: Tenant, property_agent: Agent) -> str:
    return api_key_create(tenant=tenant_a, name="mcp", role=KeyRole.AGENT, actor="t")[1]


def _said(messages: Any) -> list[tuple[str, str]]:
    return [(m.role, getattr(m.content, "text", "")) for m in messages]


def _text(result: Any) -> str:
    return "\n".join(part.text for part in result.content if part.type == "text")


def _run(
    live_server: Any, key: str, scenario: Callable[[Client], Awaitable[Any]], **options: Any
) -> Any:
    async def main() -> Any:
        hv = AsyncHandover(api_key=key, base_url=live_server.url)
        async with hv, Client(build_server(hv, agent="property", **options)) as client:
            return await scenario(client)

    return asyncio.run(main())


def test_one_server_many_users_never_sees_another_users_memory(
    live_server: Any, raw_key: str
) -> None:
    async def scenario(mcp: Client) -> dict[str, Any]:
        out: dict[str, Any] = {}
        call = mcp.call_tool
        out["no_user"] = await call("search_memory", {"query": "budget"})
        out["remember"] = _text(
            await call("remember_fact", {"key": "budget", "value": BUDGET, "user": "alice"})
        )
        await call("remember_fact", {"key": "city", "value": "Pune", "user": "bob"})
        await call("record_turn", {"role": "user", "text": "alice's secret: 4321", "user": "alice"})
        await call("record_turn", {"role": "user", "text": "bob speaking", "user": "bob"})
        for who in ("alice", "bob"):
            out[who] = {
                "search": _text(await call("search_memory", {"query": "budget", "user": who})),
                "city": _text(await call("search_memory", {"query": "city", "user": who})),
                "context": _text(await call("get_context", {"user": who})),
            }
        out["forget_bob_budget"] = _text(
            await call("forget_fact", {"key": "budget", "user": "bob"})
        )
        return out

    out = _run(live_server, raw_key, scenario)
    assert out["no_user"].is_error is True
    assert "say which user" in _text(out["no_user"])
    assert out["remember"] == "Remembered budget: ₹80 lakh."
    assert "₹80 lakh" in out["alice"]["search"] and "₹80 lakh" not in out["bob"]["search"]
    assert "Pune" in out["bob"]["city"] and "Pune" not in out["alice"]["city"]
    assert "budget: ₹80 lakh" in out["alice"]["context"] and "4321" in out["alice"]["context"]
    assert "₹80 lakh" not in out["bob"]["context"] and "4321" not in out["bob"]["context"]
    assert "Pune" in out["bob"]["context"] and "Pune" not in out["alice"]["context"]
    assert out["forget_bob_budget"] == "Nothing is remembered under 'budget'."
    # In the database: each user's facts and turns are theirs, one session each.
    facts = sorted(Entity.objects.values_list("end_user__external_id", "key"))
    assert facts == [("alice", "budget"), ("bob", "city")]
    turns = sorted(Turn.objects.values_list("session__end_user__external_id", "seq", "text"))
    assert turns == [("alice", 1, "alice's secret: 4321"), ("bob", 1, "bob speaking")]
    assert Session.objects.filter(external_id__startswith="mcp-").count() == 2


def test_default_user_is_the_user_of_calls_that_name_none(live_server: Any, raw_key: str) -> None:
    async def scenario(mcp: Client) -> list[str]:
        return [
            _text(await mcp.call_tool("remember_fact", {"key": "city", "value": "Goa"})),
            _text(await mcp.call_tool("record_turn", {"role": "user", "text": "hi"})),
            _text(await mcp.call_tool("search_memory", {"query": "city", "user": "carol"})),
        ]

    out = _run(live_server, raw_key, scenario, user="priya", session="desk")
    assert out[:2] == ["Remembered city: Goa.", "Recorded turn 1 of session desk."]
    assert out[2] == "No memory found for this query."
    assert list(EndUser.objects.values_list("external_id", flat=True)) == ["priya"]


def test_record_turn_numbers_from_next_seq_and_stores_each_turn_once(
    live_server: Any, raw_key: str, property_agent: Agent
) -> None:
    # The session already holds three turns (written by another client).
    user = end_user_get_or_create(tenant_id=property_agent.tenant_id, external_id="priya")
    session = session_open(
        tenant_id=property_agent.tenant_id, agent_id=property_agent.pk, end_user_id=user.pk,
        external_id="call-7", metadata={},
    )  # fmt: skip
    turn_append(
        tenant_id=property_agent.tenant_id, session_id=session.id,
        turns=[TurnIn(role="user", text=f"earlier {i}", seq=i) for i in (1, 2, 3)],
    )  # fmt: skip

    async def scenario(mcp: Client) -> list[str]:
        out = []
        where = {"user": "priya", "session": "call-7"}
        first = {"role": "user", "text": "Our budget is 80 lakhs.", **where}
        out.append(_text(await mcp.call_tool("record_turn", first)))
        reply = {"role": "assistant", "text": "Noted.", **where}
        out.append(_text(await mcp.call_tool("record_turn", reply)))
        # The host repeats a call it is unsure of, with the turn's seq: stored once.
        out.append(_text(await mcp.call_tool("record_turn", {**first, "seq": 4})))
        changed = await mcp.call_tool("record_turn", {**first, "text": "something else", "seq": 4})
        out.append(f"{changed.is_error} {_text(changed)}")
        return out

    out = _run(live_server, raw_key, scenario)
    assert out[:3] == [
        "Recorded turn 4 of session call-7.",
        "Recorded turn 5 of session call-7.",
        "Already recorded: turn 4 of session call-7.",
    ]
    assert out[3].startswith("True ") and "turn_conflict: Turn 4 " in out[3]
    assert list(Turn.objects.filter(session_id=session.id).order_by("seq").values_list("seq", "text")) == [
        (1, "earlier 1"), (2, "earlier 2"), (3, "earlier 3"),
        (4, "Our budget is 80 lakhs."), (5, "Noted."),
    ]  # fmt: skip


def test_record_turn_renumbers_when_another_writer_appended_meanwhile(
    live_server: Any, raw_key: str, property_agent: Agent
) -> None:
    async def scenario(mcp: Client) -> list[str]:
        where = {"user": "priya", "session": "shared"}
        out = [_text(await mcp.call_tool("record_turn", {"role": "user", "text": "one", **where}))]
        # Another process appends turn 2 to the same session.
        await asyncio.to_thread(_append_elsewhere, property_agent)
        out.append(
            _text(await mcp.call_tool("record_turn", {"role": "user", "text": "two", **where}))
        )
        return out

    assert _run(live_server, raw_key, scenario) == [
        "Recorded turn 1 of session shared.",
        "Recorded turn 3 of session shared.",
    ]
    assert list(Turn.objects.order_by("seq").values_list("seq", "text")) == [
        (1, "one"), (2, "from elsewhere"), (3, "two"),
    ]  # fmt: skip


def _append_elsewhere(agent: Agent) -> None:
    from django.db import connection

    try:
        session = Session.objects.get(external_id="shared")
        turn_append(tenant_id=agent.tenant_id, session_id=session.id,
                    turns=[TurnIn(role="assistant", text="from elsewhere", seq=2)])  # fmt: skip
    finally:
        connection.close()


def test_schema_resource_lists_the_agents_fields(live_server: Any, raw_key: str) -> None:
    async def scenario(mcp: Client) -> tuple[list[str], str]:
        listed = await mcp.list_resources()
        read = await mcp.read_resource("handover://agents/property/schema")
        return [str(r.uri) for r in listed.resources], getattr(read.contents[0], "text", "")

    import json

    uris, text = _run(live_server, raw_key, scenario)
    assert uris == ["handover://agents/property/schema"]
    schema = json.loads(text)
    assert schema["agent"] == "property"
    budget = next(f for f in schema["fields"] if f["key"] == "budget")
    assert (budget["type"], budget["category"]) == ("money", "temporal")


def test_prompts_start_a_conversation_and_remember_a_fact(live_server: Any, raw_key: str) -> None:
    async def scenario(mcp: Client) -> dict[str, Any]:
        where = {"user": "priya", "session": "visit-1"}
        await mcp.call_tool("remember_fact", {"key": "budget", "value": BUDGET, "user": "priya"})
        await mcp.call_tool("record_turn", {"role": "user", "text": "Hi, it's Priya.", **where})
        await mcp.call_tool("record_turn", {"role": "assistant", "text": "Welcome back!", **where})
        start = await mcp.get_prompt("start_conversation", where)
        remember = await mcp.get_prompt(
            "remember", {"statement": "We now have two cats.", "user": "priya"}
        )
        listed = await mcp.list_prompts()
        return {
            "names": sorted(p.name for p in listed.prompts),
            "start": _said(start.messages),
            "remember": _said(remember.messages),
        }

    out = _run(live_server, raw_key, scenario)
    assert out["names"] == ["remember", "start_conversation"]
    (role, intro), *recent = out["start"]
    assert role == "user" and intro.startswith(
        "You are talking with the user 'priya' (session visit-1)"
    )
    assert "budget: ₹80 lakh" in intro and "Welcome back!" not in intro
    # The recent turns come back as the messages they were, never inside the memory text.
    assert recent == [("user", "Hi, it's Priya."), ("assistant", "Welcome back!")]
    [(role, text)] = out["remember"]
    assert role == "user" and "'We now have two cats.'" in text
    assert "- budget (money, temporal): " in text and "never invent a key" in text
