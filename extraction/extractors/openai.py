"""The `openai` extractor: any OpenAI-compatible chat endpoint (OpenAI, vLLM, Ollama, llama.cpp).

The only module that talks to a model over the network. Prompts are built from the agent's
schema and ask for JSON matching a JSON Schema; answers are validated here and again by the
entity services. Timeouts, 429 and 5xx raise RetryableError (the run is retried with backoff);
a malformed answer raises ExtractionFailed (recorded on the run, not retried).
"""

from __future__ import annotations

import json
import logging
import socket
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
from schemas.validation import VALUE_SHAPES

logger = logging.getLogger(__name__)
DEFAULT_TIMEOUT = float(env.string("OPENAI_TIMEOUT") or 30)
TURNS_PER_CALL = 40


def _value_description() -> str:
    """What a value looks like, per type: "typed: string, number, …, or a choice"."""
    *first, last = VALUE_SHAPES.values()
    return f"typed: {', '.join(first)}, or {last}"


_VALUE_DESCRIPTION = _value_description()


def facts_json_schema(fields: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["facts"],
        "properties": {
            "facts": {
                "type": "array",
                "items": {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["key", "value", "source", "seq"],
                    "properties": {
                        "key": {"type": "string", "enum": [f["key"] for f in fields],
                                "description": "the schema field; add ':qualifier' for one of several values"},
                        "value": {"description": _VALUE_DESCRIPTION},
                        "source": {"type": "string", "enum": ["explicit", "confirmed", "inferred"]},
                        "seq": {"type": "integer", "description": "seq of the turn that states it"},
                    },
                },
            }
        },
    }  # fmt: skip


UNITS_JSON_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["units"],
    "properties": {"units": {"type": "array", "items": {"type": "string"}}},
}


def facts_prompt(fields: list[dict[str, Any]]) -> str:
    lines = [
        "You extract facts about the user from a conversation, for a memory service.",
        "Only facts the user states or confirms. 'explicit': the user said it; 'confirmed': the",
        "user agreed to a value the assistant proposed; 'inferred': hedged or implied. Skip questions.",
        "Fields (key, category, type, description):",
    ]
    for field in fields:
        extra = f" choices: {', '.join(field['choices'])}" if field.get("choices") else ""
        lines.append(
            f"- {field['key']} ({field['category']}, {field['type']}{extra}): {field['description']}"
        )
    lines.append('Money is {"amount": number, "currency": "ISO code"}; dates are YYYY-MM-DD.')
    lines.append("Answer with JSON only, matching the schema.")
    return "\n".join(lines)


SUMMARY_JSON_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["sentences"],
    "properties": {
        "sentences": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["text", "sources"],
                "properties": {
                    "text": {"type": "string"},
                    "sources": {"type": "array", "items": {"type": "string"},
                                "description": "ids of the lines it rests on: P1… (previous summary), U1… (new facts)"},
                },
            },
        }
    },
}  # fmt: skip

SUMMARY_PROMPT = (
    "You maintain the rolling summary of a user's conversations for a memory service. You get the "
    "previous summary as numbered sentences (P1, P2, …) and new facts (U1, U2, …). Write the new "
    "summary in at most {max_tokens} tokens: keep what still matters, fold older detail into "
    "shorter sentences, add the new facts. Never add anything the lines do not say. Every "
    'sentence lists the ids it rests on. Answer with JSON {{"sentences": [{{"text", "sources"}}]}} only.'
)

UNITS_PROMPT = (
    "Rewrite the conversation segment as atomic, self-contained facts for long-term memory. Each "
    "fact is one sentence with its subject named (no I, you, we, he, she), with absolute dates "
    "(no yesterday, next week), and starts with 'On <day> <Month> <year>, '. Answer with JSON "
    '{"units": [...]} only.'
)


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

    def _chat(
        self, system: str, user: str, schema: dict[str, Any], name: str, usage: Usage
    ) -> dict[str, Any]:
        body = {
            "model": self.model,
            "temperature": 0,
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": name, "schema": schema},
            },
        }
        try:
            outbound.address_check(self.base_url, allow_private=self.connection.allow_private)
        except outbound.OutboundRefused as refused:
            raise ExtractionFailed(
                f"model connection {self.connection.name!r} refused ({refused.code})"
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
            if error.code == 429 or error.code >= 500:
                raise RetryableError(f"model endpoint answered {error.code}") from None
            # The body stays in the deployment's log: it is the endpoint's text, not the
            # tenant's to read (it may name the deployment's account or network).
            logger.warning(
                "model endpoint refused a request",
                extra={"status": error.code, "connection": self.connection.name,
                       "body": error.read()[:300].decode("utf-8", "replace")},
            )  # fmt: skip
            raise ExtractionFailed(f"model endpoint answered {error.code}") from None
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
        except ValueError:
            raise ExtractionFailed(
                "model endpoint answered with something that is not JSON"
            ) from None
        counted = payload.get("usage") or {}
        usage.tokens_in += int(counted.get("prompt_tokens") or 0)
        usage.tokens_out += int(counted.get("completion_tokens") or 0)
        try:
            content = payload["choices"][0]["message"]["content"]
            answer = json.loads(content)
        except (KeyError, IndexError, TypeError, ValueError):
            raise ExtractionFailed(
                "the model's answer is not the JSON that was asked for"
            ) from None
        if not isinstance(answer, dict):
            raise ExtractionFailed("the model's answer is not a JSON object")
        return answer

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
        schema = facts_json_schema(fields)
        for start in range(0, len(turns), TURNS_PER_CALL):
            chunk = turns[start : start + TURNS_PER_CALL]
            answer = self._chat(
                facts_prompt(fields), self._transcript(chunk), schema, "facts", usage
            )
            items = answer.get("facts")
            if not isinstance(items, list):
                raise ExtractionFailed("the model's answer has no 'facts' list")
            by_seq = {t.seq: t for t in chunk}
            for item in items:
                if not isinstance(item, dict) or not isinstance(item.get("key"), str):
                    raise ExtractionFailed(
                        "a fact in the model's answer is not an object with a key"
                    )
                turn = by_seq.get(item.get("seq")) or chunk[-1]  # type: ignore[arg-type]
                claimed = str(item.get("source"))
                source = claimed if claimed in ("explicit", "confirmed", "inferred") else "inferred"
                facts.append(
                    FactCandidate(
                        item["key"], item.get("value"), source, turn.occurred_at, [turn.ref()]
                    )
                )
        return facts

    def summarize(
        self, previous: list[str], units: list[str], max_tokens: int, usage: Usage
    ) -> list[tuple[str, list[str]]]:
        """Abstractive rolling summary: (sentence, the ids it rests on) pairs, as the model said."""
        lines = [f"P{i + 1}: {s}" for i, s in enumerate(previous)] + [
            f"U{i + 1}: {u}" for i, u in enumerate(units)
        ]
        answer = self._chat(
            SUMMARY_PROMPT.format(max_tokens=max_tokens),
            "\n".join(lines),
            SUMMARY_JSON_SCHEMA,
            "summary",
            usage,
        )
        sentences = answer.get("sentences")
        if not isinstance(sentences, list):
            raise ExtractionFailed("the model's answer has no 'sentences' list")
        out = []
        for item in sentences:
            if (
                isinstance(item, dict)
                and isinstance(item.get("text"), str)
                and isinstance(item.get("sources"), list)
            ):
                out.append((item["text"].strip(), [str(source) for source in item["sources"]]))
        return out

    def compress(self, segment: list[WindowTurn], usage: Usage) -> list[AcuCandidate]:
        answer = self._chat(
            UNITS_PROMPT, self._transcript(segment), UNITS_JSON_SCHEMA, "units", usage
        )
        units = answer.get("units")
        if not isinstance(units, list):
            raise ExtractionFailed("the model's answer has no 'units' list")
        first, last = segment[0], segment[-1]
        return [
            AcuCandidate(text.strip(), first.session_id, first.seq, last.seq, last.occurred_at)
            for text in units
            if isinstance(text, str) and text.strip()
        ]
