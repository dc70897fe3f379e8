"""Handover memory for the OpenAI Agents SDK.

- ``HandoverSession`` implements the SDK's ``Session`` protocol on Handover's turn log: the
  runner reads the conversation from it and appends every user and assistant message to it
  (numbered by the client, so a repeated append is stored once).
- ``session.instructions(base)`` gives the agent dynamic instructions: ``base`` plus the
  session start's ``system_block`` (facts and summary; never a turn: the turns are the
  session's items, as the messages they were).
- ``memory_tools(session)``: ``search_memory`` and ``remember_fact`` as function tools.

    async with HandoverSession("demo", "priya", "call-1") as session:
        agent = Agent(name="Advisor", instructions=session.instructions("You advise."),
                      tools=memory_tools(session))
        result = await Runner.run(agent, "What was my budget?", session=session)
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any, Literal

from agents import Tool, function_tool
from handover_client import AsyncHandover, HistoryTurn, NotFoundError, TurnInput
from handover_client import Session as OpenedSession
from handover_client.errors import APIError, HandoverError

if TYPE_CHECKING:
    from agents import Agent, RunContextWrapper
    from agents.items import TResponseInputItem
    from agents.memory import SessionSettings

__all__ = ["HandoverSession", "memory_tools", "merge_retried_input"]

PAGE = 200  # the API's largest page of turns
NOTHING_YET = "No memory found for this query."


def _text(content: Any) -> str:
    """The text of a message's content: a string, or parts (input_text, output_text, refusal)."""
    if isinstance(content, str):
        return content
    parts = []
    for part in content or []:
        if isinstance(part, dict):
            parts.append(str(part.get("text") or part.get("refusal") or ""))
        else:
            parts.append(str(getattr(part, "text", "") or getattr(part, "refusal", "") or ""))
    return "".join(parts)


def _turn(item: Any) -> tuple[Literal["user", "assistant"], str] | None:
    """The turn an input item is, or None: Handover keeps the conversation, not the tool
    traffic (calls, their outputs, reasoning), and not instructions."""
    data = item if isinstance(item, dict) else getattr(item, "model_dump", lambda: {})()
    role = data.get("role")
    if role not in ("user", "assistant") or data.get("type", "message") != "message":
        return None
    text = _text(data.get("content"))
    return (role, text) if text.strip() else None


def _item(role: str, text: str) -> TResponseInputItem:
    return {"role": "assistant" if role == "assistant" else "user", "content": text}


class HandoverSession:
    """The SDK's ``Session`` on one Handover session of ``(agent, user)``.

    ``session_id`` is your conversation's id (Handover's client session id): opening it again,
    from this process or another, resumes the same history. The session is opened on first
    use, one indexed read that also gives the memory for ``instructions``.

    Items map to turns: user and assistant messages are stored as user and assistant turns;
    tool calls, tool outputs and reasoning are not stored (a tool's answer is memory read
    back; extraction would learn it twice), so ``get_items`` gives the conversation as
    messages. ``pop_item`` undoes the last turn (refused with ``turn_extracted`` once the
    write lane has read it); ``clear_session`` takes the turns out of the hot tier (the next
    session start no longer shows them; the log keeps them for search and extraction), and
    this object's ``get_items`` returns only turns appended after it.
    """

    session_settings: SessionSettings | None = None

    def __init__(
        self,
        agent: str,
        user: str,
        session_id: str,
        *,
        client: AsyncHandover | None = None,
        session_settings: SessionSettings | None = None,
    ) -> None:
        self.agent = agent
        self.user = user
        self.session_id = session_id
        self.session_settings = session_settings
        self._own_client = client is None
        self.client = client or AsyncHandover()
        self._opened: OpenedSession | None = None
        self._opening = asyncio.Lock()
        self._cleared_below = 0  # turns under this seq were cleared by this object

    async def __aenter__(self) -> HandoverSession:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        if self._own_client:
            await self.client.aclose()

    async def open(self) -> OpenedSession:
        """Open (or resume) the Handover session once; its memory for the instructions."""
        async with self._opening:
            if self._opened is None:
                self._opened = await self.client.open_session(
                    self.agent, self.user, session=self.session_id
                )
            return self._opened

    async def refresh(self) -> OpenedSession:
        """Read the session start again (memory changed: new facts, a new summary)."""
        self._opened = None
        return await self.open()

    def instructions(
        self, base: str
    ) -> Callable[[RunContextWrapper[Any], Agent[Any]], Awaitable[str]]:
        """Dynamic instructions: ``base``, then the memory of this user (``system_block``)."""

        async def instructions(context: RunContextWrapper[Any], agent: Agent[Any]) -> str:
            block = (await self.open()).system_block
            return f"{base}\n\n{block}" if block else base

        return instructions

    # --- The Session protocol -----------------------------------------------------------------

    async def get_items(self, limit: int | None = None) -> list[TResponseInputItem]:
        """The conversation, oldest first; with ``limit``, its latest ``limit`` messages."""
        newest_first: list[TResponseInputItem] = []
        async for turn in self._newest_first():
            if limit is not None and len(newest_first) >= limit:
                break
            if turn.role in ("user", "assistant"):
                newest_first.append(_item(turn.role, turn.text))
        return newest_first[::-1]

    async def _newest_first(self) -> AsyncIterator[HistoryTurn]:
        """The session's turns, newest first, a page at a time, down to what was cleared."""
        sid = (await self.open()).session_id
        before: int | None = None
        while True:
            page = await self.client.list_turns(sid, limit=PAGE, before_seq=before)
            for turn in page.turns:
                if turn.seq < self._cleared_below:
                    return
                yield turn
            if page.next_before_seq is None:
                return
            before = page.next_before_seq

    async def add_items(self, items: list[TResponseInputItem]) -> None:
        turns = [t for t in map(_turn, items) if t is not None]
        if not turns:
            return
        sid = (await self.open()).session_id
        if turns[0][0] == "user" and await self._unanswered() == turns[0][1]:
            # The same user message again, the last one still unanswered: the run failed after
            # storing its input and is being run again. It is one turn, stored once.
            turns = turns[1:]
            if not turns:
                return
        await self.client.append_turns(sid, [TurnInput(r, t) for r, t in turns])

    async def pop_item(self) -> TResponseInputItem | None:
        turn = await self._latest()
        if turn is None:
            return None
        try:
            removed = await self.client.remove_last_turn(turn.session_id)
        except NotFoundError:
            return None
        if removed.seq != turn.seq:  # another writer appended in between: it went instead
            return _item(removed.role, "")
        return _item(turn.role, turn.text)

    async def clear_session(self) -> None:
        sid = (await self.open()).session_id
        latest = await self._latest()
        await self.client.clear_turns(sid)
        if latest is not None:
            self._cleared_below = latest.seq + 1

    async def _latest(self) -> HistoryTurn | None:
        sid = (await self.open()).session_id
        page = await self.client.list_turns(sid, limit=1)
        turn = page.turns[0] if page.turns else None
        return turn if turn is not None and turn.seq >= self._cleared_below else None

    async def _unanswered(self) -> str | None:
        """The text of the session's last turn when it is a user turn, else None."""
        turn = await self._latest()
        return turn.text if turn is not None and turn.role == "user" else None


def merge_retried_input(
    history: list[TResponseInputItem], new_input: list[TResponseInputItem]
) -> list[TResponseInputItem]:
    """A ``session_input_callback`` for runs you retry: when the history ends with the very
    user message the new input starts with (the failed run stored it), the model sees it
    once. ``RunConfig(session_input_callback=merge_retried_input)``."""
    last = _turn(history[-1]) if history else None
    first = _turn(new_input[0]) if new_input else None
    if last is not None and last[0] == "user" and last == first:
        return history[:-1] + new_input
    return history + new_input


def _tool_error(error: HandoverError) -> str:
    if isinstance(error, APIError):
        return f"Memory error {error.code}: {error.detail}"
    return f"Memory unavailable: {error}"


def memory_tools(session: HandoverSession) -> list[Tool]:
    """``search_memory`` and ``remember_fact`` for this session's user, as function tools."""
    client, agent, user = session.client, session.agent, session.user

    @function_tool
    async def search_memory(query: str, k: int = 5) -> str:
        """Search long-term memory about this user: earlier conversations and facts not in the
        instructions. Use the user's words plus any names, places, dates or numbers.

        Args:
            query: what to look for.
            k: how many results, 1 to 20.
        """
        try:
            found = await client.search(user, query, agent=agent, k=max(1, min(k, 20)))
        except NotFoundError as error:
            if error.code == "user_not_found":
                return NOTHING_YET  # a user Handover has not met yet has no memory
            return _tool_error(error)
        except HandoverError as error:
            return _tool_error(error)
        return found.as_tool_result()

    @function_tool
    async def remember_fact(key: str, value: str | float | bool) -> str:
        """Remember a fact the user stated about themselves. A new value replaces the current
        one; the old one stays in history.

        Args:
            key: a field of the agent's schema (e.g. city, budget), or field:qualifier for one
                of several values (pet:Max).
            value: text for text fields ("Pune"), a number for numbers and money (8000000),
                YYYY-MM-DD for dates, true or false for yes/no fields.
        """
        try:
            entity = await client.write_fact(user, key, value, agent=agent)
        except HandoverError as error:
            return _tool_error(error)
        if entity.created:
            return f"Remembered {entity.key}: {entity.value_text}."
        return f"Already known: {entity.key} is {entity.value_text}."

    return [search_memory, remember_fact]
