"""HandoverStore: LangGraph's BaseStore on one user's facts and Handover search."""

from __future__ import annotations

import contextlib
import datetime
from collections.abc import Iterable, Sequence
from typing import Any

from handover_client import AsyncHandover, Handover, NotFoundError
from handover_client import Entity as HandoverEntity
from handover_client import SearchResult as HandoverSearch
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
            found = searched_or_none(lambda: hv.search(user, op.query or "", agent=agent,
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


def searched_or_none(search: Any) -> HandoverSearch | None:
    try:
        return search()
    except NotFoundError as error:
        if error.code != "user_not_found":
            raise
        return None
