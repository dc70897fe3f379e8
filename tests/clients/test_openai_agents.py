"""clients/openai_agents: the Agents SDK's runner on HandoverSession, against the live server and
the scripted model (tests/scripted_model.py) through the SDK's OpenAIChatCompletionsModel."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from agents import (
    Agent,
    OpenAIChatCompletionsModel,
    RunConfig,
    Runner,
    set_tracing_disabled,
)
from handover_client import AsyncHandover, Handover
from handover_openai_agents import HandoverSession, memory_tools, merge_retried_input
from openai import AsyncOpenAI, InternalServerError

from memory.models import Entity
from tenants.models import Tenant
from tests.clients.adapters import (
    CLIENTS,
    agent_key,
    demo_agent,
    readme_example,
    run_example,
    turns_of,
)
from tests.clients.faulty_proxy import FaultyProxy
from tests.scripted_model import ScriptedModel

pytestmark = pytest.mark.django_db(transaction=True)
set_tracing_disabled(True)  # no trace export: nothing leaves loopback
INSTRUCTIONS = "You are a property advisor."


@pytest.fixture
def key(tenant_a: Tenant) -> str:
    demo_agent(tenant_a)
    return agent_key(tenant_a)


@pytest.fixture
def model() -> Iterator[ScriptedModel]:
    server = ScriptedModel()
    yield server
    server.close()


def _advisor(session: HandoverSession, model: ScriptedModel) -> Agent[Any]:
    # No retries in the OpenAI client: a failed model call fails the run (the retry test).
    llm = AsyncOpenAI(base_url=model.url, api_key="sk-scripted", max_retries=0)
    return Agent(
        name="Advisor",
        instructions=session.instructions(INSTRUCTIONS),
        model=OpenAIChatCompletionsModel("scripted-1", llm),
        tools=memory_tools(session),
    )


def test_two_turns_carry_the_first_exchange_and_the_memory_and_store_each_turn_once(
    live_server: Any, key: str, model: ScriptedModel
) -> None:
    with Handover(api_key=key, base_url=live_server.url) as hv:
        hv.write_fact("priya", "budget", {"amount": 8_000_000, "currency": "INR"}, agent="demo")
    model.script(
        "chat",
        ("say", "Hello Priya."),
        ("tool_call", {"name": "search_memory", "arguments": {"query": "budget", "k": 3}}),
        ("say", "Your budget is ₹80 lakh."),
    )

    async def scenario() -> list[str]:
        client = AsyncHandover(api_key=key, base_url=live_server.url)
        async with client, HandoverSession("demo", "priya", "chat-1", client=client) as session:
            advisor = _advisor(session, model)
            first = await Runner.run(advisor, "Hi, I'm Priya.", session=session)
            second = await Runner.run(advisor, "What was my budget again?", session=session)
            return [first.final_output, second.final_output]

    assert asyncio.run(scenario()) == ["Hello Priya.", "Your budget is ₹80 lakh."]

    first, second, after_tool = model.requests
    system = first["messages"][0]
    assert system["role"] == "system" and system["content"].startswith(INSTRUCTIONS + "\n\n")
    assert "₹80 lakh" in system["content"]  # the session start's system_block
    assert [t["function"]["name"] for t in first["tools"]] == ["search_memory", "remember_fact"]
    # The second run's request: the same memory, then the first exchange as the messages it was.
    assert second["messages"] == [
        system,
        {"role": "user", "content": "Hi, I'm Priya."},
        {"role": "assistant", "content": "Hello Priya."},
        {"role": "user", "content": "What was my budget again?"},
    ]
    tool = after_tool["messages"][-1]
    assert tool["role"] == "tool" and "₹80 lakh" in tool["content"]
    assert "confidence: high" in tool["content"]
    # Every user and assistant message, once, in order; the tool traffic is not a turn.
    assert turns_of("chat-1") == [
        (1, "user", "Hi, I'm Priya."),
        (2, "assistant", "Hello Priya."),
        (3, "user", "What was my budget again?"),
        (4, "assistant", "Your budget is ₹80 lakh."),
    ]


def test_a_run_retried_after_the_model_failed_stores_the_question_once(
    live_server: Any, key: str, model: ScriptedModel
) -> None:
    model.script("chat", ("status", 500), ("say", "Eighty lakh."))

    async def scenario() -> str:
        client = AsyncHandover(api_key=key, base_url=live_server.url)
        async with client, HandoverSession("demo", "priya", "chat-2", client=client) as session:
            advisor = _advisor(session, model)
            config = RunConfig(session_input_callback=merge_retried_input)
            with pytest.raises(InternalServerError):
                await Runner.run(advisor, "My budget?", session=session, run_config=config)
            # The SDK stored the input before the model failed; the retry does not add it again.
            stored = await client.list_turns((await session.open()).session_id)
            assert [(t.seq, t.role, t.text) for t in stored.turns] == [(1, "user", "My budget?")]
            result = await Runner.run(advisor, "My budget?", session=session, run_config=config)
            return str(result.final_output)

    assert asyncio.run(scenario()) == "Eighty lakh."
    assert [m["role"] for m in model.requests[-1]["messages"]] == ["system", "user"]
    assert turns_of("chat-2") == [(1, "user", "My budget?"), (2, "assistant", "Eighty lakh.")]


def test_an_append_whose_answer_was_lost_is_sent_again_and_stored_once(
    live_server: Any, key: str
) -> None:
    proxy = FaultyProxy(live_server.url)

    async def scenario() -> None:
        client = AsyncHandover(api_key=key, base_url=proxy.url)
        async with client, HandoverSession("demo", "priya", "chat-3", client=client) as session:
            await session.open()
            # The last-turn read passes; the server stores the batch, then its answer is lost.
            proxy.script(("pass",), ("lose", 502))
            await session.add_items(
                [
                    {"role": "user", "content": "We have a dog."},
                    {
                        "type": "message",
                        "role": "assistant",
                        "id": "msg_1",
                        "status": "completed",
                        "content": [{"type": "output_text", "text": "Noted.", "annotations": []}],
                    },
                ]
            )

    try:
        asyncio.run(scenario())
    finally:
        proxy.close()
    batches = [path for method, path, _ in proxy.seen if path.endswith("/turns:batch")]
    assert len(batches) == 2  # sent, answer lost, sent again with the same seqs
    assert turns_of("chat-3") == [(1, "user", "We have a dog."), (2, "assistant", "Noted.")]


def test_session_protocol_round_trips_on_the_turn_log(live_server: Any, key: str) -> None:
    async def scenario() -> None:
        client = AsyncHandover(api_key=key, base_url=live_server.url)
        async with client:
            session = HandoverSession("demo", "priya", "chat-4", client=client)
            assert await session.get_items() == [] and await session.pop_item() is None
            await session.add_items(
                [
                    {"role": "user", "content": [{"type": "input_text", "text": "Villas?"}]},
                    {
                        "type": "function_call",
                        "call_id": "c1",
                        "name": "search_memory",
                        "arguments": "{}",
                    },
                    {"type": "function_call_output", "call_id": "c1", "output": "- budget"},
                    {"role": "assistant", "content": "Two villas in Pune."},
                    {"role": "user", "content": "The first, please."},
                ]
            )
            assert await session.get_items(limit=2) == [
                {"role": "assistant", "content": "Two villas in Pune."},
                {"role": "user", "content": "The first, please."},
            ]
            popped = await session.pop_item()
            assert popped == {"role": "user", "content": "The first, please."}
            # Another process resumes the same conversation by its id.
            again = HandoverSession("demo", "priya", "chat-4", client=client)
            assert await again.get_items() == [
                {"role": "user", "content": "Villas?"},
                {"role": "assistant", "content": "Two villas in Pune."},
            ]
            await again.clear_session()
            assert await again.get_items() == [] and await again.pop_item() is None
            await again.add_items([{"role": "user", "content": "Start over."}])
            assert await again.get_items() == [{"role": "user", "content": "Start over."}]
            # The next session start no longer shows the cleared turns.
            opened = await client.open_session("demo", "priya", session="chat-4")
            assert opened.recent_messages == [{"role": "user", "content": "Start over."}]

    asyncio.run(scenario())
    # The popped turn is gone from the log; the cleared ones stay in it (search, extraction).
    assert turns_of("chat-4") == [
        (1, "user", "Villas?"),
        (2, "assistant", "Two villas in Pune."),
        (4, "user", "Start over."),
    ]


def test_remember_fact_writes_a_typed_fact_and_errors_come_back_as_the_answer(
    live_server: Any, key: str, model: ScriptedModel
) -> None:
    model.script(
        "chat",
        ("tool_call", {"name": "remember_fact", "arguments": {"key": "city", "value": "Pune"}}),
        ("tool_call", {"name": "remember_fact", "arguments": {"key": "shoe", "value": "9"}}),
        ("say", "Got it."),
    )

    async def scenario() -> str:
        client = AsyncHandover(api_key=key, base_url=live_server.url)
        async with client, HandoverSession("demo", "priya", "chat-5", client=client) as session:
            result = await Runner.run(_advisor(session, model), "I live in Pune.", session=session)
            return str(result.final_output)

    assert asyncio.run(scenario()) == "Got it."
    assert list(Entity.objects.values_list("key", "value")) == [("city", "Pune")]
    answers = [r["messages"][-1]["content"] for r in model.requests[1:]]
    assert answers[0] == "Remembered city: Pune."
    assert answers[1].startswith("Memory error invalid:")


def test_readme_example_runs(live_server: Any, key: str, model: ScriptedModel) -> None:
    with Handover(api_key=key, base_url=live_server.url) as hv:
        hv.write_fact("priya", "budget", {"amount": 8_000_000, "currency": "INR"}, agent="demo")
    model.script(
        "chat",
        ("tool_call", {"name": "search_memory", "arguments": {"query": "budget"}}),
        ("say", "Your budget is ₹80 lakh."),
    )
    code = readme_example(CLIENTS / "openai_agents" / "README.md", "python")
    done = run_example(code, {
        "HANDOVER_API_KEY": key, "HANDOVER_URL": live_server.url, "OPENAI_BASE_URL": model.url,
        "OPENAI_API_KEY": "sk-scripted", "OPENAI_AGENTS_DISABLE_TRACING": "1",
    })  # fmt: skip
    assert done.stdout == "Your budget is ₹80 lakh.\n"
    assert turns_of("call-1") == [
        (1, "user", "What was my budget again?"),
        (2, "assistant", "Your budget is ₹80 lakh."),
    ]
