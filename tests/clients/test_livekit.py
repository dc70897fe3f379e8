"""clients/livekit: HandoverAgent in LiveKit Agents' text-only test mode (AgentSession.run with
user_input, no room, no audio) on the OpenAI plugin pointed at the scripted model, against the
live server. Appends are made slow on purpose: the replies do not wait for them."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest
from handover_client import AsyncHandover, Handover
from handover_livekit import HandoverAgent
from livekit.agents import AgentSession
from livekit.plugins import openai

from tenants.models import Tenant
from tests.clients.adapters import (
    CLIENTS,
    agent_key,
    demo_agent,
    readme_example,
    run_example,
    turns_of,
)
from tests.scripted_model import ScriptedModel

pytestmark = pytest.mark.django_db(transaction=True)
APPEND_DELAY = 0.5


class SlowAppends(httpx2.AsyncBaseTransport):
    def __init__(self) -> None:
        self.inner = httpx2.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        if request.method == "POST" and request.url.path.endswith("/turns"):
            await asyncio.sleep(APPEND_DELAY)
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


@pytest.fixture
def key(tenant_a: Tenant) -> str:
    demo_agent(tenant_a)
    return agent_key(tenant_a)


@pytest.fixture
def model() -> Iterator[ScriptedModel]:
    server = ScriptedModel()
    yield server
    server.close()


def _llm(model: ScriptedModel) -> openai.LLM:
    return openai.LLM(model="scripted-1", base_url=model.url, api_key="sk-scripted")


def test_memory_at_start_recall_on_each_turn_search_tool_and_background_appends(
    live_server: Any, key: str, model: ScriptedModel
) -> None:
    with Handover(api_key=key, base_url=live_server.url) as hv:
        hv.write_fact("priya", "budget", {"amount": 8_000_000, "currency": "INR"}, agent="demo")
        hv.write_fact("priya", "city", "Pune", agent="demo")
        hv.search("priya", "warm up", agent="demo")  # the server's embedder loaded, as when it runs
    model.script(
        "chat",
        ("say", "Hello Priya."),
        ("tool_call", {"name": "search_memory", "arguments": {"query": "which city I live in"}}),
        ("say", "Pune, and eighty lakh."),
    )

    async def call() -> tuple[HandoverAgent, list[float], int]:
        client = AsyncHandover(api_key=key, base_url=live_server.url, transport=SlowAppends())
        async with client, _llm(model) as llm, AgentSession(llm=llm) as session:
            agent = await HandoverAgent.open(client, agent="demo", user="priya", session="lk-1",
                                             instructions="You are a voice assistant.")  # fmt: skip
            await session.start(agent)
            timings = []
            started = time.perf_counter()
            first: Any = await session.run(user_input="Hi, it's Priya.")
            timings.append(time.perf_counter() - started)
            stored_after_first_reply = agent.stored
            first.expect.next_event().is_message(role="assistant")
            started = time.perf_counter()
            second: Any = await session.run(user_input="What was my budget again? And my city?")
            timings.append(time.perf_counter() - started)
            second.expect.next_event().is_function_call(name="search_memory")
            second.expect.next_event().is_function_call_output()
            second.expect.next_event().is_message(role="assistant")
            await agent.aclose()
            return agent, timings, stored_after_first_reply

    agent, timings, stored_early = asyncio.run(call())
    print(f"\nLiveKit replies: {', '.join(f'{t * 1e3:.0f} ms' for t in timings)} "
          f"(each append takes {APPEND_DELAY * 1e3:.0f} ms)")  # fmt: skip
    # The first reply came back before its two turns could both be stored.
    assert stored_early < 2

    first, second, after_tool = model.requests
    system = first["messages"][0]
    assert system["role"] == "system" and system["content"].startswith("You are a voice assistant.")
    assert "₹80 lakh" in system["content"]  # the session start's system_block
    assert [t["function"]["name"] for t in first["tools"]] == ["search_memory"]
    # The second user turn: recalled memory follows the user's message, for this reply.
    user, recalled = second["messages"][-2:]
    assert user == {"role": "user", "content": "What was my budget again? And my city?"}
    assert recalled["role"] == "assistant"
    assert recalled["content"].startswith("Memory relevant to the user's last message:")
    assert "budget: ₹80 lakh" in recalled["content"]
    assert agent.recalled[1] == recalled["content"]
    assert "Pune" in after_tool["messages"][-1]["content"]  # the search tool's answer
    # Every user and assistant message, once, in order; tool traffic and recall are not turns.
    assert turns_of("lk-1") == [
        (1, "user", "Hi, it's Priya."),
        (2, "assistant", "Hello Priya."),
        (3, "user", "What was my budget again? And my city?"),
        (4, "assistant", "Pune, and eighty lakh."),
    ]
    assert agent.stored == 4 and agent.failed == []


def test_a_resumed_call_starts_with_its_recent_turns(
    live_server: Any, key: str, model: ScriptedModel
) -> None:
    with Handover(api_key=key, base_url=live_server.url) as hv:
        opened = hv.open_session("demo", "priya", session="lk-2")
        hv.append_turn(opened.session_id, "user", "Call me back about villas.")
        hv.append_turn(opened.session_id, "assistant", "Will do.")
    model.script("chat", ("say", "About the villas: two are free on Saturday."))

    async def call() -> None:
        client = AsyncHandover(api_key=key, base_url=live_server.url)
        async with client, _llm(model) as llm, AgentSession(llm=llm) as session:
            agent = await HandoverAgent.open(
                client, agent="demo", user="priya", session="lk-2", recall=False
            )
            await session.start(agent)
            await session.run(user_input="So?")
            await agent.aclose()

    asyncio.run(call())
    assert model.requests[0]["messages"][1:] == [
        {"role": "user", "content": "Call me back about villas."},
        {"role": "assistant", "content": "Will do."},
        {"role": "user", "content": "So?"},
    ]
    assert [text for _, _, text in turns_of("lk-2")][2:] == [
        "So?",
        "About the villas: two are free on Saturday.",
    ]


def test_readme_example_runs(live_server: Any, key: str, model: ScriptedModel) -> None:
    model.script("chat", ("say", "Hello Priya."))
    code = readme_example(CLIENTS / "livekit" / "README.md", "python")
    done = run_example(code, {"HANDOVER_API_KEY": key, "HANDOVER_URL": live_server.url,
                              "OPENAI_BASE_URL": model.url, "OPENAI_API_KEY": "sk-scripted"})  # fmt: skip
    assert "Hello Priya." in done.stdout
    assert turns_of("call-1") == [(1, "user", "Hi, it's Priya."), (2, "assistant", "Hello Priya.")]
