"""Question → answer: the field an agent's question asks about, and the user's short reply
typed by that field ("Which neighbourhoods?" — "Mostly Kothrud.").

A question asks about the field whose key, description and examples share its words (rarer
words weigh more), or, failing words, whose description the bundled embedder finds close to
it. Field vectors are cached per schema; the questions of a run are embedded in one batch.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import re
from typing import Any

import numpy as np

from extraction.text import AFFIRM, find_date
from extraction.values import find_money, find_numbers
from memory.embedding import embed
from schemas.validation import FieldType

MIN_SIMILARITY = 0.5  # embedder cosine for a question whose words match no field
MAX_ANSWER_WORDS = 8  # longer replies state their field in words; the sentence rules read them
_GENERIC = {"the", "a", "an", "of", "or", "and", "to", "in", "for", "is", "are", "you", "your",
            "do", "does", "what", "which", "when", "how", "any", "have", "has", "with", "on",
            "at", "by", "whether", "user", "buyer", "customer", "patient", "candidate", "guest",
            "traveller", "investor", "applicant", "wants", "want", "would", "will", "can",
            "be", "it", "that", "this", "there", "their", "they", "its", "one", "per", "fact",
            "like", "okay", "ok", "about", "much", "many", "number", "last", "next"}  # fmt: skip
_LEAD = re.compile(
    r"^\W*(?:(?:yes|yeah|no|well|um|uh|hmm|so|mostly|mainly|probably|maybe|perhaps|just|only|"
    r"i think|i guess|i'd say|i would say|it's|it is|that's|that would be|somewhere around|"
    r"around|about|roughly|preferably|ideally)\b[,\s]*)+",
    re.IGNORECASE,
)
_NO = re.compile(r"^\W*(no|nope|not really|not yet|nah|never|i don't|i do not|we don't)\b", re.I)
_cache: dict[str, np.ndarray] = {}


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 4 and word.endswith("s") else word


def _bag(text: str) -> set[str]:
    words = re.findall(r"[a-z]+", text.lower().replace("_", " "))
    return {_stem(w) for w in words if w not in _GENERIC and len(w) > 2}


def _field_text(field: dict[str, Any]) -> str:
    examples = "; ".join(field.get("examples") or [])
    return f"{field['key'].replace('_', ' ')}: {field.get('description', '')} {examples}".strip()


def field_vectors(fields: list[dict[str, Any]]) -> np.ndarray:
    """The fields' embedded descriptions, cached by the schema's content."""
    digest = hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()
    if digest not in _cache:
        _cache[digest] = embed([_field_text(f) for f in fields])
    return _cache[digest]


def asked_fields(questions: list[str], fields: list[dict[str, Any]]) -> list[dict[str, Any] | None]:
    """For each question, the field it asks about, or None."""
    if not questions or not fields:
        return [None] * len(questions)
    bags = [_bag(_field_text(f)) for f in fields]
    weight = {w: 1 / sum(w in b for b in bags) for b in bags for w in b}
    similarity = embed(questions) @ field_vectors(fields).T
    out: list[dict[str, Any] | None] = []
    for row, question in zip(similarity, questions, strict=True):
        words = _bag(question)
        overlap = [sum(weight[w] for w in words & bag) for bag in bags]
        score = [o + float(s) for o, s in zip(overlap, row, strict=True)]
        best = int(np.argmax(score))
        ok = overlap[best] >= 0.5 or float(row[best]) >= MIN_SIMILARITY
        out.append(fields[best] if ok else None)
    return out


def answer_value(field: dict[str, Any], reply: str, today: datetime.date) -> Any:
    """The reply read as an answer of the field's type, or None."""
    text = reply.strip()
    type_ = field["type"]
    if type_ == FieldType.BOOLEAN:
        if AFFIRM.match(text):
            return True
        return False if _NO.match(text) else None
    if type_ == FieldType.MONEY:
        amounts = find_money(text)
        if not amounts:  # "Around 2 crore" is money; so is a bare number answering a money question
            numbers = [n for n, _, _ in find_numbers(text) if n >= 100]
            return {"amount": int(numbers[0]), "currency": None} if len(numbers) == 1 else None
        return amounts[0].value()
    if type_ == FieldType.NUMBER:
        found = find_numbers(text)
        if not found:
            return None
        number = found[0][0]
        return int(number) if number.is_integer() else number
    if type_ == FieldType.DATE:
        day = find_date(text, today)
        return day.isoformat() if day else None
    if type_ == FieldType.ENUM:
        lowered = text.lower().replace("-", " ")
        choices = field.get("choices") or []
        named = [c for c in choices if c.lower().replace("-", " ") in lowered]
        if len(named) == 1:
            return named[0]
        words = _bag(lowered)
        scored = [(len(words & _bag(c)), c) for c in choices]
        best = max(scored, default=(0, None))
        return best[1] if best[0] and [s for s, _ in scored].count(best[0]) == 1 else None
    if _NO.match(text) or len(re.findall(r"\w+", text)) > MAX_ANSWER_WORDS:
        return None
    first = re.split(r"(?<=[.!?;])\s+|,\s+(?=but|and|though|because)", text)[0]
    value = _LEAD.sub("", first).strip(" .!?;,")
    return value[:1].upper() + value[1:] if len(value) >= 2 else None
