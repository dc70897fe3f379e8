"""Handover memory for Pipecat voice pipelines.

``HandoverMemory`` is a frame processor. It owns the pipeline's ``LLMContext``
(``memory.context``): at the ``StartFrame`` it opens the Handover session (one indexed read, no
embedding), appends the user's memory (``system_block``: facts and summary, no turn) to the LLM
service's system instruction, and puts the recent turns in the context as the messages they
were (a user's words never become system text). Every user and assistant turn
the context aggregators complete (``LLMContextUserTurnFrame``, ``LLMContextAssistantTurnFrame``)
is appended in the background, in order, by one task: the frame goes on at once and no frame
ever waits for Handover. ``search_memory`` is a function the model can call (its schema carries
the handler, so the LLM service registers it). At the ``EndFrame`` the appends still queued are
sent before the pipeline ends.

    llm = OpenAILLMService(settings=OpenAILLMService.Settings(system_instruction="You …"))
    memory = HandoverMemory(client, llm, agent="demo", user="priya", session="call-1")
    aggregators = LLMContextAggregatorPair(memory.context)
    pipeline = Pipeline([transport.input(), stt, aggregators.user(), llm, tts,
                         transport.output(), aggregators.assistant(), memory])
"""

from __future__ import annotations

import asyncio
import time
from typing import Any, cast

from handover_client import AsyncHandover, NotFoundError
from handover_client import Session as OpenedSession
from handover_client.errors import APIError, HandoverError
from handover_client.models import Role
from loguru import logger
from pipecat.adapters.llm.schemas.function_schema import FunctionSchema
from pipecat.adapters.llm.schemas.tools_schema import ToolsSchema
from pipecat.frames.frames import (
    CancelFrame,
    EndFrame,
    Frame,
    LLMContextAssistantTurnFrame,
    LLMContextUserTurnFrame,
    StartFrame,
)
from pipecat.processors.aggregators.llm_context import LLMContext, LLMContextMessage
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
from pipecat.services.llm_service import FunctionCallParams, LLMService

__all__ = ["HandoverMemory"]

NOTHING_YET = "No memory found for this query."
DRAIN_SECONDS = 10.0  # at hang-up, how long the queued appends may take before they are dropped


class HandoverMemory(FrameProcessor):
    """Handover's memory of ``user`` (of ``agent``) in a Pipecat pipeline; see the module.

    Put it last, after the assistant aggregator: it then sees both aggregators' turn frames
    before the ``EndFrame``. ``session`` is your call's id (resuming it resumes the session);
    without one every pipeline opens a new Handover session.
    """

    def __init__(
        self,
        client: AsyncHandover,
        llm: LLMService[Any],
        *,
        agent: str,
        user: str,
        session: str | None = None,
        context: LLMContext | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.client, self.llm, self.agent, self.user = client, llm, agent, user
        self.session_key = session
        self.search_function = FunctionSchema(
            name="search_memory",
            description="Search long-term memory about this caller: earlier conversations and "
            "facts not in the context. Use their words plus any names, places, dates or numbers.",
            properties={
                "query": {"type": "string", "description": "what to look for"},
                "k": {"type": "integer", "description": "how many results, 1 to 10"},
            },
            required=["query"],
            handler=self._search,
        )
        self.context = context or LLMContext(tools=ToolsSchema([self.search_function]))
        self.opened: OpenedSession | None = None
        self.open_ms: float | None = None
        """How long the session start took (the one read), in milliseconds."""
        self.queued = 0
        """Turns queued for appending (the aggregators' completed turns seen so far)."""
        self.stored = 0
        self.failed: list[HandoverError] = []
        self._queue: asyncio.Queue[tuple[Role, str]] = asyncio.Queue()
        self._writer: asyncio.Task[None] | None = None

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, StartFrame):
            await self._start()
        elif isinstance(frame, LLMContextUserTurnFrame) and frame.text.strip():
            self._queue.put_nowait(("user", frame.text))  # never awaited here
            self.queued += 1
        elif isinstance(frame, LLMContextAssistantTurnFrame) and frame.text.strip():
            self._queue.put_nowait(("assistant", frame.text))
            self.queued += 1
        elif isinstance(frame, (EndFrame, CancelFrame)):
            await self._drain()
        await self.push_frame(frame, direction)

    async def _start(self) -> None:
        if self.opened is None:
            started = time.perf_counter()
            self.opened = await self.client.open_session(
                self.agent, self.user, session=self.session_key
            )
            self.open_ms = (time.perf_counter() - started) * 1000
            if self.opened.system_block:
                # Composed after the service's own prompt and kept on every inference.
                self.llm.append_system_instruction(self.opened.system_block)
            earlier = list(self.context.get_messages())
            recent = cast(list[LLMContextMessage], self.opened.recent_messages)
            self.context.set_messages([*recent, *earlier])
        if self._writer is None:
            self._writer = self.create_task(self._write(), "handover-appends")

    async def _write(self) -> None:
        """Send the queued turns one by one, in order; the client numbers them (a retry is
        stored once). A turn Handover refuses is logged and kept in ``failed``."""
        assert self.opened is not None
        while True:
            role, text = await self._queue.get()
            try:
                await self.client.append_turn(self.opened.session_id, role, text)
                self.stored += 1
            except HandoverError as error:
                self.failed.append(error)
                logger.warning(f"{self}: Handover did not store a {role} turn: {error}")
            finally:
                self._queue.task_done()

    async def _drain(self) -> None:
        if self._writer is None:
            return
        try:
            await asyncio.wait_for(self._queue.join(), DRAIN_SECONDS)
        except TimeoutError:
            logger.warning(f"{self}: {self._queue.qsize()} turns not stored at hang-up")
        await self.cancel_task(self._writer)
        self._writer = None

    async def _search(self, params: FunctionCallParams) -> None:
        args = params.arguments or {}
        k = max(1, min(int(args.get("k") or 5), 10))
        try:
            found = await self.client.search(
                self.user, str(args.get("query", "")), agent=self.agent, k=k
            )
            answer = found.as_tool_result()
        except NotFoundError as error:
            answer = NOTHING_YET if error.code == "user_not_found" else _answer(error)
        except HandoverError as error:
            answer = _answer(error)
        await params.result_callback(answer)


def _answer(error: HandoverError) -> str:
    if isinstance(error, APIError):
        return f"Memory error {error.code}: {error.detail}"
    return f"Memory unavailable: {error}"
