"""examples/agent_loop.py, run as a user would, against the live server and the scripted model."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memory.models import Turn
from schemas.models import Agent
from tenants.models import KeyRole, Tenant
from tenants.services import api_key_create
from tests.scripted_model import ScriptedModel

ROOT = Path(__file__).resolve().parent.parent
pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def model() -> Iterator[ScriptedModel]:
    server = ScriptedModel()
    yield server
    server.close()


def test_agent_loop_injects_context_searches_on_a_tool_call_and_appends_every_turn(
    live_server: Any, model: ScriptedModel, tenant_a: Tenant, property_agent: Agent
) -> None:
    from handover_client import Handover

    key = api_key_create(tenant=tenant_a, name="agent", role=KeyRole.AGENT, actor="t")[1]
    with Handover(api_key=key, base_url=live_server.url) as hv:
        hv.write_fact("priya", "city", "Pune", agent="property")
        hv.write_fact("priya", "budget", {"amount": 8_000_000, "currency": "INR"}, agent="property")

    model.script(
        "chat",
        ("tool_call", {"name": "search_memory", "arguments": {"query": "budget", "k": 3}}),
        ("say", "Your budget is ₹80 lakh."),
        ("say", "Happy to help."),
    )
    env = {**os.environ, "HANDOVER_API_KEY": key, "HANDOVER_URL": live_server.url,
           "OPENAI_BASE_URL": model.url, "OPENAI_API_KEY": "sk-scripted"}  # fmt: skip
    done = subprocess.run(
        [sys.executable, "examples/agent_loop.py", "--agent", "property", "--user", "priya",
         "--session", "chat-1", "--model", "scripted-1"],
        input="What was my budget again?\nThanks!\n", capture_output=True, text=True, cwd=ROOT,
        env=env, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.splitlines() == ["Your budget is ₹80 lakh.", "Happy to help."]

    first, after_tool, second = model.requests
    # Session start: the context block in the system prompt, memory_tool as the tool.
    system = first["messages"][0]
    assert system["role"] == "system" and "- city: Pune" in system["content"]
    assert [t["function"]["name"] for t in first["tools"]] == ["search_memory"]
    assert (
        first["model"] == "scripted-1" and model.headers[0]["Authorization"] == "Bearer sk-scripted"
    )
    # The model asked to search; the results came back as the tool's answer.
    tool = after_tool["messages"][-1]
    assert (
        tool["role"] == "tool"
        and tool["tool_call_id"] == after_tool["messages"][-2]["tool_calls"][0]["id"]
    )
    assert "₹80 lakh" in tool["content"] and "confidence: high" in tool["content"]
    assert after_tool["messages"][-2]["tool_calls"][0]["function"]["name"] == "search_memory"
    assert [m["role"] for m in second["messages"]][-2:] == ["assistant", "user"]

    # Every user and assistant turn was appended, numbered by the client; no tool output.
    assert list(Turn.objects.order_by("seq").values_list("seq", "role", "text")) == [
        (1, "user", "What was my budget again?"),
        (2, "assistant", "Your budget is ₹80 lakh."),
        (3, "user", "Thanks!"),
        (4, "assistant", "Happy to help."),
    ]


def test_async_voice_agent_answers_first_and_stores_every_turn_in_order(
    live_server: Any, model: ScriptedModel, tenant_a: Tenant, property_agent: Agent
) -> None:
    from handover_client import Handover

    key = api_key_create(tenant=tenant_a, name="agent", role=KeyRole.AGENT, actor="t")[1]
    with Handover(api_key=key, base_url=live_server.url) as hv:
        hv.write_fact("priya", "budget", {"amount": 8_000_000, "currency": "INR"}, agent="property")
    model.script(
        "chat",
        ("say", "Hello Priya."),
        ("tool_call", {"name": "search_memory", "arguments": {"query": "budget"}}),
        ("say", "Eighty lakh."),
    )
    env = {**os.environ, "HANDOVER_API_KEY": key, "HANDOVER_URL": live_server.url,
           "OPENAI_BASE_URL": model.url}  # fmt: skip
    agent = subprocess.Popen(
        [sys.executable, "examples/async_voice_agent.py", "--agent", "property", "--user", "priya"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
        env=env,
    )  # fmt: skip
    try:
        assert agent.stdin is not None
        agent.stdin.write("Hi!\n")
        agent.stdin.flush()
        # While it waits for the caller's next line, the first exchange is stored: waiting for
        # input does not hold up the background appends.
        deadline = time.monotonic() + 30
        while Turn.objects.count() < 2:
            assert agent.poll() is None and time.monotonic() < deadline, "appends stalled"
            time.sleep(0.05)
        stdout, stderr = agent.communicate("What was my budget?\n", timeout=120)
    finally:
        agent.kill()
    assert agent.returncode == 0, stderr[-3000:]
    assert stdout.splitlines() == ["Hello Priya.", "Eighty lakh."]
    assert "₹80 lakh" in model.requests[0]["messages"][0]["content"]
    assert "₹80 lakh" in model.requests[2]["messages"][-1]["content"]  # the search result
    assert list(Turn.objects.order_by("seq").values_list("seq", "role", "text")) == [
        (1, "user", "Hi!"),
        (2, "assistant", "Hello Priya."),
        (3, "user", "What was my budget?"),
        (4, "assistant", "Eighty lakh."),
    ]
