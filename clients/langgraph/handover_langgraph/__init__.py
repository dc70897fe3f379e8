"""Handover memory for LangGraph and LangChain.

- ``HandoverStore``: a LangGraph ``BaseStore`` whose namespace ``(agent, user)`` is one user's
  memory of one agent: ``put`` / ``get`` / ``delete`` are facts, ``search`` with a query is
  Handover's search, without one the user's current facts.
- ``memory_tools(store, agent)``: ``search_memory`` and ``remember_fact`` as LangChain tools for
  a ReAct agent; the user is ``config["configurable"]["user_id"]``.
- ``memory_node`` / ``record_node``: graph nodes that put the user's memory in front of the
  messages and append each user and assistant turn; ``react_agent`` wires them around a
  model and its tools.
"""

from __future__ import annotations

import contextlib
import datetime
from collections.abc import Iterable, Sequence
from typing import Any

from handover_client import AsyncHandover, Handover, NotFoundError
from handover_client import Entity as HandoverEntity
from handover_client import SearchResult as HandoverSearch
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
from langgraph.store.base import (
    BaseStore,
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)

__all__ = ["HandoverStore", "memory_node", "memory_tools", "react_agent", "record_node"]

MEMORY_ID = "handover-memory"  # the id of the memory's system message: replaced, never added
NOTHING_YET = "No memory found for this query."


def _namespace(namespace: tuple[str, ...]) -> tuple[str, str]:
    if len(namespace) != 2:
        raise InvalidNamespaceError(
            f"a Handover namespace is (agent, user), not {namespace!r}: memory is per user"
        )
    return namespace[0], namespace[1]


def _fact(namespace: tuple[str, str], entity: HandoverEntity) -> SearchItem:
    value = {
        "value": entity.value,
        "text": entity.value_text,
        "source": entity.source,
        "category": entity.category,
        "valid_from": entity.valid_from.isoformat(),
        "pinned": entity.pinned,
        "id": entity.id,
    }
    return SearchItem(namespace, entity.key, value, entity.valid_from, entity.recorded_at)


def _hits(namespace: tuple[str, str], found: HandoverSearch) -> list[SearchItem]:
    items = []
    for rank, hit in enumerate(found.results, 1):
        when = hit.occurred_at or datetime.datetime.now(datetime.UTC)
        value = {
            "text": hit.text,
            "source": hit.source,
            "confidence": hit.confidence,
            "occurred_at": hit.occurred_at.isoformat() if hit.occurred_at else None,
            "stale": hit.stale,
        }
        items.append(SearchItem(namespace, f"{hit.source}:{rank}", value, when, when, hit.score))
    return items


def _matches(item: Item, filter: dict[str, Any] | None) -> bool:
    return all(item.value.get(k) == v for k, v in (filter or {}).items())


def _put_value(value: Any) -> tuple[Any, str | None]:
    if not isinstance(value, dict) or "value" not in value:
        raise ValueError('put a fact as {"value": …} (and "source": explicit / confirmed / …)')
    return value["value"], value.get("source")


class HandoverStore(BaseStore):
    """LangGraph's ``BaseStore`` on Handover: the namespace ``(agent, user)`` is one user's
    memory of one agent (an agent-scoped API key reaches only its agent).

    - ``put(ns, key, {"value": v, "source"?: …})`` writes the fact ``key`` (a field of the
      agent's schema, or ``field:qualifier``): a new value supersedes the current one, which
      stays in the fact's history; ``delete`` forgets it (every version).
    - ``get(ns, key)`` is the current fact: ``value`` holds ``value``, ``text``, ``source``,
      ``category``, ``valid_from``, ``pinned`` and ``id``.
    - ``search(ns, query=…)`` is Handover's search: items keyed ``"{source}:{rank}"`` with
      ``text``, ``source``, ``confidence``, ``occurred_at``, ``stale`` and the score. Without a
      query it lists the current facts. ``filter`` keeps items whose value has those entries.
    - ``list_namespaces`` is not offered: there is no call listing an agent's users.

    Sync calls use a ``Handover`` client, async calls an ``AsyncHandover`` (both from
    ``HANDOVER_API_KEY`` / ``HANDOVER_URL`` unless given).
    """

    def __init__(
        self,
        api_key: str | None = None,
        base_url: str | None = None,
        *,
        client: Handover | None = None,
        async_client: AsyncHandover | None = None,
    ) -> None:
        self._key, self._url = api_key, base_url
        self._client, self._async_client = client, async_client

    @property
    def client(self) -> Handover:
        if self._client is None:
            self._client = Handover(self._key, self._url)
        return self._client

    @property
    def async_client(self) -> AsyncHandover:
        if self._async_client is None:
            self._async_client = AsyncHandover(self._key, self._url)
        return self._async_client

    def close(self) -> None:
        if self._client is not None:
            self._client.close()

    async def aclose(self) -> None:
        if self._async_client is not None:
            await self._async_client.aclose()

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        return [self._run(op) for op in ops]

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return [await self._arun(op) for op in ops]

    def _run(self, op: Op) -> Result:
        hv = self.client
        if isinstance(op, ListNamespacesOp):
            raise NotImplementedError("Handover has no call listing an agent's users")
        agent, user = _namespace(op.namespace_prefix if isinstance(op, SearchOp) else op.namespace)
        ns = (agent, user)
        if isinstance(op, GetOp):
            held = _current(lambda: hv.list_entities(user, agent=agent, key=op.key))
            return _fact(ns, held[0]) if held else None
        if isinstance(op, PutOp):
            if op.value is None:
                for entity in _current(lambda: hv.list_entities(user, agent=agent, key=op.key)):
                    with contextlib.suppress(NotFoundError):  # went with an earlier version
                        hv.forget_entity(entity.id)
                return None
            value, source = _put_value(op.value)
            hv.write_fact(user, op.key, value, agent=agent, source=source)
            return None
        if op.query:
            found = _searched(lambda: hv.search(user, op.query or "", agent=agent,
                                                k=min(op.limit + op.offset, 50)))  # fmt: skip
            items = _hits(ns, found) if found else []
        else:
            items = [_fact(ns, e) for e in _current(lambda: hv.list_entities(user, agent=agent))]
        return _page(items, op)

    async def _arun(self, op: Op) -> Result:
        hv = self.async_client
        if isinstance(op, ListNamespacesOp):
            raise NotImplementedError("Handover has no call listing an agent's users")
        agent, user = _namespace(op.namespace_prefix if isinstance(op, SearchOp) else op.namespace)
        ns = (agent, user)
        if isinstance(op, GetOp):
            held = await _acurrent(hv.list_entities(user, agent=agent, key=op.key))
            return _fact(ns, held[0]) if held else None
        if isinstance(op, PutOp):
            if op.value is None:
                for entity in await _acurrent(hv.list_entities(user, agent=agent, key=op.key)):
                    with contextlib.suppress(NotFoundError):  # went with an earlier version
                        await hv.forget_entity(entity.id)
                return None
            value, source = _put_value(op.value)
            await hv.write_fact(user, op.key, value, agent=agent, source=source)
            return None
        if op.query:
            try:
                found = await hv.search(
                    user, op.query, agent=agent, k=min(op.limit + op.offset, 50)
                )
            except NotFoundError as error:
                if error.code != "user_not_found":
                    raise
                return []
            items = _hits(ns, found)
        else:
            items = [_fact(ns, e) for e in await _acurrent(hv.list_entities(user, agent=agent))]
        return _page(items, op)


def _page(items: Sequence[SearchItem], op: SearchOp) -> list[SearchItem]:
    kept = [i for i in items if _matches(i, op.filter)]
    return kept[op.offset : op.offset + op.limit]


def _current(read: Any) -> list[HandoverEntity]:
    """The user's current facts, or none for a user Handover has not met."""
    try:
        return list(read())
    except NotFoundError as error:
        if error.code != "user_not_found":
            raise
        return []


async def _acurrent(read: Any) -> list[HandoverEntity]:
    try:
        return list(await read)
    except NotFoundError as error:
        if error.code != "user_not_found":
            raise
        return []


def _searched(search: Any) -> HandoverSearch | None:
    try:
        return search()
    except NotFoundError as error:
        if error.code != "user_not_found":
            raise
        return None


# --- Tools and nodes: the user and the conversation come from the run's config ---------------


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
            found = _searched(lambda: store.client.search(user, query, agent=agent, k=_k(k)))
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
