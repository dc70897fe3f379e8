"""A minimal agent loop with Handover memory, on any OpenAI-compatible chat API.

    export HANDOVER_URL=http://127.0.0.1:8000 HANDOVER_API_KEY=hv_…      # var/demo-credentials.json
    export OPENAI_BASE_URL=https://api.openai.com/v1 OPENAI_API_KEY=sk-…  # or vLLM, Ollama, …
    python examples/agent_loop.py --agent demo --user priya --model gpt-4o-mini

Type a line, get an answer; an empty line or end of input stops. What it does:

1. opens a session, puts its ``system_block`` (memory, no raw turns) in the system prompt and its
   ``recent_messages`` after it as chat messages (one indexed read);
2. passes ``memory_tool`` (the ``search_memory`` function definition) as the model's tool;
3. when the model calls it, runs the search and hands the results back as the tool's answer;
4. appends every user and assistant turn (the client numbers them, so a retry is stored once).

Tool answers are not appended: they are memory read back, and extraction would learn them again.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

import httpx2
from handover_client import Handover

SYSTEM = (
    "You are a helpful assistant with long-term memory of this user. Below is what you remember. "
    "Facts under 'Current facts' are true now; 'Possibilities' are unconfirmed, so hedge. If the "
    "user refers to something from the past that is not below, call search_memory."
)
MAX_TOOL_ROUNDS = 3  # a model that keeps calling tools gets an answer forced after this


def chat(http: httpx2.Client, model: str, messages: list[dict[str, Any]], tools: list[Any]) -> Any:
    response = http.post(
        "/chat/completions",
        json={"model": model, "messages": messages, "tools": tools, "tool_choice": "auto"},
    )
    response.raise_for_status()
    return response.json()["choices"][0]["message"]


def run(agent: str, user: str, model: str, session: str | None) -> None:
    llm_headers = {}
    if os.environ.get("OPENAI_API_KEY"):
        llm_headers["Authorization"] = f"Bearer {os.environ['OPENAI_API_KEY']}"
    llm = httpx2.Client(
        base_url=os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1"),
        headers=llm_headers,
        timeout=60,
    )
    with Handover() as memory, llm:  # HANDOVER_API_KEY, HANDOVER_URL
        opened = memory.open_session(agent, user, session=session)
        sid = opened.session_id
        messages: list[dict[str, Any]] = [
            # Memory as system text; the recent turns as the messages they were, so user text
            # never speaks with the system prompt's authority (docs/agents.md).
            {"role": "system", "content": f"{SYSTEM}\n\n{opened.system_block}"},
            *opened.recent_messages,
        ]
        tools = [opened.memory_tool]

        for line in sys.stdin:
            text = line.strip()
            if not text:
                break
            memory.append_turn(sid, "user", text)
            messages.append({"role": "user", "content": text})

            for _ in range(MAX_TOOL_ROUNDS):
                reply = chat(llm, model, messages, tools)
                calls = reply.get("tool_calls") or []
                if not calls:
                    break
                messages.append(reply)
                for call in calls:
                    if call["function"]["name"] == "search_memory":
                        args = json.loads(call["function"]["arguments"] or "{}")
                        found = memory.search(user, args["query"], agent=agent, k=args.get("k", 5))
                        result = found.as_tool_result()
                    else:
                        result = f"Unknown tool {call['function']['name']!r}."
                    messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})
            else:
                reply = chat(llm, model, messages, [])  # tools off: answer now

            answer = reply.get("content") or ""
            memory.append_turn(sid, "assistant", answer)
            messages.append({"role": "assistant", "content": answer})
            print(answer, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--agent", required=True)
    parser.add_argument("--user", required=True)
    parser.add_argument("--model", default="gpt-4o-mini")
    parser.add_argument("--session", help="resume this client session id")
    args = parser.parse_args()
    run(args.agent, args.user, args.model, args.session)


if __name__ == "__main__":
    main()
