"""The same loop for a latency-bound (voice) agent, with the async client.

    python examples/async_voice_agent.py --agent demo --user priya --model gpt-4o-mini < lines.txt

What changes against agent_loop.py, to keep memory off the first-token clock:

- session start is awaited once, before the call is answered (one read, no embedding);
- turn appends are sent in the background (``asyncio.create_task``) and awaited at hang-up:
  the reply never waits for them, and the client's sequence numbers keep their order and make
  a retry harmless;
- search runs only when the model asks for it, as in agent_loop.py.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from typing import Any

import httpx2
from handover_client import AsyncHandover
from handover_client.models import Role

SYSTEM = (
    "You are a voice assistant with long-term memory of this caller. Answer in one or two short "
    "sentences. Call search_memory only if the caller refers to something not below."
)


async def chat(
    http: httpx2.AsyncClient, model: str, messages: list[dict[str, Any]], tools: list[Any]
) -> Any:
    response = await http.post(
        "/chat/completions", json={"model": model, "messages": messages, "tools": tools}
    )
    response.raise_for_status()
    return response.json()["choices"][0]["message"]


async def run(agent: str, user: str, model: str) -> None:
    key = os.environ.get("OPENAI_API_KEY")
    llm = httpx2.AsyncClient(
        base_url=os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1"),
        headers={"Authorization": f"Bearer {key}"} if key else {},
        timeout=30,
    )
    async with AsyncHandover() as memory, llm:
        opened = await memory.open_session(agent, user)
        sid = opened.session_id
        messages: list[dict[str, Any]] = [
            # Memory as system text; the recent turns as the messages they were, so user text
            # never speaks with the system prompt's authority (docs/agents.md).
            {"role": "system", "content": f"{SYSTEM}\n\n{opened.system_block}"},
            *opened.recent_messages,
        ]
        pending: list[asyncio.Task[Any]] = []

        def remember(role: Role, text: str) -> None:
            # Sent in the background; tasks start in the order they are made, so the client
            # numbers the turns in conversation order.
            pending.append(asyncio.create_task(memory.append_turn(sid, role, text)))

        while True:
            # Read the next line in a thread: a blocking read in the event loop would stall the
            # background appends (and everything else) until the caller speaks again.
            heard = (await asyncio.to_thread(sys.stdin.readline)).strip()
            if not heard:
                break
            remember("user", heard)
            messages.append({"role": "user", "content": heard})
            reply = await chat(llm, model, messages, [opened.memory_tool])
            if reply.get("tool_calls"):
                messages.append(reply)
                for call in reply["tool_calls"]:
                    args = json.loads(call["function"]["arguments"] or "{}")
                    found = await memory.search(user, args["query"], agent=agent, k=3)
                    messages.append(
                        {
                            "role": "tool",
                            "tool_call_id": call["id"],
                            "content": found.as_tool_result(),
                        }
                    )
                reply = await chat(llm, model, messages, [])
            said = reply.get("content") or ""
            print(said, flush=True)  # speak first...
            remember("assistant", said)  # ...write memory after
            messages.append({"role": "assistant", "content": said})

        await asyncio.gather(*pending)  # hang-up: every turn stored before we go


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--agent", required=True)
    parser.add_argument("--user", required=True)
    parser.add_argument("--model", default="gpt-4o-mini")
    args = parser.parse_args()
    asyncio.run(run(args.agent, args.user, args.model))


if __name__ == "__main__":
    main()
