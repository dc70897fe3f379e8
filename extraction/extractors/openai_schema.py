"""What the `openai` extractor asks a model for: the prompts and the JSON Schemas of its three
answers (facts, memory units, summary sentences). Pure functions: no network, no ORM.

The schemas are strict-mode compatible (OpenAI Structured Outputs, and what llama.cpp and vLLM
turn into a grammar): every property is required, every object has ``additionalProperties:
false``, and a fact's value is typed by its key: one ``anyOf`` branch per value type (one per
enum field, for its choices), each branch allowing only the keys of that type. A model held to
the schema cannot write a string where the field is money.
"""

from __future__ import annotations

import json
from typing import Any

from schemas.validation import VALUE_SHAPES, FieldType

SOURCES = ("explicit", "confirmed", "inferred")
# [0-9], not \d: llama-cpp-python's grammar converter turns \d into an escape its parser
# refuses, and its server dies on the request (measured: bench/llm_contract.py).
DATE_PATTERN = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"
# Bounds on a list the model writes: a small model held to a grammar can repeat items until
# the context is full; no 40-turn window states more facts than this.
MAX_FACTS = 100
MAX_UNITS = 50
MAX_SENTENCES = 30
# The list each answer carries, by the answer's name.
LIST_KEYS = {"facts": "facts", "units": "units", "summary": "sentences"}

_TYPE_ORDER = [FieldType.MONEY, FieldType.NUMBER, FieldType.DATE, FieldType.BOOLEAN,
               FieldType.STRING]  # fmt: skip


def value_schema(field: dict[str, Any]) -> dict[str, Any]:
    """The JSON Schema of one field's value, by its type."""
    type_ = FieldType(field.get("type") or FieldType.STRING)
    shape: dict[str, Any]
    if type_ == FieldType.MONEY:
        shape = {
            "type": "object",
            "additionalProperties": False,
            "required": ["amount", "currency"],
            "properties": {
                "amount": {"type": "number"},
                "currency": {"anyOf": [{"type": "string", "pattern": "^[A-Z]{3}$"},
                                       {"type": "null"}],
                             "description": "ISO 4217 code (INR, USD), null when not said"},
            },
        }  # fmt: skip
    elif type_ == FieldType.NUMBER:
        shape = {"type": "number"}
    elif type_ == FieldType.DATE:
        shape = {"type": "string", "pattern": DATE_PATTERN}
    elif type_ == FieldType.BOOLEAN:
        shape = {"type": "boolean"}
    elif type_ == FieldType.ENUM:
        shape = {"type": "string", "enum": list(field.get("choices") or [])}
    else:
        shape = {"type": "string"}
    return {**shape, "description": VALUE_SHAPES[type_]}


def _fact_branch(keys: list[str], value: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["key", "qualifier", "value", "source", "seq"],
        "properties": {
            "key": {"type": "string", "enum": keys},
            "qualifier": {"type": "string",
                          "description": "'' or, for one of several values of a field, what tells it apart (pet: 'Max')"},
            "value": value,
            "source": {"type": "string", "enum": list(SOURCES)},
            "seq": {"type": "integer", "description": "seq of the turn that states it"},
        },
    }  # fmt: skip


def facts_json_schema(fields: list[dict[str, Any]]) -> dict[str, Any]:
    """``{"facts": [...]}``, each fact a branch of its field's type."""
    branches = []
    for type_ in _TYPE_ORDER:
        of_type = [f for f in fields if (f.get("type") or FieldType.STRING) == type_]
        if of_type:
            branches.append(_fact_branch([f["key"] for f in of_type], value_schema(of_type[0])))
    for field in fields:
        if field.get("type") == FieldType.ENUM:
            branches.append(_fact_branch([field["key"]], value_schema(field)))
    items = branches[0] if len(branches) == 1 else {"anyOf": branches}
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["facts"],
        "properties": {"facts": {"type": "array", "items": items, "maxItems": MAX_FACTS}},
    }


UNITS_JSON_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["units"],
    "properties": {"units": {"type": "array", "items": {"type": "string"}, "maxItems": MAX_UNITS}},
}

SUMMARY_JSON_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["sentences"],
    "properties": {
        "sentences": {
            "type": "array",
            "maxItems": MAX_SENTENCES,
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
    lines.append(
        'Each fact: {"key", "qualifier" ("" unless the field has several values), "value", '
        '"source", "seq" (the turn that states it)}.'
    )
    lines.append("Answer with JSON only, matching the schema.")
    return "\n".join(lines)


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


def schema_instruction(schema: dict[str, Any]) -> str:
    """For an endpoint that does not enforce the schema: the schema itself, in the prompt."""
    return (
        "Answer with one JSON object and nothing else (no prose, no code fences). It must match "
        "this JSON Schema: " + json.dumps(schema, separators=(",", ":"), ensure_ascii=False)
    )


__all__ = [
    "DATE_PATTERN",
    "LIST_KEYS",
    "SOURCES",
    "SUMMARY_JSON_SCHEMA",
    "SUMMARY_PROMPT",
    "UNITS_JSON_SCHEMA",
    "UNITS_PROMPT",
    "facts_json_schema",
    "facts_prompt",
    "schema_instruction",
    "value_schema",
]
