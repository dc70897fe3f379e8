"""Text values of fields with one fact per thing, read clause by clause with the thing they are
about: "Father has type 2 diabetes", "your kitchen tap is loose at the base", "hummus and pita
to start, and the lemon bars for dessert", "Ana is lactose intolerant"."""

from __future__ import annotations

import re

from core.text import sentences
from extraction.extractors.rules.acts import clauses, hedged, is_question
from extraction.extractors.rules.fields import Profile
from extraction.extractors.rules.qualify import Qualifiers
from extraction.extractors.rules.reader import Claim, Context
from extraction.extractors.rules.strings import clean


def qualified_text_claims(things: Qualifiers, ctx: Context, taken: set[str]) -> list[Claim]:
    """Text values of fields with one fact per thing, clause by clause: "Father has type 2
    diabetes", "your kitchen tap is loose at the base", "Hummus and pita to start, and the
    lemon bars for dessert", "Ana is lactose intolerant"."""
    out: list[Claim] = []
    text = ctx.turn.text
    for profile in ctx.fields:
        if profile.type != "string" or not profile.qualified or profile.key in taken:
            continue
        for start, clause in _clauses(text):
            if is_question(clause):
                continue
            found = _text_value(things, profile, clause)
            if found is None:
                continue
            qualifier, value, how = found
            why = {"cue": how, "qualifier": "said with it"}
            out.append(Claim(profile, value, "inferred" if hedged(clause) else "explicit", [ctx.turn],
                             (ctx.index, start), why, qualifier=qualifier, clause=clause,
                             span=(start, start + len(clause))))  # fmt: skip
    return out


def _text_value(things: Qualifiers, profile: Profile, clause: str) -> tuple[str, str, str] | None:
    words = sorted(things.vocab[profile.key], key=len, reverse=True)
    names = sorted(things.names, key=len, reverse=True) if profile.qualifier_kind == "name" else []
    options = "|".join(re.escape(w) for w in [*words, *names] if len(w) >= 3)
    if not options:
        return None
    said = rf"(?P<q>{options})\w*"
    for pattern, how in (
        (
            rf"(?i:\b(?:the|your|my|our|his|her)?\s*){said}(?i:'s)?\s+(?i:is|are|was|has|have|had|"
            rf"needs?|takes?|gets?|can't (?:have|eat)|doesn't eat|is allergic to)\s+(?P<v>[^.;!?]+)",
            "what it is or has",
        ),
        (rf"(?P<v>[^.;!?]+?)\s+(?i:as|for|to)\s+(?i:the\s+)?{said}\b", "what it is for"),
    ):
        match = re.search(pattern, clause)
        if match:
            value = clean(
                _last_phrase(match.group("v")) if how == "what it is for" else match.group("v")
            )
            q = match.group("q")
            if value and len(value.split()) <= 8 and value.lower() != q.lower():
                qualifier = q if profile.qualifier_kind == "name" else q.lower()
                qualifier = next(
                    (
                        w
                        for w in things.vocab[profile.key]
                        if w.lower().startswith(qualifier.lower())
                    ),
                    qualifier,
                )
                return qualifier, value, how
    return None


_VERBISH = re.compile(
    r"\b(?:for|with|on|voted|chose|choose|chosen|picked|pick|want|wants|wanted|like|likes|'d like|"
    r"have|having|get|take|taking|go|going|is|are|was|were|be|do|doing)\b|[:,]",
    re.I,
)


def _last_phrase(text: str) -> str:
    """The noun phrase that ends ``text``: "Team voted for the Mediterranean bowls" → "the
    Mediterranean bowls"."""
    cuts = [m.end() for m in _VERBISH.finditer(text)]
    return text[cuts[-1] :] if cuts else text


def _clauses(text: str) -> list[tuple[int, str]]:
    out = []
    for sentence in sentences(text):
        at = text.find(sentence)
        for a, b in clauses(sentence):
            out.append((at + a, sentence[a:b].strip(" ,")))
    return out
