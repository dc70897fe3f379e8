"""Memory tools for a ReAct agent, the memory and record nodes, and react_agent."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from handover_client import Entity as HandoverEntity
from handover_client import NotFoundError
from handover_client import Session as OpenedSession
from handover_client.errors import APIError, HandoverError
from langchain_core.messages import (
    AIMessage,
    AnyMessage,
    HumanMessage,
    RemoveMessage,
    SystemMessage,
)
from langchain_core.runnables import Runnable, RunnableConfig, RunnableLambda
from langchain_core.tools import BaseTool, StructuredTool
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.graph.message import REMOVE_ALL_MESSAGES
from langgraph.graph.state import CompiledStateGraph
from langgraph.prebuilt import ToolNode, tools_condition

from handover_langgraph.store import NOTHING_YET, HandoverStore, searched_or_none

MEMORY_ID = "handover-memory"  # the id of the memory's system message: replaced, never added

# The user and the conversation come from the run's config.


def _who(config: RunnableConfig | None) -> tuple[str, str]:
    """(user, session) of a run: ``configurable.user_id`` and its ``thread_id``."""
    configurable = (config or {}).get("configurable") or {}
    user = configurable.get("user_id")
    if not user:
        raise ValueError('pass the user as config={"configurable": {"user_id": …}}')
    # Without a thread the user's conversations share one Handover session.
    return str(user), str(configurable.get("thread_id") or "langgraph")


def _answer(error: HandoverError) -> str:
    if isinstance(error, APIError):
        return f"Memory error {error.code}: {error.detail}"
    return f"Memory unavailable: {error}"


SEARCH_DESCRIPTION = (
    "Search long-term memory about this user: earlier conversations and facts not in the "
    "context. Use the user's words plus any names, places, dates or numbers."
)
REMEMBER_DESCRIPTION = (
    "Remember a fact the user stated about themselves. `key` is a field of the agent's schema "
    "(e.g. city, budget) or field:qualifier (pet:Max); `value` is text for text fields, a "
    "number for numbers and money, YYYY-MM-DD for dates. A new value replaces the current one."
)


def _k(k: int) -> int:
    return max(1, min(k, 20))


def memory_tools(store: HandoverStore, agent: str) -> list[BaseTool]:
    """``search_memory(query, k)`` and ``remember_fact(key, value)`` for the run's user."""

    def search_memory(query: str, k: int = 5, *, config: RunnableConfig) -> str:
        user, _ = _who(config)
        try:
            found = searched_or_none(lambda: store.client.search(user, query, agent=agent, k=_k(k)))
        except HandoverError as error:
            return _answer(error)
        return found.as_tool_result() if found else NOTHING_YET

    async def asearch_memory(query: str, k: int = 5, *, config: RunnableConfig) -> str:
        user, _ = _who(config)
        try:
            found = await store.async_client.search(user, query, agent=agent, k=_k(k))
        except NotFoundError as error:
            return NOTHING_YET if error.code == "user_not_found" else _answer(error)
        except HandoverError as error:
            return _answer(error)
        return found.as_tool_result()

    def said(entity: HandoverEntity) -> str:
        if entity.created:
            return f"Remembered {entity.key}: {entity.value_text}."
        return f"Already known: {entity.key} is {entity.value_text}."

    def remember_fact(key: str, value: str | float | bool, *, config: RunnableConfig) -> str:
        user, _ = _who(config)
        try:
            return said(store.client.write_fact(user, key, value, agent=agent))
        except HandoverError as error:
            return _answer(error)

    async def aremember_fact(key: str, value: str | float | bool, *, config: RunnableConfig) -> str:
        user, _ = _who(config)
        try:
            return said(await store.async_client.write_fact(user, key, value, agent=agent))
        except HandoverError as error:
            return _answer(error)

    return [
        StructuredTool.from_function(
            search_memory, asearch_memory, name="search_memory", description=SEARCH_DESCRIPTION
        ),
        StructuredTool.from_function(
            remember_fact, aremember_fact, name="remember_fact", description=REMEMBER_DESCRIPTION
        ),
    ]


def _text(message: AnyMessage) -> str:
    content = message.content
    if isinstance(content, str):
        return content
    return "".join(p if isinstance(p, str) else str(p.get("text", "")) for p in content)


def _injected(state: dict[str, Any], opened: OpenedSession) -> dict[str, Any]:
    """The messages with the memory first (replaced, so a graph's state holds it once)."""
    rest = [m for m in state["messages"] if m.id != MEMORY_ID]
    memory = SystemMessage(opened.system_block, id=MEMORY_ID)
    return {"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES), memory, *rest]}


def _new_user_text(state: dict[str, Any]) -> str | None:
    last = state["messages"][-1] if state["messages"] else None
    return _text(last) if isinstance(last, HumanMessage) and _text(last).strip() else None


def memory_node(store: HandoverStore, agent: str) -> Runnable[Any, Any]:
    """A node for a graph on ``MessagesState``, run when a user message arrives: opens (or
    resumes) the Handover session ``thread_id`` of ``user_id`` (one read), puts the user's
    memory (``system_block``: facts and summary, no turn) first in the messages, and appends
    the user's message as a turn. Put it before the model node."""

    def sync(state: dict[str, Any], config: RunnableConfig) -> dict[str, Any]:
        user, thread = _who(config)
        opened = store.client.open_session(agent, user, session=thread)
        if (text := _new_user_text(state)) is not None:
            store.client.append_turn(opened.session_id, "user", text)
        return _injected(state, opened)

    async def asynchronous(state: dict[str, Any], config: RunnableConfig) -> dict[str, Any]:
        user, thread = _who(config)
        opened = await store.async_client.open_session(agent, user, session=thread)
        if (text := _new_user_text(state)) is not None:
            await store.async_client.append_turn(opened.session_id, "user", text)
        return _injected(state, opened)

    return RunnableLambda(sync, afunc=asynchronous, name="handover_memory")


def _reply(state: dict[str, Any]) -> str | None:
    last = state["messages"][-1] if state["messages"] else None
    if isinstance(last, AIMessage) and not last.tool_calls and _text(last).strip():
        return _text(last)
    return None


def record_node(store: HandoverStore, agent: str) -> Runnable[Any, Any]:
    """A node run after the model's final answer: appends it as the assistant's turn."""

    def sync(state: dict[str, Any], config: RunnableConfig) -> dict[str, Any]:
        user, thread = _who(config)
        if (text := _reply(state)) is not None:
            opened = store.client.open_session(agent, user, session=thread)
            store.client.append_turn(opened.session_id, "assistant", text)
        return {}

    async def asynchronous(state: dict[str, Any], config: RunnableConfig) -> dict[str, Any]:
        user, thread = _who(config)
        if (text := _reply(state)) is not None:
            opened = await store.async_client.open_session(agent, user, session=thread)
            await store.async_client.append_turn(opened.session_id, "assistant", text)
        return {}

    return RunnableLambda(sync, afunc=asynchronous, name="handover_record")


def react_agent(
    model: Runnable[Any, Any],
    store: HandoverStore,
    agent: str,
    tools: Sequence[BaseTool] = (),
    **compile: Any,
) -> CompiledStateGraph[Any, Any, Any, Any]:
    """A ReAct agent with memory: memory → model ⇄ tools → record. ``model`` is a chat model
    (its ``bind_tools`` gets the memory tools and ``tools``; one without it, as the fake
    models, is used as it is). Invoke it with ``config={"configurable": {"user_id": …,
    "thread_id": …}}``; ``compile`` goes to ``StateGraph.compile`` (a checkpointer)."""
    every = [*memory_tools(store, agent), *tools]
    try:
        bound = model.bind_tools(every)  # type: ignore[attr-defined]
    except (AttributeError, NotImplementedError):
        bound = model

    def call(state: MessagesState, config: RunnableConfig) -> dict[str, Any]:
        return {"messages": [bound.invoke(state["messages"], config)]}

    async def acall(state: MessagesState, config: RunnableConfig) -> dict[str, Any]:
        return {"messages": [await bound.ainvoke(state["messages"], config)]}

    graph = StateGraph(MessagesState)
    graph.add_node("memory", memory_node(store, agent))
    graph.add_node("model", RunnableLambda(call, afunc=acall, name="model"))
    graph.add_node("tools", ToolNode(every))
    graph.add_node("record", record_node(store, agent))
    graph.add_edge(START, "memory")
    graph.add_edge("memory", "model")
    graph.add_conditional_edges("model", tools_condition, {"tools": "tools", END: "record"})
    graph.add_edge("tools", "model")
    graph.add_edge("record", END)
    return graph.compile(**compile)
