"""The `openai` extractor: any OpenAI-compatible chat endpoint (OpenAI, vLLM, Ollama, llama.cpp).

The only module that talks to a model over the network (ADR 0025).

- **Structured output, as strong as the endpoint offers.** Each request first asks for
  ``response_format: json_schema`` (strict); an endpoint that refuses it (an HTTP error naming
  the response format: 400 / 422, or llama-cpp-python's 500) is asked with JSON mode and the
  schema as ``response_format.schema`` (how llama.cpp and llama-cpp-python constrain JSON mode),
  then with plain JSON mode, then with plain prompting; every mode but the first carries the
  schema in the prompt. What an endpoint takes is remembered per process, per (connection, URL,
  model), for ``CAPABILITY_TTL`` seconds.
- **Every answer is checked** (``openai_check``): parsed, its shape, then each fact against its
  schema field's type, the schema's keys, the sources and the turns of the window. A bad fact is
  dropped and noted; a malformed answer is sent back once with what is wrong. When that repair
  comes back right in a weaker mode than the one that failed (the endpoint answered non-JSON
  though held to a format), that weaker mode is remembered too.
- **Nothing is dropped silently.** ``Usage`` counts ``facts_invalid`` and ``repairs`` and keeps
  a note per rejected fact, repair, fallback and malformed answer; an answer still malformed
  after its repair raises ExtractionFailed (the run is recorded failed with why, not retried).

Timeouts, 429 and 5xx raise RetryableError (the run is retried with backoff).
"""

from __future__ import annotations

import http.client
import json
import logging
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from typing import Any

from core import env, outbound
from core.outbound import ModelConnection
from extraction.extractors.base import (
    AcuCandidate,
    ExtractionFailed,
    FactCandidate,
    RetryableError,
    Usage,
    WindowTurn,
)
from extraction.extractors.openai_check import (
    Rejected,
    answer_parse,
    answer_problems,
    facts_check,
    item_note,
    repair_prompt,
    sentence_check,
)
from extraction.extractors.openai_schema import (
    LIST_KEYS,
    SUMMARY_JSON_SCHEMA,
    SUMMARY_PROMPT,
    UNITS_JSON_SCHEMA,
    UNITS_PROMPT,
    facts_json_schema,
    facts_prompt,
    schema_instruction,
)

logger = logging.getLogger(__name__)
DEFAULT_TIMEOUT = float(env.string("OPENAI_TIMEOUT") or 30)
TURNS_PER_CALL = 40
MODES = ("json_schema", "json_object+schema", "json_object", "prompt")  # strongest first
# A remembered fallback is tried again after an hour: a server upgraded in place is noticed,
# at the price of one refused request an hour.
CAPABILITY_TTL = 3600.0
# What an error says when it is the response format the endpoint does not take.
_FORMAT_WORDS = ("response_format", "json_schema", "json_object", "structured output", "guided")
MAX_ECHO = 4000  # characters of a malformed answer sent back with its repair request

__all__ = ["CAPABILITIES", "MODES", "OpenAIExtractor", "facts_json_schema", "facts_prompt"]


class _Capabilities:
    """The strongest response format each endpoint was seen to take, per process."""

    def __init__(self) -> None:
        self._seen: dict[tuple[str, str, str], tuple[str, float]] = {}
        self._lock = threading.Lock()

    def mode(self, key: tuple[str, str, str]) -> str:
        with self._lock:
            mode, since = self._seen.get(key, (MODES[0], 0.0))
        return mode if time.monotonic() - since < CAPABILITY_TTL else MODES[0]

    def remember(self, key: tuple[str, str, str], mode: str) -> None:
        with self._lock:
            self._seen[key] = (mode, time.monotonic())

    def forget(self) -> None:
        with self._lock:
            self._seen.clear()


CAPABILITIES = _Capabilities()


class _FormatRefused(Exception):
    """The endpoint refused the response format asked for (an HTTP error naming it)."""


def _weaker(mode: str) -> str:
    """The next mode to ask in when ``mode`` is refused."""
    return MODES[min(MODES.index(mode) + 1, len(MODES) - 1)]


def _unenforced(mode: str) -> str:
    """The mode to ask in when ``mode`` was accepted but its answer is not JSON: a server that
    ignores ``json_schema`` may still enforce JSON mode; one that ignores JSON mode enforces
    nothing, with a schema or without."""
    return "json_object+schema" if mode == "json_schema" else "prompt"


class OpenAIExtractor:
    name = "openai"

    def __init__(
        self, *, model: str, connection: ModelConnection, timeout: float | None = None
    ) -> None:
        self.model = model
        self.connection = connection
        self.base_url = connection.base_url.rstrip("/")
        # The deployment named the variable (MODEL_CONNECTIONS); a tenant never does.
        self.api_key = env.string(connection.api_key_env) if connection.api_key_env else ""
        self.timeout = timeout if timeout is not None else DEFAULT_TIMEOUT
        self._endpoint = (connection.name, self.base_url, model)

    # --- one request ----------------------------------------------------------------------

    def _post(self, body: dict[str, Any], usage: Usage) -> dict[str, Any]:
        try:
            outbound.address_check(self.base_url, allow_private=self.connection.allow_private)
        except outbound.OutboundRefused as refused:
            raise ExtractionFailed(
                f"model connection {self.connection.name!r} refused ({refused.code})", usage=usage
            ) from None
        request = urllib.request.Request(  # noqa: S310 (scheme checked just above)
            f"{self.base_url}/chat/completions",
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {self.api_key}"},
            method="POST",
        )
        usage.model_calls += 1
        try:
            with outbound.opener().open(request, timeout=self.timeout) as response:
                payload = json.loads(response.read())
        except urllib.error.HTTPError as error:
            text = error.read()[:2000].decode("utf-8", "replace")
            # The body stays in the deployment's log: it is the endpoint's text, not the
            # tenant's to read (it may name the deployment's account or network).
            logger.warning(
                "model endpoint refused a request",
                extra={"status": error.code, "connection": self.connection.name, "body": text[:300]},
            )  # fmt: skip
            # A refused response format is a 400 or 422 naming it, or, from llama-cpp-python's
            # server, a 500 (its request validation error): not a failure that passes.
            if (error.code != 429 and "response_format" in body
                    and any(word in text.lower() for word in _FORMAT_WORDS)):  # fmt: skip
                raise _FormatRefused from None
            if error.code == 429 or error.code >= 500:
                raise RetryableError(f"model endpoint answered {error.code}") from None
            raise ExtractionFailed(f"model endpoint answered {error.code}", usage=usage) from None
        except TimeoutError:
            raise RetryableError(
                f"model endpoint did not answer within {self.timeout:g} s"
            ) from None
        except urllib.error.URLError as error:
            if isinstance(error.reason, TimeoutError | socket.timeout):
                raise RetryableError(
                    f"model endpoint did not answer within {self.timeout:g} s"
                ) from None
            raise RetryableError(f"model endpoint unreachable: {error.reason}") from None
        except (http.client.HTTPException, ConnectionError):
            # e.g. llama-cpp-python's server dying on a grammar it cannot parse
            raise RetryableError("model endpoint closed the connection without an answer") from None
        except ValueError:
            raise ExtractionFailed(
                "model endpoint answered with something that is not JSON", usage=usage
            ) from None
        counted = payload.get("usage") if isinstance(payload, dict) else None
        counted = counted if isinstance(counted, dict) else {}
        usage.tokens_in += int(counted.get("prompt_tokens") or 0)
        usage.tokens_out += int(counted.get("completion_tokens") or 0)
        return payload

    def _body(self, messages: list[dict[str, str]], mode: str, schema: dict[str, Any],
              task: str) -> dict[str, Any]:  # fmt: skip
        body: dict[str, Any] = {"model": self.model, "temperature": 0}
        if mode == "json_schema":
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": task, "strict": True, "schema": schema},
            }
        elif mode == "json_object+schema":
            # llama.cpp's (and llama-cpp-python's) way to constrain JSON mode; a server that
            # refuses the extra key gets plain JSON mode next
            body["response_format"] = {"type": "json_object", "schema": schema}
        elif mode == "json_object":
            body["response_format"] = {"type": "json_object"}
        if mode != "json_schema":
            system = messages[0]["content"] + "\n" + schema_instruction(schema)
            messages = [{"role": "system", "content": system}, *messages[1:]]
        body["messages"] = messages
        return body

    def _complete(self, messages: list[dict[str, str]], mode: str, schema: dict[str, Any],
                  task: str, usage: Usage) -> tuple[str | None, str, str]:  # fmt: skip
        """(the answer's text, its finish reason, the mode it was asked in): the endpoint's
        refusals of a response format are followed down to the mode it takes."""
        while True:
            try:
                payload = self._post(self._body(messages, mode, schema, task), usage)
            except _FormatRefused:
                weaker = _weaker(mode)
                self._note(usage, kind="fallback", task=task, outcome="format fallback",
                           detail=f"the endpoint refused response_format {mode}; using {weaker}")  # fmt: skip
                CAPABILITIES.remember(self._endpoint, weaker)
                mode = weaker
                continue
            try:
                choice = payload["choices"][0]
                content = choice["message"]["content"]
            except (KeyError, IndexError, TypeError):
                raise ExtractionFailed(
                    "the model endpoint's answer has no message", usage=usage
                ) from None
            finish = choice.get("finish_reason") if isinstance(choice, dict) else None
            return content if isinstance(content, str) else None, str(finish or ""), mode

    @staticmethod
    def _problems(content: str | None, finish: str, task: str) -> tuple[Any, list[str], bool]:
        """(the parsed answer, what makes it unusable, whether it parsed as JSON at all)."""
        answer, unparsed = answer_parse(content)
        if unparsed is not None:
            cut = " (cut off at the length limit)" if finish == "length" else ""
            return None, [unparsed + cut], False
        return answer, answer_problems(answer, task), True

    def _note(self, usage: Usage, **note: Any) -> None:
        usage.notes.append(note)
        logger.info(
            "model answer: %s %s: %s", note["kind"], note.get("task"), note.get("detail"),
            extra={"connection": self.connection.name, "model": self.model},
        )  # fmt: skip

    def _ask(self, task: str, system: str, user: str, schema: dict[str, Any],
             usage: Usage) -> dict[str, Any]:  # fmt: skip
        """The model's answer to one request, checked as a whole; one repair when malformed."""
        messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
        content, finish, mode = self._complete(
            messages, CAPABILITIES.mode(self._endpoint), schema, task, usage
        )
        answer, problems, parsed = self._problems(content, finish, task)
        if not problems:
            return answer
        # Non-JSON under a JSON format means the endpoint did not hold the model to it: the
        # repair is asked in a mode that may (and that mode remembered only if it works).
        ignored = not parsed and finish != "length" and mode != MODES[-1]
        repair_mode = _unenforced(mode) if ignored else mode
        usage.repairs += 1
        retry = [*messages, {"role": "assistant", "content": (content or "")[:MAX_ECHO]},
                 {"role": "user", "content": repair_prompt(problems, task)}]  # fmt: skip
        content, finish, repair_mode = self._complete(retry, repair_mode, schema, task, usage)
        answer, still, _ = self._problems(content, finish, task)
        if still:
            self._note(usage, kind="repair", task=task, detail="; ".join(problems),
                       outcome="still malformed")  # fmt: skip
            self._note(usage, kind="malformed", task=task, outcome="run failed",
                       detail="; ".join(still))  # fmt: skip
            raise ExtractionFailed(
                f"the model's answer is not the JSON that was asked for ({task}: "
                f"{'; '.join(problems)}; after one repair: {'; '.join(still)})",
                usage=usage,
            )
        self._note(usage, kind="repair", task=task, detail="; ".join(problems), outcome="repaired")
        if ignored and repair_mode != mode:
            CAPABILITIES.remember(self._endpoint, repair_mode)
            self._note(usage, kind="fallback", task=task, outcome="format fallback",
                       detail=f"the endpoint answered non-JSON under {mode}; using {repair_mode}")  # fmt: skip
        return answer

    # --- the extractor --------------------------------------------------------------------

    @staticmethod
    def _transcript(turns: list[WindowTurn]) -> str:
        return "\n".join(
            f"[seq {t.seq}, {t.occurred_at.date().isoformat()}] {t.speaker} ({t.role}): {t.text}"
            for t in turns
        )

    def extract_facts(
        self,
        turns: list[WindowTurn],
        fields: list[dict[str, Any]],
        usage: Usage,
        known: Mapping[str, str] | None = None,
    ) -> list[FactCandidate]:
        facts: list[FactCandidate] = []
        schema, prompt = facts_json_schema(fields), facts_prompt(fields)
        for start in range(0, len(turns), TURNS_PER_CALL):
            chunk = turns[start : start + TURNS_PER_CALL]
            answer = self._ask("facts", prompt, self._transcript(chunk), schema, usage)
            by_seq = {t.seq: t for t in chunk}
            checked, notes = facts_check(answer[LIST_KEYS["facts"]], fields, set(by_seq))
            for note in notes:
                self._note(usage, **note)
            usage.facts_invalid += len(notes)
            for fact in checked:
                turn = by_seq[fact.seq]
                facts.append(
                    FactCandidate(fact.key, fact.value, fact.source, turn.occurred_at, [turn.ref()])
                )
        return facts

    def summarize(
        self, previous: list[str], units: list[str], max_tokens: int, usage: Usage
    ) -> list[tuple[str, list[str]]]:
        """Abstractive rolling summary: (sentence, the ids it rests on) pairs, as the model said.
        The pipeline keeps only sentences that cite real lines, then checks them against the
        facts (``summary_traceable``, ``summary_consistent``)."""
        lines = [f"P{i + 1}: {s}" for i, s in enumerate(previous)] + [
            f"U{i + 1}: {u}" for i, u in enumerate(units)
        ]
        answer = self._ask(
            "summary",
            SUMMARY_PROMPT.format(max_tokens=max_tokens),
            "\n".join(lines),
            SUMMARY_JSON_SCHEMA,
            usage,
        )
        out = []
        for index, item in enumerate(answer[LIST_KEYS["summary"]]):
            try:
                out.append(sentence_check(item))
            except Rejected as why:
                self._note(usage, **item_note("summary", index, item, str(why)))
        return out

    def compress(self, segment: list[WindowTurn], usage: Usage) -> list[AcuCandidate]:
        answer = self._ask(
            "units", UNITS_PROMPT, self._transcript(segment), UNITS_JSON_SCHEMA, usage
        )
        first, last = segment[0], segment[-1]
        out = []
        for index, text in enumerate(answer[LIST_KEYS["units"]]):
            if isinstance(text, str) and text.strip():
                out.append(
                    AcuCandidate(
                        text.strip(), first.session_id, first.seq, last.seq, last.occurred_at
                    )
                )
            else:
                self._note(usage, **item_note("units", index, text, "the unit is not a sentence"))
        return out
