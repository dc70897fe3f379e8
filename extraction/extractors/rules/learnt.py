"""Things of a field with one fact per thing, learnt from what is said: the kinds said beside
the field's noun ("a savings account and a current account"), medicines said with their
strength ("amlodipine 5 milligrams"), and the thing a short reply to a
question about the field names first ("What was in the parcel?" — "trainers. nike ones";
"Current medications?" — "Lisinopril, 10 mg every morning.")."""

from __future__ import annotations

import re

from core.text import sentences
from extraction.extractors.rules.fields import GENERIC, Profile, content_words, stem
from extraction.extractors.rules.strings import is_ordinary
from extraction.extractors.rules.subjects import KIND_WORDS, NOT_THINGS

# What may come before the thing a reply names first: "yes, metformin …", "I'm on atorvastatin …"
_FIRST = re.compile(
    r"\W*(?:(?:yes|yeah|yep|just|only|the|my|a|an|some|it was|its|it's|i take|i'm on|im on|on)"
    r"\W+)*([a-z][a-z-]+(?:\s+(?![ai]\b)[a-z]\d{0,2})?)\b"  # "vitamin d", "vitamin b12"
)


# Words said before a dose that name no medicine: "you'll take 1000 mg", "about 5 mg".
_NOT_MEDICINES = frozenset(["take", "takes", "taking", "took", "give", "gives", "giving", "uses", "using", "need", "needs", "have", "having", "want", "keep", "start", "started", "stop", "stopped", "increased", "reduced", "lowered", "bumped", "upped", "about", "around", "from", "till", "until", "only", "just", "then", "also", "total", "each", "every", "plus", "another", "still", "down", "dose", "doses", "extra", "more", "less", "most", "than", "like", "same", "with", "what", "make", "makes", "made", "back", "over", "under", "nearly", "almost", "roughly", "maybe", "perhaps", "probably", "were", "twice", "once", "daily"])  # fmt: skip


def _a_thing(word: str, noun: str) -> bool:
    return word not in KIND_WORDS | GENERIC and word != noun and not is_ordinary(word.capitalize())


def kinds_said(text: str, noun: str) -> list[str]:
    """ "a savings account and a current account": savings and current are accounts."""
    found = re.finditer(rf"\b(?:a|an|the|my|our|your|this|that|his|her|their|one|two|\d+)\s+"
                        rf"([a-z][a-z-]+)\s+{re.escape(noun)}s?\b", text.lower())  # fmt: skip
    return [m.group(1) for m in found if _a_thing(m.group(1), noun)]


# A medicine said with its strength: "amlodipine 5 milligrams", "metformin 500mg".
_DOSED = re.compile(
    r"\b([a-z][a-z-]{3,})\s+\d+(?:\.\d+)?\s*(?:mg|milligrams?|mcg|micrograms?|ml)\b", re.I
)
_WITH_A_NUMBER = re.compile(r"\b([a-z][a-z-]{3,})\s+\d+(?:\.\d+)?\b(?![.,]?\d)", re.I)


def dosed(profile: Profile, text: str, known: list[str]) -> list[str]:
    """Medicines said with their strength, for a field kept per medicine ("I see amlodipine 5
    milligrams. Still 5?" — "No, they put me up to 10"), and those listed beside one so said
    or one known ("metformin 500, gliclazide 30 and perindopril 5")."""
    if not {"dos", "mg", "medic", "strength"} & set(profile.words):
        return []
    out = []
    for sentence in sentences(text):
        pairs = [m.group(1).lower() for m in _WITH_A_NUMBER.finditer(sentence)]
        if _DOSED.search(sentence) or set(pairs) & set(known):
            out += [w for w in pairs if _a_thing(w, "") and w not in NOT_THINGS | _NOT_MEDICINES]
    return out


def named_in_reply(profile: Profile, noun: str, question: str, reply: str) -> list[str]:
    """The thing a short reply names first, when the question asked which one ("What was in
    the parcel?") or about the field by its noun or key ("Current medications?", "Any pets on
    the policy?"): "Lisinopril, 10 mg every morning." names lisinopril."""
    which = re.search(rf"\b(?:what|which)\b[^?]*\b{re.escape(noun)}s?\b[^?]*\?", question, re.I)
    heads = {w for w, weight in profile.words.items() if weight >= 2} | {stem(noun)}
    asked = which or (
        question.rstrip().endswith("?")
        and bool({stem(w) for w in content_words(question.split(".")[-1])} & heads)
    )
    first = _FIRST.match(reply.lower())
    if not asked or not first or len(reply.split()) > (6 if which else 8):
        return []
    if not which and not re.match(r"[\s,:-]*\d", reply.lower()[first.end() :]):
        return []  # asked about the field, not which one: a thing with its value ("… 10 mg")
    return [first.group(1)] if _a_thing(first.group(1), noun) else []
