"""Checking a model's answer before any of it is used (the `openai` extractor). Pure functions.

Three levels, each with its own remedy:

- the answer is not JSON, or not the object asked for (no list under its key): *malformed*,
  sent back to the model once for repair (``answer_problems``, ``repair_prompt``);
- one fact is wrong (a key not in the schema, a value not of its field's type, a source or a
  turn that does not exist): that fact alone is dropped, with a note saying which and why
  (``fact_check``);
- one unit or summary sentence is not a string / not ``{text, sources}``: dropped, noted.

A note is a dict ``{"kind", "task", "detail", …}`` for the run's record (``Usage.notes``); the
offending value is kept short under ``"value"``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from extraction.extractors.openai_schema import DATE_PATTERN, LIST_KEYS, SOURCES
from schemas.validation import (
    FieldType,
    ValidationFailed,
    fact_key_parse,
    fact_value_validate,
    is_whole_number,
)

MAX_DETAIL = 200
MAX_PREVIEW = 80


class Rejected(Exception):
    """One item of an answer is not usable; the message says why."""


@dataclass(frozen=True)
class CheckedFact:
    key: str  # the schema field, or field:qualifier
    value: Any  # as the field's type stores it
    source: str
    seq: int


def answer_parse(content: object) -> tuple[Any, str | None]:
    """(the JSON value, None) or (None, why not). A code fence or a sentence around the object
    is tolerated: plain prompting often adds one, and the object inside is what was asked."""
    if not isinstance(content, str) or not content.strip():
        return None, "the answer is empty"
    text = content.strip()
    try:
        return json.loads(text), None
    except ValueError:
        pass
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        try:
            return json.loads(text[start : end + 1]), None
        except ValueError:
            pass
    return None, "it is not JSON"


def answer_problems(answer: Any, task: str) -> list[str]:
    """What makes a parsed answer unusable as a whole (empty: it is usable)."""
    key = LIST_KEYS[task]
    if not isinstance(answer, dict):
        return ["it is not a JSON object"]
    if key not in answer:
        return [f"it has no {key!r} list"]
    items = answer[key]
    if not isinstance(items, list):
        return [f"{key!r} is not a list"]
    expected, what = (str, "a string") if task == "units" else (dict, "an object")
    if items and not any(isinstance(item, expected) for item in items):
        return [f"no item of {key!r} is {what}"]
    return []


def repair_prompt(problems: list[str], task: str) -> str:
    return (
        f"Your answer could not be used: {'; '.join(problems)}. Answer again with only the "
        f"corrected JSON object, with its {LIST_KEYS[task]!r} list, matching the requested "
        "shape: no prose, no code fences."
    )


def _short(text: str, limit: int = MAX_DETAIL) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def preview(value: Any) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return _short(text, MAX_PREVIEW)


def _first_message(exc: ValidationFailed) -> str:
    return next(iter(exc.errors.values()))[0]


def fact_check(item: object, fields: list[dict[str, Any]], seqs: set[int]) -> CheckedFact:
    """One fact of the answer, checked against the schema and the window; raises Rejected."""
    if not isinstance(item, dict):
        raise Rejected("the fact is not an object")
    key, qualifier = item.get("key"), item.get("qualifier") or ""
    if not isinstance(key, str) or not key:
        raise Rejected("the fact has no key")
    if not isinstance(qualifier, str):
        raise Rejected("qualifier is not a string")
    full = f"{key}:{qualifier.strip()}" if qualifier.strip() and ":" not in key else key
    try:
        field, full = fact_key_parse(full, fields)
    except ValidationFailed as exc:
        raise Rejected(_short(_first_message(exc))) from None
    if "value" not in item:
        raise Rejected("the fact has no value")
    value = item["value"]
    # fromisoformat also takes 20260303 and week dates; the schema asks for YYYY-MM-DD
    if field["type"] == FieldType.DATE and not (
        isinstance(value, str) and re.fullmatch(DATE_PATTERN, value)
    ):
        raise Rejected(f"{field['key']} is date: expected YYYY-MM-DD")
    try:
        stored, _ = fact_value_validate(field, value)
    except ValidationFailed as exc:
        raise Rejected(_short(_first_message(exc))) from None
    source = item.get("source")
    if source not in SOURCES:
        raise Rejected(f"source {preview(source)} is not one of {', '.join(SOURCES)}")
    seq = item.get("seq")
    if not is_whole_number(seq) or seq not in seqs:
        raise Rejected(f"seq {preview(seq)} is not a turn of this window")
    return CheckedFact(full, stored, str(source), int(seq))


def facts_check(
    items: list[Any], fields: list[dict[str, Any]], seqs: set[int]
) -> tuple[list[CheckedFact], list[dict[str, Any]]]:
    """(the facts that pass, a note for each one that does not)."""
    good: list[CheckedFact] = []
    notes: list[dict[str, Any]] = []
    for index, item in enumerate(items):
        try:
            good.append(fact_check(item, fields, seqs))
        except Rejected as why:
            fact = item if isinstance(item, dict) else {}
            key = fact.get("key")
            notes.append({
                "kind": "invalid_fact", "task": "facts", "index": index,
                "key": _short(key, MAX_PREVIEW) if isinstance(key, str) else None,
                "seq": fact.get("seq") if is_whole_number(fact.get("seq")) else None,
                "detail": str(why), "value": preview(fact.get("value", item)),
            })  # fmt: skip
    return good, notes


def sentence_check(item: object) -> tuple[str, list[str]]:
    """One summary sentence: (text, the line ids it cites); raises Rejected."""
    if not isinstance(item, dict):
        raise Rejected("the sentence is not an object")
    text, sources = item.get("text"), item.get("sources")
    if not isinstance(text, str) or not text.strip():
        raise Rejected("the sentence has no text")
    if not isinstance(sources, list) or not all(isinstance(s, str) for s in sources):
        raise Rejected("sources is not a list of line ids")
    return text.strip(), list(sources)


def item_note(task: str, index: int, item: object, why: str) -> dict[str, Any]:
    return {"kind": "invalid_item", "task": task, "index": index, "detail": why,
            "value": preview(item)}  # fmt: skip


__all__ = [
    "CheckedFact",
    "Rejected",
    "answer_parse",
    "answer_problems",
    "fact_check",
    "facts_check",
    "item_note",
    "preview",
    "repair_prompt",
    "sentence_check",
]
