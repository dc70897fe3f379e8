"""Handover memory for LiveKit Agents (``livekit-agents`` 1.8).

``HandoverAgent`` is an ``Agent`` with the caller's memory:

- ``await HandoverAgent.open(client, agent=…, user=…, session=…, instructions=…)`` opens the
  Handover session (one indexed read, no embedding) before the call is answered: the memory
  (``system_block``) follows your instructions, and a resumed call's recent turns are the
  chat context's first messages.
- When a user turn completes and the model is about to answer (``llm_node``) it recalls what
  Handover holds about what the user just said (a search, time-boxed: a slow answer is
  skipped, never waited for) and adds the confident hits to that reply's context.
- Every user and assistant message added to the conversation (``conversation_item_added``) is
  appended to Handover in the background, in order, by one task; the reply never waits for it.
  ``await agent.aclose()`` (or the session's close) sends what is still queued.
- ``search_memory`` is a function tool for anything the recall did not bring.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterable
from typing import Any, cast

from handover_client import AsyncHandover, NotFoundError
from handover_client import Session as OpenedSession
from handover_client.errors import APIError, HandoverError
from handover_client.models import Role
from livekit.agents import Agent, FlushSentinel, ModelSettings, llm
from livekit.agents.llm import ChatContext, ChatMessage, ChatRole, function_tool
from livekit.agents.voice.events import CloseEvent, ConversationItemAddedEvent

__all__ = ["HandoverAgent"]

logger = logging.getLogger("handover.livekit")
NOTHING_YET = "No memory found for this query."
RECALL_SECONDS = 0.5  # recall that takes longer is skipped: the reply does not wait for it
DRAIN_SECONDS = 10.0  # at close, how long the queued appends may take


class HandoverAgent(Agent):
    """A LiveKit ``Agent`` with Handover's memory of ``user``; make it with ``open``."""

    def __init__(
        self,
        client: AsyncHandover,
        opened: OpenedSession,
        *,
        agent: str,
        user: str,
        instructions: str,
        recall: bool = True,
        recall_seconds: float = RECALL_SECONDS,
        **kwargs: Any,
    ) -> None:
        memory = "\n\n".join(part for part in (instructions, opened.system_block) if part)
        chat_ctx = ChatContext.empty()
        for message in opened.recent_messages:
            chat_ctx.add_message(role=cast(ChatRole, message["role"]), content=message["content"])
        super().__init__(instructions=memory, chat_ctx=chat_ctx, **kwargs)
        self.client, self.opened, self.agent_slug, self.user = client, opened, agent, user
        self.recall, self.recall_seconds = recall, recall_seconds
        self.recalled: list[str] = []
        """What each user turn's recall added (empty text: nothing confident, or too slow)."""
        self.stored = 0
        self.failed: list[HandoverError] = []
        self._queue: asyncio.Queue[tuple[Role, str]] = asyncio.Queue()
        self._writer: asyncio.Task[None] | None = None
        self._listening = False
        self._closing: asyncio.Future[None] | None = None

    @classmethod
    async def open(
        cls,
        client: AsyncHandover,
        *,
        agent: str,
        user: str,
        session: str | None = None,
        instructions: str = "",
        **kwargs: Any,
    ) -> HandoverAgent:
        """Open (or resume: ``session`` is your call's id) the Handover session, then the agent."""
        opened = await client.open_session(agent, user, session=session)
        return cls(client, opened, agent=agent, user=user, instructions=instructions, **kwargs)

    async def on_enter(self) -> None:
        if not self._listening:  # once, however often the agent becomes active again
            self._listening = True
            self.session.on("conversation_item_added", self._item_added)
            self.session.on("close", self._closed)
        if self._writer is None:
            self._writer = asyncio.create_task(self._write(), name="handover-appends")

    def _item_added(self, event: ConversationItemAddedEvent) -> None:
        item = event.item
        if isinstance(item, ChatMessage) and item.role in ("user", "assistant"):
            text = item.text_content or ""
            if text.strip():
                self._queue.put_nowait((item.role, text))

    def _closed(self, event: CloseEvent) -> None:
        self._closing = asyncio.ensure_future(self.aclose())

    async def _write(self) -> None:
        """Send the queued turns one by one, in order; the client numbers them (a retry is
        stored once). A turn Handover refuses is logged and kept in ``failed``."""
        while True:
            role, text = await self._queue.get()
            try:
                await self.client.append_turn(self.opened.session_id, role, text)
                self.stored += 1
            except HandoverError as error:
                self.failed.append(error)
                logger.warning("Handover did not store a %s turn: %s", role, error)
            finally:
                self._queue.task_done()

    async def aclose(self) -> None:
        """Send the turns still queued (up to ``DRAIN_SECONDS``), then stop the writer."""
        if self._writer is None:
            return
        try:
            await asyncio.wait_for(self._queue.join(), DRAIN_SECONDS)
        except TimeoutError:
            logger.warning("%d turns not stored at close", self._queue.qsize())
        self._writer.cancel()
        self._writer = None

    async def llm_node(
        self, chat_ctx: llm.ChatContext, tools: list[llm.Tool], model_settings: ModelSettings
    ) -> AsyncIterable[llm.ChatChunk | str | FlushSentinel]:
        """Recall, then LiveKit's own LLM node. This is where a completed user turn meets the
        model, whether it came from speech (after ``on_user_turn_completed``) or from text input
        (``session.run(user_input=…)``, which skips that hook); a tool's answer does not recall."""
        last = chat_ctx.items[-1] if chat_ctx.items else None
        if self.recall and isinstance(last, ChatMessage) and last.role == "user":
            chat_ctx = chat_ctx.copy()  # for this reply only
            await self._recall(chat_ctx, last.text_content or "")
        async for chunk in Agent.default.llm_node(self, chat_ctx, tools, model_settings):
            yield chunk

    async def _recall(self, chat_ctx: llm.ChatContext, said: str) -> None:
        """What Handover holds about what the user just said, the confident hits, as a message
        after theirs (as LiveKit's retrieval recipe adds it: not the user's words, not system
        text). A recall slower than ``recall_seconds`` is skipped."""
        if not said.strip():
            return
        try:
            found = await asyncio.wait_for(
                self.client.search(self.user, said, agent=self.agent_slug, k=3),
                self.recall_seconds,
            )
        except (TimeoutError, HandoverError) as error:
            logger.info("recall skipped: %s", error or "too slow")
            self.recalled.append("")
            return
        confident = [hit for hit in found.results if hit.confidence != "low"]
        if not confident:
            self.recalled.append("")
            return
        lines = [f"- {hit.text}" for hit in confident]
        text = "Memory relevant to the user's last message:\n" + "\n".join(lines)
        chat_ctx.add_message(role="assistant", content=text)
        self.recalled.append(text)

    @function_tool
    async def search_memory(self, query: str, k: int = 5) -> str:
        """Search long-term memory about this caller: earlier conversations and facts not in
        the context. Use their words plus any names, places, dates or numbers.

        Args:
            query: what to look for.
            k: how many results, 1 to 10.
        """
        try:
            found = await self.client.search(
                self.user, query, agent=self.agent_slug, k=max(1, min(k, 10))
            )
        except NotFoundError as error:
            return NOTHING_YET if error.code == "user_not_found" else _answer(error)
        except HandoverError as error:
            return _answer(error)
        return found.as_tool_result()


def _answer(error: HandoverError) -> str:
    if isinstance(error, APIError):
        return f"Memory error {error.code}: {error.detail}"
    return f"Memory unavailable: {error}"
