"""clients/pipecat: HandoverMemory in a Pipecat pipeline driven with frames (no transport): the
context aggregators, Pipecat's OpenAI LLM service on the scripted model, and the memory
processor, against the live server. Appends are made slow on purpose, to show that no frame
waits for them; the time each frame spends in the processor is measured and printed."""

from __future__ import annotations

import asyncio
import datetime
import statistics
import time
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest
from handover_client import AsyncHandover, Handover
from handover_pipecat import HandoverMemory
from pipecat.frames.frames import (
    EndFrame,
    Frame,
    StartFrame,
    TranscriptionFrame,
    UserStartedSpeakingFrame,
    UserStoppedSpeakingFrame,
)
from pipecat.pipeline.pipeline import Pipeline
from pipecat.pipeline.worker import PipelineWorker
from pipecat.processors.aggregators.llm_response_universal import (
    LLMContextAggregatorPair,
    LLMUserAggregatorParams,
)
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
from pipecat.services.openai.llm import OpenAILLMService
from pipecat.tests.utils import run_test
from pipecat.turns.user_turn_strategies import ExternalUserTurnStrategies
from pipecat.workers.runner import WorkerRunner

from tenants.models import Tenant
from tests.clients.adapters import CLIENTS, agent_key, demo_agent, readme_example, turns_of
from tests.scripted_model import ScriptedModel

pytestmark = pytest.mark.django_db(transaction=True)
APPEND_DELAY = 0.5  # seconds every turn append takes here (a slow network, a busy server)


class SlowAppends(httpx2.AsyncBaseTransport):
    """The real transport, with every turn append held for APPEND_DELAY first."""

    def __init__(self) -> None:
        self.inner = httpx2.AsyncHTTPTransport()
        self.appends: list[float] = []

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        started = time.perf_counter()
        if request.method == "POST" and request.url.path.endswith("/turns"):
            await asyncio.sleep(APPEND_DELAY)
        response = await self.inner.handle_async_request(request)
        if request.url.path.endswith("/turns"):
            self.appends.append(time.perf_counter() - started)
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


class TimedMemory(HandoverMemory):
    """HandoverMemory, timing how long each frame spends in it (its added latency)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.spent: list[tuple[str, float]] = []

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        started = time.perf_counter()
        await super().process_frame(frame, direction)
        if not isinstance(frame, (StartFrame, EndFrame)):  # session start, hang-up: by design
            self.spent.append((type(frame).__name__, time.perf_counter() - started))


@pytest.fixture
def key(tenant_a: Tenant) -> str:
    demo_agent(tenant_a)
    return agent_key(tenant_a)


@pytest.fixture
def model() -> Iterator[ScriptedModel]:
    server = ScriptedModel()
    yield server
    server.close()


def _said(text: str) -> list[Frame]:
    """A user's turn as a speech-to-text service and turn detection would give it."""
    now = datetime.datetime.now(datetime.UTC).isoformat()
    return [
        UserStartedSpeakingFrame(),
        TranscriptionFrame(text, "priya", now),
        UserStoppedSpeakingFrame(),
    ]


def _llm(model: ScriptedModel) -> OpenAILLMService:
    settings = OpenAILLMService.Settings(
        model="s-1", system_instruction="You are a voice assistant."
    )
    return OpenAILLMService(api_key="sk-scripted", base_url=model.url, settings=settings)


def _pipeline(memory: HandoverMemory) -> Pipeline:
    # Turns start and stop on the frames sent (no VAD, no turn analyzer model).
    user = LLMUserAggregatorParams(user_turn_strategies=ExternalUserTurnStrategies())
    aggregators = LLMContextAggregatorPair(memory.context, user_params=user)
    return Pipeline([aggregators.user(), memory.llm, aggregators.assistant(), memory])


async def _drive(pipeline: Pipeline, steps: list[Any]) -> None:
    """Run ``pipeline`` as a call: each step is a frame to send, or a condition to wait for
    (the bot's answer) before the next one; then hang up (EndFrame)."""
    worker = PipelineWorker(pipeline, cancel_on_idle_timeout=False)
    started = asyncio.Event()

    @worker.event_handler("on_pipeline_started")
    async def _started(worker: Any, frame: Any) -> None:
        started.set()

    async def call() -> None:
        await asyncio.wait_for(started.wait(), 10)
        for step in steps:
            if callable(step):
                deadline = time.monotonic() + 20
                while not step():
                    assert time.monotonic() < deadline, "the pipeline did not get there"
                    await asyncio.sleep(0.01)
            else:
                await worker.queue_frame(step)
        await worker.queue_frame(EndFrame())

    runner = WorkerRunner(handle_sigint=False)
    await runner.add_workers(worker)
    await asyncio.gather(runner.run(), call())


def test_memory_at_start_search_as_a_function_and_appends_that_never_block(
    live_server: Any, key: str, model: ScriptedModel
) -> None:
    with Handover(api_key=key, base_url=live_server.url) as hv:
        hv.write_fact("priya", "budget", {"amount": 8_000_000, "currency": "INR"}, agent="demo")
    model.script(
        "chat",
        ("say", "Hello Priya."),
        ("tool_call", {"name": "search_memory", "arguments": {"query": "budget"}}),
        ("say", "Eighty lakh."),
    )
    transport = SlowAppends()

    async def scenario() -> TimedMemory:
        client = AsyncHandover(api_key=key, base_url=live_server.url, transport=transport)
        async with client:
            memory = TimedMemory(client, _llm(model), agent="demo", user="priya", session="voice-1")
            await _drive(_pipeline(memory), [
                *_said("Hi, it's Priya."),
                lambda: memory.queued == 2,  # the answer is out: the next turn
                *_said("What was my budget?"),
                lambda: memory.queued == 4,
            ])  # fmt: skip
            return memory

    memory = asyncio.run(scenario())
    first, second, after_tool = model.requests
    system = first["messages"][0]
    assert system["role"] == "system"
    assert system["content"].startswith("You are a voice assistant.\n\n# Memory of this user")
    assert "₹80 lakh" in system["content"]  # the session start's system_block
    assert first["messages"][1:] == [{"role": "user", "content": "Hi, it's Priya."}]
    assert [t["function"]["name"] for t in first["tools"]] == ["search_memory"]
    assert second["messages"][-1] == {"role": "user", "content": "What was my budget?"}
    tool = after_tool["messages"][-1]
    assert tool["role"] == "tool" and "₹80 lakh" in tool["content"]
    # Every turn, once, in order: the hang-up waited for the queued appends.
    assert turns_of("voice-1") == [
        (1, "user", "Hi, it's Priya."),
        (2, "assistant", "Hello Priya."),
        (3, "user", "What was my budget?"),
        (4, "assistant", "Eighty lakh."),
    ]
    assert memory.stored == 4 and memory.failed == []
    assert len(transport.appends) == 4 and min(transport.appends) >= APPEND_DELAY

    # No frame waited for an append: each took APPEND_DELAY, a frame's time in the processor
    # is a queue put and a push.
    spent = [seconds for _, seconds in memory.spent]
    turn_frames = [s for name, s in memory.spent if name.endswith("TurnFrame")]
    assert len(turn_frames) == 4
    print(
        f"\nHandoverMemory, added latency per frame over {len(spent)} frames: "
        f"median {statistics.median(spent) * 1e3:.3f} ms, max {max(spent) * 1e3:.3f} ms; "
        f"on the 4 turn frames that queue an append: max {max(turn_frames) * 1e3:.3f} ms "
        f"(each append took ≥ {APPEND_DELAY * 1e3:.0f} ms); session start {memory.open_ms:.1f} ms"
    )
    assert max(spent) < APPEND_DELAY / 5


def test_a_resumed_call_starts_with_its_recent_turns(
    live_server: Any, key: str, model: ScriptedModel
) -> None:
    with Handover(api_key=key, base_url=live_server.url) as hv:
        opened = hv.open_session("demo", "priya", session="voice-2")
        hv.append_turn(opened.session_id, "user", "Call me back about villas.")
        hv.append_turn(opened.session_id, "assistant", "Will do.")

    async def scenario() -> list[Any]:
        async with AsyncHandover(api_key=key, base_url=live_server.url) as client:
            memory = HandoverMemory(
                client, _llm(model), agent="demo", user="priya", session="voice-2"
            )
            await run_test(memory, frames_to_send=[], start_timeout=5)
            return list(memory.context.get_messages())

    messages = asyncio.run(scenario())
    assert messages == [
        {"role": "user", "content": "Call me back about villas."},
        {"role": "assistant", "content": "Will do."},
    ]


class _Passthrough(FrameProcessor):
    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        await self.push_frame(frame, direction)


class _NoTransport:
    """Where the transport's input and output would be: frames go through as they are."""

    def input(self) -> FrameProcessor:
        return _Passthrough()

    def output(self) -> FrameProcessor:
        return _Passthrough()


def test_readme_example_runs(
    live_server: Any, key: str, model: ScriptedModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in {"HANDOVER_API_KEY": key, "HANDOVER_URL": live_server.url,
                        "OPENAI_BASE_URL": model.url, "OPENAI_API_KEY": "sk-scripted"}.items():  # fmt: skip
        monkeypatch.setenv(name, value)
    model.script("chat", ("say", "Hello Priya."))
    example: dict[str, Any] = {}
    exec(readme_example(CLIENTS / "pipecat" / "README.md", "python"), example)  # noqa: S102

    async def call() -> None:
        turns = LLMUserAggregatorParams(user_turn_strategies=ExternalUserTurnStrategies())
        pipeline = example["voice_pipeline"](
            _NoTransport(), _Passthrough(), _Passthrough(), "priya", "call-1", turns
        )
        memory = next(p for p in pipeline.processors if isinstance(p, HandoverMemory))
        await _drive(pipeline, [*_said("Hi, it's Priya."), lambda: memory.queued == 2])
        await memory.client.aclose()

    asyncio.run(call())
    system = model.requests[0]["messages"][0]["content"]
    assert system.startswith("You are a voice assistant.\n\n# Memory of this user")
    assert turns_of("call-1") == [(1, "user", "Hi, it's Priya."), (2, "assistant", "Hello Priya.")]
