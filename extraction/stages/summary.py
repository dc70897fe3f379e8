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
from extraction.extractors.rules.acts import third_party
from extraction.extractors.rules.amounts import money_in
from extraction.extractors.rules.fields import names_field
from extraction.text import ABSOLUTE_DATE, MONTHS, find_date, format_date
from extraction.values import find_numbers, value_signature
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


def _distinct(type_: str, value: Any) -> bool:
    """Whether a value found in prose is surely that value (₹50 lakh, 17 March, Kothrud), or
    needs a word of its field beside it to be (3, yes)."""
    if type_ == FieldType.MONEY:
        return True
    if type_ == FieldType.DATE:
        return True
    if type_ == FieldType.NUMBER:
        return isinstance(value, float) and (value >= 100 or not value.is_integer())
    return isinstance(value, str) and len(value) >= 4


def _spans(type_: str, sentence: str, start: int) -> list[tuple[Any, int, int]]:
    """(normalised value, start, end) of every value of ``type_`` the sentence states."""
    if type_ == FieldType.MONEY:  # written any way: "₹50 lakh", "50,00,000", "18,499"
        found = money_in(sentence[start:], None, bare=True)
        return [(m.amount, start + m.start, start + m.end) for m in found]
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


def _found(type_: str, sentence: str, start: int, value: Any) -> list[tuple[int, int]]:
    """Where ``sentence`` (from ``start``) states ``value`` of ``type_``."""
    if type_ in (FieldType.STRING, FieldType.ENUM):
        text = str(value)
        if len(text) < 3:
            return []
        match = re.search(rf"(?<!\w){re.escape(text)}(?!\w)", sentence[start:], re.I)
        return [(start + match.start(), start + match.end())] if match else []
    return [(s, e) for v, s, e in _spans(type_, sentence, start) if v == value]


_MARKED = re.compile(
    r"\b(until|till|previously|formerly|earlier|at first|no longer|used to|instead of|"
    r"changed from|before that|since)\b",
    re.I,
)


def _uncovered(
    sentence: str, start: int, fields: list[dict[str, Any]], versions: list[Version]
) -> bool:
    """Whether the sentence states an amount or a date that a field of the schema could hold but
    no current fact holds: an old value the facts never recorded ("1.5 cr. actually no, 1.8"),
    or one they hold differently. The facts speak for values; the summary keeps the rest. What
    someone else paid or owns stays (it is theirs, and said so)."""
    if third_party(sentence[start:]):
        return False
    types = {f["type"] for f in fields}
    for type_ in (FieldType.MONEY, FieldType.DATE):
        if type_ not in types:
            continue
        current = {_norm(type_, v) for v in versions if v.active and _type(fields, v) == type_}
        if any(value not in current for value, _, _ in _spans(type_, sentence, start)):
            return True
    return False


def _type(fields: list[dict[str, Any]], version: Version) -> str | None:
    return next((f["type"] for f in fields if f["key"] == version.field), None)


def summary_consistent(
    text: str, fields: list[dict[str, Any]], versions: list[Version], *, max_tokens: int
) -> str:
    """The summary, made unable to contradict the facts.

    Wherever a sentence states a value a fact no longer has (a superseded version's), the
    value is marked as history in place ("18,499 (until 20 May 2026; ₹19,699 since)"). Values
    that are not distinctive alone (3, yes) count only beside a word of their field; dates and
    amounts count anywhere, since the summary may not name the field ("an unknown debit of
    18,499"). A sentence naming a field with some other value, older than the field's current
    fact, is dropped (the facts say what holds now); newer sentences stay, they may know
    better than the extractor. The facts are the truth the summary defers to.
    """
    types = {f["key"]: f["type"] for f in fields}
    by_key: dict[str, list[Version]] = {}
    for version in versions:
        by_key.setdefault(version.key, []).append(version)
    out = []
    for sentence in sentences(text):
        dated = _DATED.match(sentence)
        start = dated.end() if dated else 0
        day = _date_of(sentence)
        notes: list[tuple[int, str]] = []
        drop = False
        for chain in by_key.values():
            field = next((f for f in fields if f["key"] == chain[0].field), None)
            type_ = types.get(chain[0].field)
            if field is None or type_ is None or type_ == FieldType.BOOLEAN:
                continue
            active = [v for v in chain if v.active]
            current = {_norm(type_, v) for v in active}
            named = names_field(field, sentence[start:])
            for old in (v for v in chain if not v.active and _norm(type_, v) not in current):
                value = _norm(type_, old)
                if not (_distinct(type_, value) or named):
                    continue
                now = active[0] if active else None
                until = old.ended or (now.valid_from if now else None)
                note = f" (until {format_date(until.date())}" if until else " (previously"
                note += f"; {now.value_text} since)" if now else ")"
                for _, end in _found(type_, sentence, start, value):
                    if not _MARKED.search(sentence[max(0, end - 40) : end + 40]):
                        notes.append((end, note))
            if (
                named
                and active
                and day < min(v.valid_from.date() for v in active)
                and type_ in (FieldType.MONEY, FieldType.NUMBER, FieldType.DATE)
            ):
                stated = {v for v, _, _ in _spans(type_, sentence, start)}
                if stated and not stated & current:
                    drop = True  # an older sentence with another value of the field
        drop = drop or _uncovered(sentence, start, fields, versions)
        if drop and not notes:
            continue
        for end, note in sorted(set(notes), reverse=True):
            sentence = sentence[:end] + note + sentence[end:]
        out.append(sentence)
    return summary_fold(" ".join(out), [], max_tokens=max_tokens)
