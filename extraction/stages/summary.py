"""The rolling summary: extractive for the rules extractor, so it can only repeat what was said.

Each window contributes its most informative memory units; they compete with the sentences
already in the summary under the agent's token cap, newer ones with a small advantage, so old
content is folded away rather than appended forever. Output is in date order.
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass
from typing import Any

from core.text import sentences
from extraction.extractors.rules.fields import names_field
from extraction.text import ABSOLUTE_DATE, MONTHS, find_date, format_date
from extraction.values import find_money, find_numbers, value_signature
from memory.tokens import count_tokens
from schemas.validation import FieldType

_DATED = re.compile(r"^On (\d{1,2}) (\w+) (\d{4}),")


def _date_of(sentence: str) -> datetime.date:
    match = _DATED.match(sentence)
    if match and match.group(2).lower() in MONTHS:
        return datetime.date(
            int(match.group(3)), MONTHS.index(match.group(2).lower()) + 1, int(match.group(1))
        )
    return datetime.date.min


def _score(sentence: str, newest: datetime.date) -> float:
    age_days = (
        (newest - _date_of(sentence)).days if _date_of(sentence) != datetime.date.min else 3650
    )
    return len(value_signature(sentence)) + min(count_tokens(sentence), 40) / 20 - age_days / 365


def summary_fold(previous: str, new_units: list[str], *, max_tokens: int) -> str:
    pool = list(dict.fromkeys(sentences(previous) + new_units))
    if not pool:
        return ""
    newest = max(_date_of(s) for s in pool)
    ranked = sorted(pool, key=lambda s: _score(s, newest), reverse=True)
    chosen: list[str] = []
    used = 0
    for sentence in ranked:
        cost = count_tokens(sentence)
        if used + cost <= max_tokens:
            chosen.append(sentence)
            used += cost
    chosen.sort(key=lambda s: (_date_of(s), pool.index(s)))
    return " ".join(chosen)


def summary_traceable(
    proposed: list[tuple[str, list[str]]], *, previous: int, units: int, max_tokens: int
) -> tuple[str, int]:
    """Keep the model's sentences that cite at least one real line (P1..Pprevious, U1..Uunits),
    within the token cap; returns (summary, how many were dropped as untraceable)."""
    valid = {f"P{i + 1}" for i in range(previous)} | {f"U{i + 1}" for i in range(units)}
    kept: list[str] = []
    used = dropped = 0
    for text, sources in proposed:
        if not text or not sources or not set(sources) <= valid:
            dropped += 1
            continue
        cost = count_tokens(text)
        if used + cost > max_tokens:
            break
        kept.append(text if text.endswith((".", "!", "?")) else text + ".")
        used += cost
    return " ".join(kept), dropped


@dataclass(frozen=True)
class Version:
    """One version of a fact as the summary check needs it (active or superseded)."""

    key: str
    field: str
    value: Any
    value_text: str
    active: bool
    valid_from: datetime.datetime
    ended: datetime.datetime | None = None


def _spans(type_: str, sentence: str, start: int) -> list[tuple[Any, int, int]]:
    """(normalised value, start, end) of every value of ``type_`` the sentence states."""
    if type_ == FieldType.MONEY:
        return [(m.amount, m.start, m.end) for m in find_money(sentence) if m.start >= start]
    if type_ == FieldType.NUMBER:
        return [(n, s, e) for n, s, e in find_numbers(sentence) if s >= start]
    if type_ == FieldType.DATE:
        out = []
        for match in ABSOLUTE_DATE.finditer(sentence, start):
            day = find_date(match.group(0), _date_of(sentence))
            if day is not None:
                out.append((day.isoformat(), match.start(), match.end()))
        return out
    return []


def _norm(type_: str, version: Version) -> Any:
    value = version.value
    if type_ == FieldType.MONEY and isinstance(value, dict):
        return float(value.get("amount") or 0)
    if type_ == FieldType.NUMBER and isinstance(value, int | float):
        return float(value)
    if type_ in (FieldType.STRING, FieldType.ENUM):
        return version.value_text.lower()
    return value


def _text_spans(sentence: str, start: int, texts: list[str]) -> list[tuple[Any, int, int]]:
    lowered = sentence.lower()
    out = []
    for text in texts:
        at = lowered.find(text, start) if len(text) >= 3 else -1
        if at >= 0 and re.fullmatch(r"\W?", lowered[at + len(text) : at + len(text) + 1]):
            out.append((text, at, at + len(text)))
    return out


def summary_consistent(
    text: str, fields: list[dict[str, Any]], versions: list[Version], *, max_tokens: int
) -> str:
    """The summary, made unable to contradict the facts.

    A superseded value of a fact is marked as history where the summary states it ("50 lakhs
    (until 9 May 2026; ₹80 lakh since)"); a sentence that mentions a field with some other
    value of its type, older than the field's current fact, is dropped (the facts say what
    holds now). Sentences newer than the fact stay: they may know better than the extractor.
    """
    by_field: dict[str, list[Version]] = {}
    for version in versions:
        by_field.setdefault(version.field, []).append(version)
    out = []
    for sentence in sentences(text):
        dated = _DATED.match(sentence)
        start = dated.end() if dated else 0
        day = _date_of(sentence)
        notes: list[tuple[int, str]] = []
        drop = False
        for field in fields:
            chain = by_field.get(field["key"])
            type_ = field["type"]
            if not chain or type_ == FieldType.BOOLEAN:
                continue
            active = [v for v in chain if v.active]
            current = {_norm(type_, v) for v in active}
            old = [v for v in chain if not v.active and _norm(type_, v) not in current]
            if type_ in (FieldType.STRING, FieldType.ENUM):
                spans = _text_spans(sentence, start, [_norm(type_, v) for v in old])
            elif not names_field(field, sentence[start:]):
                continue
            else:
                spans = _spans(type_, sentence, start)
            if any(value in current for value, _, _ in spans):
                continue
            for value, _, end in spans:
                stale = next((v for v in old if _norm(type_, v) == value), None)
                if stale is not None:
                    now = next((v for v in active if v.key == stale.key), None)
                    until = stale.ended or (now.valid_from if now else None)
                    note = f" (until {format_date(until.date())}" if until else " (previously"
                    notes.append((end, note + (f"; {now.value_text} since)" if now else ")")))
                elif active and day < min(v.valid_from.date() for v in active):
                    drop = True
        if drop and not notes:
            continue
        for end, note in sorted(set(notes), reverse=True):
            sentence = sentence[:end] + note + sentence[end:]
        out.append(sentence)
    return summary_fold(" ".join(out), [], max_tokens=max_tokens)
