"""The offline default extractor: deterministic rules, no network.

Facts come only from what the end user says (role ``user``), or from a value the agent proposed
and the user then confirmed. A field is recognised when a sentence mentions it (its key's words,
its examples' words, or an enum choice) and holds a value of its type. Hedged statements become
``inferred``; questions state nothing. Memory units are the informative sentences of every turn,
made self-contained: first and second person resolved to names, relative dates made absolute,
and the turn's date in front.
"""

from __future__ import annotations

import datetime
import itertools
import re
from typing import Any

from core.text import sentences
from extraction.extractors.answers import answer_value, asked_fields
from extraction.extractors.base import AcuCandidate, FactCandidate, Usage, WindowTurn
from extraction.text import (
    absolutise,
    find_date,
    format_date,
    is_affirmation,
    is_filler,
    is_hedged,
    is_question,
    resolve_pronouns,
)
from extraction.values import find_emails, find_money, find_numbers, find_phones
from schemas.validation import FieldType

STOPWORDS = set(
    [
        "the",
        "a",
        "an",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "of",
        "to",
        "in",
        "on",
        "at",
        "for",
        "with",
        "and",
        "or",
        "but",
        "my",
        "your",
        "our",
        "their",
        "his",
        "her",
        "its",
        "this",
        "that",
        "these",
        "those",
        "what",
        "when",
        "where",
        "which",
        "who",
        "how",
        "have",
        "has",
        "had",
        "do",
        "does",
        "did",
        "will",
        "would",
        "can",
        "could",
        "should",
        "about",
        "from",
        "into",
        "than",
        "then",
        "there",
        "here",
        "just",
        "also",
        "very",
        "really",
        "user",
        "users",
        "buyer",
        "wants",
        "want",
        "like",
    ]
)
SYNONYMS = {
    "name": ["name", "call me", "i'm", "i am"],
    "city": [
        "city",
        "live",
        "living",
        "based",
        "moving",
        "move",
        "moved",
        "located",
        "looking in",
        "stay",
    ],
    "location": ["live", "living", "based", "located", "from"],
    "budget": ["budget", "afford", "spend", "max", "maximum", "up to", "upto"],
    "bedrooms": ["bedroom", "bedrooms", "bhk", "bed"],
    "occupation": ["work", "job", "profession", "working"],
    "email": ["email", "mail"],
    "phone": ["phone", "number", "mobile", "call"],
    "salary": ["salary", "earn", "income"],
    "rent": ["rent"],
}
NEGATION = re.compile(
    r"\b(no|not|don't|do not|doesn't|haven't|hasn't|never|without|isn't|aren't|nope)\b", re.I
)
CAPITALISED = r"([A-Z][\w'-]+(?: [A-Z][\w'-]+){0,2})"
STRING_PATTERNS = {
    "name": [rf"(?i:\bmy name is) {CAPITALISED}", rf"(?i:\bcall me) {CAPITALISED}",
             rf"^(?i:(?:hi|hello|hey)?[, ]*(?:i'm|i am|this is)) {CAPITALISED}\b"],
    "city": [rf"(?i:\b(?:live|living|based|located|staying|stay) in) {CAPITALISED}",
             rf"(?i:\b(?:moving|move|moved|relocating) to) {CAPITALISED}",
             rf"(?i:\blooking (?:for [\w ]+ )?in) {CAPITALISED}", rf"(?i:\bi'?m from) {CAPITALISED}",
             rf"(?i:\b(?:flat|apartment|house|home|villa|property|place|plot|bhk) in) {CAPITALISED}"],
    "location": [rf"(?i:\b(?:live|living|based|located) in) {CAPITALISED}", rf"(?i:\bi'?m from) {CAPITALISED}"],
    "occupation": [r"\bi (?:work|am working) as an? ([\w -]+?)(?:[.,;!]|$| at | in | for )", r"\bi'?m an? ([\w -]+?) by profession",
                   r"\bmy (?:job|profession|occupation) is (?:an? )?([\w -]+?)(?:[.,;!]|$)"],
}  # fmt: skip


def _words(text: str) -> list[str]:
    return [w for w in re.findall(r"[a-z']+", text.lower()) if w not in STOPWORDS and len(w) > 2]


def field_keywords(field: dict[str, Any]) -> list[str]:
    key_words = field["key"].split("_")
    words = list(key_words)
    for part in key_words:
        words += SYNONYMS.get(part, [])
    words += SYNONYMS.get(field["key"], [])
    for example in field.get("examples") or []:
        words += [
            w for w in _words(example) if not w.isdigit() and w not in ("lakhs", "lakh", "crore")
        ]
    return sorted(set(words), key=len, reverse=True)


def mentions(sentence: str, keywords: list[str]) -> int | None:
    lowered = sentence.lower()
    for word in keywords:
        match = re.search(rf"(?<![a-z]){re.escape(word)}", lowered)
        if match:
            return match.start()
    return None


def _string_value(field: dict[str, Any], sentence: str, keyword_at: int | None) -> str | None:
    key = field["key"]
    description = field.get("description", "").lower()
    if "email" in key or "email" in description:
        emails = find_emails(sentence)
        return emails[0] if emails else None
    if "phone" in key or "mobile" in key or "phone" in description:
        phones = find_phones(sentence)
        return phones[0] if phones else None
    family = next((k for k in STRING_PATTERNS if k in key.split("_")), None)
    for pattern in STRING_PATTERNS.get(family or "", []):
        match = re.search(pattern, sentence, re.IGNORECASE if family == "occupation" else 0)
        if match:
            return match.group(1).strip()
    if keyword_at is None:
        return None
    words = r"[\w ]+".join(re.escape(w) for w in key.split("_"))
    match = re.search(
        rf"\bmy {words}(?:'s name)? (?:is|are|was|=|:) ([^.,;!?]+)", sentence, re.IGNORECASE
    )
    return match.group(1).strip() if match else None


def _number_value(field: dict[str, Any], sentence: str, keywords: list[str]) -> float | None:
    lowered = sentence.lower()
    bhk = re.search(r"\b(\d+)\s?bhk\b", lowered)
    if bhk and "bedroom" in field["key"]:
        return float(bhk.group(1))
    for number, start, end in find_numbers(sentence):
        before = lowered[max(0, start - 30) : start]
        after = lowered[end : end + 30]
        if any(re.search(rf"^\W*(\w+\W+)?{re.escape(k)}", after) for k in keywords) or any(
            re.search(rf"{re.escape(k)}\W+(is|are|of|=|:)?\W*$", before) for k in keywords
        ):
            return number
    return None


def _value(field: dict[str, Any], sentence: str, today: datetime.date) -> tuple[Any, bool] | None:
    """(value, mentioned) for one field in one sentence, or None."""
    keywords = field_keywords(field)
    at = mentions(sentence, keywords)
    type_ = field["type"]
    if type_ == FieldType.ENUM:
        lowered = sentence.lower()
        for choice in field.get("choices") or []:
            if re.search(rf"\b{re.escape(choice.lower())}(s|es)?\b", lowered):
                return choice, True
        return None
    if at is None and not (
        type_ == FieldType.STRING and field["key"].split("_")[0] in STRING_PATTERNS
    ):
        return None
    if type_ == FieldType.MONEY:
        amounts = find_money(sentence)
        return (amounts[0].value(), True) if amounts else None
    if type_ == FieldType.NUMBER:
        number = _number_value(field, sentence, keywords)
        if number is None:
            return None
        return (int(number) if number.is_integer() else number), True
    if type_ == FieldType.DATE:
        day = find_date(sentence, today)
        return (day.isoformat(), True) if day else None
    if type_ == FieldType.BOOLEAN:
        return (not NEGATION.search(sentence)), True
    text = _string_value(field, sentence, at)
    return (text, True) if text else None


def _answer(question: WindowTurn, field: dict[str, Any], reply: WindowTurn) -> list[FactCandidate]:
    """The user's reply to a question about ``field``, typed by the field (question → answer)."""
    first = sentences(reply.text)[:1]
    if not first or is_question(first[0]):
        return []
    value = answer_value(field, first[0], reply.occurred_at.date())
    if value is None:
        return []
    source = "inferred" if is_hedged(first[0]) else "explicit"
    refs = [question.ref(), reply.ref()]
    return [FactCandidate(field["key"], value, source, reply.occurred_at, refs)]


class RulesExtractor:
    name = "rules"

    def extract_facts(
        self, turns: list[WindowTurn], fields: list[dict[str, Any]], usage: Usage
    ) -> list[FactCandidate]:
        facts: list[FactCandidate] = []
        pairs = [(q, r) for q, r in itertools.pairwise(turns)
                 if q.role == "assistant" and r.role == "user" and sentences(q.text)
                 and is_question(sentences(q.text)[-1])]  # fmt: skip
        asked = asked_fields([sentences(q.text)[-1] for q, _ in pairs], fields)
        answers = {reply.id: (question, field) for (question, reply), field in
                   zip(pairs, asked, strict=True) if field is not None}  # fmt: skip
        for index, turn in enumerate(turns):
            if turn.role == "assistant" and index + 1 < len(turns):
                reply = turns[index + 1]
                if reply.role == "user" and is_affirmation(reply.text):
                    facts += self._from_text(
                        turn, fields, source="confirmed", proposals=True, confirmed_by=reply
                    )
                continue
            if turn.role == "user":
                stated = self._from_text(turn, fields, source="explicit")
                facts += stated
                question, field = answers.get(turn.id, (None, None))
                if question and field and all(f.key != field["key"] for f in stated):
                    facts += _answer(question, field, turn)
        return facts

    def _from_text(
        self,
        turn: WindowTurn,
        fields: list[dict[str, Any]],
        *,
        source: str,
        proposals: bool = False,
        confirmed_by: WindowTurn | None = None,
    ) -> list[FactCandidate]:
        out: list[FactCandidate] = []
        today = turn.occurred_at.date()
        for sentence in sentences(turn.text):
            question = is_question(sentence)
            if question and not proposals:
                continue  # a question states nothing
            if proposals and not question:
                continue  # only what the agent asked to confirm
            for field in fields:
                found = _value(field, sentence, today)
                if found is None:
                    continue
                value, _ = found
                when = confirmed_by.occurred_at if confirmed_by else turn.occurred_at
                refs = [turn.ref()] + ([confirmed_by.ref()] if confirmed_by else [])
                fact_source = "inferred" if source == "explicit" and is_hedged(sentence) else source
                out.append(FactCandidate(field["key"], value, fact_source, when, refs))
        return out

    def compress(self, segment: list[WindowTurn], usage: Usage) -> list[AcuCandidate]:
        acus: list[AcuCandidate] = []
        for turn in segment:
            today = turn.occurred_at.date()
            for sentence in sentences(turn.text):
                if is_question(sentence) or is_filler(sentence):
                    continue
                acus.append(
                    AcuCandidate(
                        self_contained(sentence, turn.speaker, turn.listener, today),
                        turn.session_id,
                        turn.seq,
                        turn.seq,
                        turn.occurred_at,
                    )
                )
        return acus


def self_contained(sentence: str, speaker: str, listener: str, day: datetime.date) -> str:
    text = resolve_pronouns(absolutise(sentence.strip(), day), speaker=speaker, listener=listener)
    capitalised = speaker[:1].upper() + speaker[1:]
    if speaker != capitalised and text.startswith(capitalised):  # "the user", not "The user"
        text = speaker + text[len(capitalised) :]
    if not text.endswith((".", "!", "?")):
        text += "."
    if text.startswith(speaker):
        return f"On {format_date(day)}, {text}"
    return f"On {format_date(day)}, {speaker} said: {text}"
