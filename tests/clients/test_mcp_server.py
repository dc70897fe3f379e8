"""``manage.py mcp`` driven by the MCP SDK's own client: over stdio, and over streamable HTTP."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx2
import pytest
from django.db import connection
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from memory.models import Entity, Session
from schemas.models import Agent
from tenants.models import KeyRole, Tenant
from tenants.services import api_key_create

ROOT = Path(__file__).resolve().parent.parent.parent
pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def raw_key(tenant_a: Tenant, property_agent: Agent) -> str:
    return api_key_create(tenant=tenant_a, name="mcp", role=KeyRole.AGENT, actor="t")[1]


def _env(live_server: Any, key: str) -> dict[str, str]:
    return {**os.environ, "HANDOVER_API_KEY": key, "HANDOVER_URL": live_server.url}


def _text(result: Any) -> str:
    return "\n".join(part.text for part in result.content if part.type == "text")


def _count_facts() -> int:
    try:
        return Entity.objects.count()
    finally:
        connection.close()  # this thread's own connection


def test_stdio_tools_remember_search_context_and_forget(live_server: Any, raw_key: str) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["manage.py", "mcp", "--agent", "property", "--user", "priya", "--session", "desk"],
        env=_env(live_server, raw_key),
        cwd=str(ROOT),
    )

    async def scenario() -> dict[str, Any]:
        async with Client(params, read_timeout_seconds=60) as client:
            tools = await client.list_tools()
            out: dict[str, Any] = {"tools": sorted(tool.name for tool in tools.tools)}
            # A user Handover has never seen: no memory, not an error.
            out["unknown"] = [
                _text(await client.call_tool("search_memory", {"query": "budget"})),
                _text(await client.call_tool("forget_fact", {"key": "budget"})),
            ]
            budget = {"amount": 8_000_000, "currency": "INR"}
            remembered = await client.call_tool("remember_fact", {"key": "budget", "value": budget})
            again = await client.call_tool("remember_fact", {"key": "budget", "value": budget})
            out["remember"] = (_text(remembered), _text(again))
            out["search"] = _text(await client.call_tool("search_memory", {"query": "budget"}))
            out["context"] = _text(await client.call_tool("get_context", {}))
            wrong = await client.call_tool("remember_fact", {"key": "shoe_size", "value": "9"})
            out["wrong"] = (wrong.is_error, _text(wrong))
            out["facts_before_forget"] = await asyncio.to_thread(_count_facts)
            out["forget"] = _text(await client.call_tool("forget_fact", {"key": "budget"}))
            out["forget_again"] = _text(await client.call_tool("forget_fact", {"key": "budget"}))
            return out

    out = asyncio.run(scenario())
    assert out["tools"] == [
        "forget_fact", "get_context", "record_turn", "remember_fact", "search_memory",
    ]  # fmt: skip
    assert out["unknown"] == [
        "No memory found for this query.",
        "Nothing is remembered under 'budget'.",
    ]
    assert out["remember"] == ("Remembered budget: ₹80 lakh.", "Already known: budget is ₹80 lakh.")
    assert "₹80 lakh" in out["search"] and "confidence: high" in out["search"]
    assert "budget: ₹80 lakh" in out["context"]
    assert out["wrong"][0] is True
    assert "invalid: key: 'shoe_size' is not a field of the active schema" in out["wrong"][1]
    assert out["facts_before_forget"] == 1
    assert out["forget"] == "Forgot budget (1 version)."
    assert out["forget_again"] == "Nothing is remembered under 'budget'."
    assert Entity.objects.count() == 0
    assert list(Session.objects.values_list("external_id", flat=True)) == ["desk"]


def test_stdio_with_a_bad_key_reports_the_api_code(live_server: Any, raw_key: str) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["manage.py", "mcp", "--agent", "property", "--user", "priya"],
        env=_env(live_server, raw_key[:-4] + "AAAA"),
        cwd=str(ROOT),
    )

    async def scenario() -> Any:
        async with Client(params, read_timeout_seconds=60) as client:
            return await client.call_tool("search_memory", {"query": "budget"})

    result = asyncio.run(scenario())
    assert result.is_error is True and "invalid_api_key: " in _text(result)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_http_transport_wants_the_key_and_binds_each_connection_to_its_user(
    live_server: Any, raw_key: str, tmp_path: Path
) -> None:
    # No --user: one server for every user; each connection says whose memory it is for.
    port = _free_port()
    log = (tmp_path / "mcp.log").open("wb")
    server = subprocess.Popen(
        [sys.executable, "manage.py", "mcp", "--agent", "property",
         "--transport", "http", "--port", str(port)],
        cwd=ROOT, env=_env(live_server, raw_key), stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert server.poll() is None, (tmp_path / "mcp.log").read_text()[-3000:]
            try:
                refused = httpx2.post(url, json={})
                break
            except httpx2.TransportError:
                assert time.monotonic() < deadline
                time.sleep(0.2)
        assert refused.status_code == 401 and refused.json()["code"] == "invalid_api_key"

        def connect(user: str) -> Any:
            headers = {"Authorization": f"Bearer {raw_key}", "X-Handover-User": user}
            http = httpx2.AsyncClient(headers=headers)
            return http, Client(streamable_http_client(url, http_client=http))

        async def scenario() -> dict[str, Any]:
            alice_http, alice = connect("alice")
            bob_http, bob = connect("bob")
            async with alice_http, alice, bob_http, bob:
                await alice.call_tool("remember_fact", {"key": "city", "value": "Pune"})
                await alice.call_tool("record_turn", {"role": "user", "text": "alice here"})
                await bob.call_tool("record_turn", {"role": "user", "text": "bob here"})
                across = await bob.call_tool("search_memory", {"query": "city", "user": "alice"})
                return {
                    "alice": _text(await alice.call_tool("search_memory", {"query": "city"})),
                    "bob": _text(await bob.call_tool("search_memory", {"query": "city"})),
                    "bob_context": _text(await bob.call_tool("get_context", {})),
                    "across": (across.is_error, _text(across)),
                }

        out = asyncio.run(scenario())
        assert "Pune" in out["alice"]
        assert out["bob"] == "No memory found for this query."
        assert "Pune" not in out["bob_context"] and "alice here" not in out["bob_context"]
        assert "bob here" in out["bob_context"]
        assert out["across"][0] is True
        assert "permission_denied: this connection acts for another user" in out["across"][1]
        assert Entity.objects.get().end_user.external_id == "alice"
        turns = sorted(Session.objects.values_list("end_user__external_id", "turns__text"))
        assert turns == [("alice", "alice here"), ("bob", "bob here")]
    finally:
        server.terminate()
        server.wait(20)
