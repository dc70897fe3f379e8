"""A scripted OpenAI-compatible chat server on loopback, for testing the `openai` extractor
over real HTTP. Answers by the task the client asked for ("facts", "units" or "summary"): the
JSON Schema's name under ``response_format: json_schema``, else the extractor's system prompt
(JSON mode and plain prompting carry no name).

``formats`` are the response formats it takes (and ``schema_in_json_mode`` whether it takes
llama.cpp's ``schema`` beside ``json_object``); a request asking for another is refused with a
400 naming it, as a server without structured outputs does (nothing scripted is used up).

A chat request that is none of these tasks (an agent's turn, as in examples/) is answered from
the "chat" script: ``("say", "text")``, ``("tool_call", {"name": ..., "arguments": {...}})`` or
``("status", 500)`` (an error answer); with nothing scripted, it says "OK.". A chat request with
``stream: true`` gets the same answer as server-sent chunks."""

from __future__ import annotations

import json
import threading
import time
from collections import defaultdict, deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

# How each task's request reads (its system prompt), and the list its answer carries.
TASK_MARKERS = {
    "facts": "You extract facts about the user",
    "summary": "You maintain the rolling summary",
    "units": "Rewrite the conversation segment as atomic",
}
LIST_KEYS = {"facts": "facts", "units": "units", "summary": "sentences"}


def task_of(body: dict[str, Any]) -> str | None:
    response_format = body.get("response_format") or {}
    if response_format.get("type") == "json_schema":
        return str(response_format["json_schema"]["name"])
    system = next((m.get("content") or "" for m in body.get("messages", [])
                   if m.get("role") == "system"), "")  # fmt: skip
    return next((name for name, marker in TASK_MARKERS.items() if marker in system), None)


class ScriptedModel:
    def __init__(self, port: int = 0) -> None:
        self.scripts: dict[str, deque[tuple[str, Any]]] = defaultdict(deque)
        # What every unscripted call gets: None answers empty lists; ("slow", seconds) hangs,
        # ("invalid", text) answers garbage, ("status", code) fails (bench/faults/).
        self.mode: tuple[str, Any] | None = None
        self.requests: list[dict[str, Any]] = []
        self.formats = {"json_schema", "json_object"}
        self.refusal_status = 400  # llama-cpp-python's server answers 500
        self.schema_in_json_mode = True  # llama.cpp's "schema" key beside "json_object"
        self.headers: list[dict[str, str]] = []
        model = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                model.requests.append(body)
                model.headers.append(dict(self.headers))
                if self.path.endswith("/embeddings"):
                    vectors = [model.embed(text) for text in body["input"]]
                    data = [
                        {"object": "embedding", "index": i, "embedding": v}
                        for i, v in enumerate(vectors)
                    ]
                    self._send(200, {"object": "list", "data": data, "model": body["model"]})
                    return
                name = task_of(body)
                if name is None:
                    chat: tuple[str, Any] = ("say", "OK.")
                    kind, payload = (
                        model.scripts["chat"].popleft() if model.scripts["chat"] else chat
                    )
                    if kind == "status":
                        self._send(payload, {"error": {"message": f"scripted {payload}"}})
                        return
                    if kind == "tool_call":
                        answer = model.tool_call(payload["name"], payload["arguments"])
                    else:
                        answer = model.completion(payload, raw=True)
                    if body.get("stream"):
                        self._stream(answer)
                    else:
                        self._send(200, answer)
                    return
                asked = (body.get("response_format") or {}).get("type")
                hinted = "schema" in (body.get("response_format") or {})
                if (asked and asked not in model.formats) or (
                    hinted and not model.schema_in_json_mode
                ):
                    message = f"response_format type {asked!r} is not supported"
                    if asked in model.formats:
                        message = (
                            "response_format: additional properties are not allowed ('schema')"
                        )
                    self._send(
                        400, {"error": {"message": message, "type": "invalid_request_error"}}
                    )
                    return
                required = LIST_KEYS[name]
                default: tuple[str, Any] = ("ok", {required: []})
                step = model.scripts[name].popleft() if model.scripts[name] else None
                step = step or model.mode or default
                kind, payload = step
                if kind == "status":
                    self._send(payload, {"error": {"message": f"scripted {payload}"}})
                elif kind == "slow":
                    time.sleep(payload)
                    self._send(200, model.completion({required: []}))
                elif kind == "invalid":
                    self._send(200, model.completion(payload, raw=True))
                else:
                    self._send(200, model.completion(payload))

            def _stream(self, answer: dict[str, Any]) -> None:
                """The answer as server-sent chunks (``stream: true``), as the voice
                frameworks ask for it: the role, the content a few words at a time or the
                tool call, the finish reason, the usage, then [DONE]."""
                message, choice = answer["choices"][0]["message"], answer["choices"][0]
                deltas: list[dict[str, Any]] = [{"role": "assistant", "content": ""}]
                if message.get("tool_calls"):
                    deltas += [{"tool_calls": [{"index": i, **call}]}
                               for i, call in enumerate(message["tool_calls"])]  # fmt: skip
                else:
                    words = str(message.get("content") or "").split(" ")
                    deltas += [{"content": w if i == 0 else " " + w} for i, w in enumerate(words)]
                chunks = [{"choices": [{"index": 0, "delta": d, "finish_reason": None}]}
                          for d in deltas]  # fmt: skip
                chunks.append({"choices": [{"index": 0, "delta": {},
                                            "finish_reason": choice["finish_reason"]}]})  # fmt: skip
                chunks.append({"choices": [], "usage": answer["usage"]})
                data = b"".join(
                    b"data: " + json.dumps({"id": "scripted", "object": "chat.completion.chunk",
                                            "created": 0, "model": "scripted", **c}).encode()
                    + b"\n\n"
                    for c in chunks
                ) + b"data: [DONE]\n\n"  # fmt: skip
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "text/event-stream")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def _send(self, status: int, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test)

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @staticmethod
    def embed(text: str) -> list[float]:
        """A deterministic 384-dimensional stand-in: letter counts, spread over the vector."""
        vector = [0.0] * 384
        for position, char in enumerate(text.lower()):
            vector[(ord(char) * 7 + position % 3) % 384] += 1.0
        return vector

    @staticmethod
    def completion(content: Any, raw: bool = False) -> dict[str, Any]:
        return {
            "id": "scripted",
            "object": "chat.completion",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content if raw else json.dumps(content)},
                         "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 120, "completion_tokens": 30, "total_tokens": 150},
        }  # fmt: skip

    def tool_call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        call = {
            "id": f"call_{len(self.requests)}",
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments)},
        }
        return {
            "id": "scripted",
            "object": "chat.completion",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": None, "tool_calls": [call]},
                         "finish_reason": "tool_calls"}],
            "usage": {"prompt_tokens": 120, "completion_tokens": 10, "total_tokens": 130},
        }  # fmt: skip

    def script(self, name: str, *steps: tuple[str, Any]) -> None:
        self.scripts[name].extend(steps)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
