"""clients/langgraph: HandoverStore's round trips, and a ReAct graph with the memory node and the
memory tools on LangChain's own fake chat model, against the live server."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from handover_client import AsyncHandover, Handover
from handover_langgraph import HandoverStore, react_agent
from langchain_core.language_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.base import InvalidNamespaceError
from pydantic import Field

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

pytestmark = pytest.mark.django_db(transaction=True)
PRIYA = ("demo", "priya")


class RecordingFakeModel(FakeMessagesListChatModel):
    """LangChain's fake chat model, keeping the messages of every call."""

    seen: list[list[BaseMessage]] = Field(default_factory=list)

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> Any:
        self.seen.append(list(messages))
        return super()._generate(messages, *args, **kwargs)


@pytest.fixture
def key(tenant_a: Tenant) -> str:
    demo_agent(tenant_a)
    return agent_key(tenant_a)


@pytest.fixture
def store(live_server: Any, key: str) -> Iterator[HandoverStore]:
    handover = HandoverStore(key, live_server.url)
    yield handover
    handover.close()


def test_put_get_search_delete_round_trip(store: HandoverStore) -> None:
    assert store.get(PRIYA, "city") is None  # a user Handover has not met: nothing
    assert store.search(PRIYA) == [] and store.search(PRIYA, query="city") == []

    store.put(PRIYA, "city", {"value": "Pune"})
    store.put(PRIYA, "budget", {"value": {"amount": 8_000_000, "currency": "INR"}})
    store.put(PRIYA, "bedrooms", {"value": 3, "source": "inferred"})
    city = store.get(PRIYA, "city")
    assert city is not None and (city.namespace, city.key) == (PRIYA, "city")
    assert {k: city.value[k] for k in ("value", "text", "source")} == {
        "value": "Pune",
        "text": "Pune",
        "source": "explicit",
    }
    budget = store.get(PRIYA, "budget")
    assert budget is not None and budget.value["text"] == "₹80 lakh"
    assert budget.value["value"] == {"amount": 8_000_000, "currency": "INR"}

    # No query: the current facts; a filter keeps those whose value has its entries.
    assert sorted(i.key for i in store.search(PRIYA)) == ["bedrooms", "budget", "city"]
    assert [i.key for i in store.search(PRIYA, filter={"source": "inferred"})] == ["bedrooms"]
    assert len(store.search(PRIYA, limit=2)) == 2
    # A query: Handover's search, ranked, with its confidence.
    hits = store.search(PRIYA, query="which city does she live in", limit=3)
    assert hits and hits[0].value["text"].startswith("city: Pune (current, as of ")
    assert hits[0].key == "entity:1"
    assert hits[0].value["confidence"] == "high" and hits[0].score is not None

    # A new value supersedes; the old one stays in the fact's history.
    store.put(PRIYA, "city", {"value": "Mumbai"})
    assert store.get(PRIYA, "city").value["value"] == "Mumbai"  # type: ignore[union-attr]
    assert Entity.objects.filter(key="city").count() == 2

    store.delete(PRIYA, "city")
    store.delete(PRIYA, "bedrooms")
    assert store.get(PRIYA, "city") is None and store.get(PRIYA, "bedrooms") is None
    assert [i.key for i in store.search(PRIYA)] == ["budget"]
    assert sorted(Entity.objects.values_list("key", flat=True)) == ["budget"]

    with pytest.raises(InvalidNamespaceError):
        store.get(("demo",), "city")
    with pytest.raises(NotImplementedError):
        store.list_namespaces()


def test_async_round_trip(store: HandoverStore) -> None:
    async def scenario() -> None:
        await store.aput(PRIYA, "pet:Max", {"value": "dog"})
        item = await store.aget(PRIYA, "pet:Max")
        assert item is not None and item.value["value"] == "dog"
        assert [i.key for i in await store.asearch(PRIYA)] == ["pet:Max"]
        hits = await store.asearch(PRIYA, query="what pet does she have")
        assert hits and "dog" in hits[0].value["text"]
        await store.adelete(PRIYA, "pet:Max")
        assert await store.aget(PRIYA, "pet:Max") is None
        await store.aclose()

    asyncio.run(scenario())
    assert Entity.objects.count() == 0


def test_react_agent_gets_the_memory_first_searches_and_appends_each_turn(
    live_server: Any, key: str, store: HandoverStore
) -> None:
    with Handover(api_key=key, base_url=live_server.url) as hv:
        hv.write_fact("priya", "budget", {"amount": 8_000_000, "currency": "INR"}, agent="demo")
    search = {"name": "search_memory", "args": {"query": "budget", "k": 3}, "id": "call-1"}
    model = RecordingFakeModel(
        responses=[
            AIMessage("", tool_calls=[search]),
            AIMessage("Your budget is ₹80 lakh."),
            AIMessage("You're welcome."),
        ]
    )
    agent = react_agent(model, store, "demo", checkpointer=InMemorySaver())
    config: Any = {"configurable": {"user_id": "priya", "thread_id": "lg-1"}}

    async def scenario() -> list[BaseMessage]:
        await agent.ainvoke({"messages": [("user", "What was my budget?")]}, config)
        state = await agent.ainvoke({"messages": [("user", "Thanks!")]}, config)
        await store.aclose()
        return list(state["messages"])

    messages = asyncio.run(scenario())
    first, after_tool, second = model.seen
    # The memory comes first, as system text with no turn in it; then the user's message.
    memory = first[0]
    assert isinstance(memory, SystemMessage) and "₹80 lakh" in str(memory.content)
    assert [type(m) for m in first] == [SystemMessage, HumanMessage]
    tool = after_tool[-1]
    assert isinstance(tool, ToolMessage) and "₹80 lakh" in str(tool.content)
    assert "confidence: high" in str(tool.content)
    # The second run of the thread: the memory once, first, then the whole first exchange.
    assert [type(m).__name__ for m in second] == [
        "SystemMessage", "HumanMessage", "AIMessage", "ToolMessage", "AIMessage", "HumanMessage",
    ]  # fmt: skip
    assert [m.id for m in messages].count("handover-memory") == 1
    assert messages[-1].content == "You're welcome."
    # Every user and assistant turn, once, in order; the tool traffic is not a turn.
    assert turns_of("lg-1") == [
        (1, "user", "What was my budget?"),
        (2, "assistant", "Your budget is ₹80 lakh."),
        (3, "user", "Thanks!"),
        (4, "assistant", "You're welcome."),
    ]


def test_remember_fact_tool_writes_the_fact_for_the_runs_user(
    key: str, store: HandoverStore
) -> None:
    remember = {"name": "remember_fact", "args": {"key": "city", "value": "Pune"}, "id": "c1"}
    wrong = {"name": "remember_fact", "args": {"key": "shoe", "value": "9"}, "id": "c2"}
    model = RecordingFakeModel(
        responses=[AIMessage("", tool_calls=[remember, wrong]), AIMessage("Noted.")]
    )
    agent = react_agent(model, store, "demo")
    config: Any = {"configurable": {"user_id": "priya"}}
    state = agent.invoke({"messages": [("user", "I live in Pune.")]}, config)  # sync path
    answers = [m.content for m in state["messages"] if isinstance(m, ToolMessage)]
    assert answers[0] == "Remembered city: Pune."
    assert str(answers[1]).startswith("Memory error invalid:")
    assert list(Entity.objects.values_list("key", "value")) == [("city", "Pune")]
    assert turns_of("langgraph") == [(1, "user", "I live in Pune."), (2, "assistant", "Noted.")]


def test_readme_example_runs(live_server: Any, key: str) -> None:
    code = readme_example(CLIENTS / "langgraph" / "README.md", "python")
    done = run_example(code, {"HANDOVER_API_KEY": key, "HANDOVER_URL": live_server.url})
    city, hit, answer = done.stdout.splitlines()
    assert (city, answer) == ("Pune", "You live in Pune.")
    assert hit.startswith("city: Pune (current, as of ")
    assert turns_of("call-1") == [
        (1, "user", "Where do I live?"),
        (2, "assistant", "You live in Pune."),
    ]


def test_tools_with_the_async_client_only(live_server: Any, key: str) -> None:
    """A store given only an async client never makes a sync one."""

    async def scenario() -> None:
        async with AsyncHandover(api_key=key, base_url=live_server.url) as client:
            store = HandoverStore(async_client=client)
            await store.aput(PRIYA, "city", {"value": "Pune"})
            assert (await store.aget(PRIYA, "city")) is not None
            assert store._client is None

    asyncio.run(scenario())
