"""A value the agent gives a field by its name, in a sentence not otherwise about the user
("The estimate for the cleaning is $265", "37.4 kilograms"): when it counts as the user's. Such
a value fills a field that holds nothing yet, never replaces what is held ("What would you like
to pay a month?" — "64,500." — "The joining fee is 50 euros."): ``_confirmations``."""

from __future__ import annotations

import re

from extraction.extractors.rules.fields import Profile, cue_score
from extraction.extractors.rules.measures import states_its_unit
from extraction.extractors.rules.mentions import Mention

_NOT_THEIRS = re.compile(
    r"(?i:\bof yours\b|\byour (?:friend|mate|colleague|neighbou?r)\b|\bour (?:rates?|prices?|fees?|"
    r"charges?|tariffs?)\b|\b(?:rates?|prices?) (?:go|goes|going) up\b)"
)
_SIGNED = re.compile(r"[$€£₹¥]|(?i:\b(?:dollars?|euros?|pounds?|rupees?|francs?|lakhs?|crores?|bucks|"
                     r"usd|eur|gbp|inr|aud|cad|nzd|sgd|chf|jpy|rs|k)\b)")  # fmt: skip


def given(sentence: str, mention: Mention, before: str) -> bool:
    """Whether the agent gives the value, as the field's, in a sentence that names the field but
    is not otherwise about the user: not a friend's ("a mate of yours … on £130k"), not the
    price list ("our rates go up: 5 kg will be $18.90"), not refused ("47 thousand, not 52"),
    not a code ("dispute DSP 77810293": an amount says its currency), and not the numbers the
    user just said ("For 6 kg to Coimbatore, …": an echo, or the sister's 3 kg)."""
    said = sentence[mention.start : mention.end]
    if _NOT_THEIRS.search(sentence) or re.search(r"\bnot\s+\W*$", sentence[: mention.start]):
        return False
    if mention.type == "money" and not _SIGNED.search(
        said + sentence[mention.end : mention.end + 10]
    ):
        return False
    numbers = re.findall(r"\d+(?:[.,]\d+)*", said)
    return not numbers or not all(
        re.search(rf"(?<![\d.,]){re.escape(n)}(?![\d]|[.,]\d)", before) for n in numbers
    )


def names_a_field(sentence: str, fields: list[Profile]) -> bool:
    """Whether the sentence names a field of numbers, amounts, dates or choices by its words, or
    by a word of the same meaning as what the sentence is about ("Mileage was 88,412" for an
    odometer reading)."""
    return any(
        p.type != "string"
        and (
            (score := cue_score(p, sentence))[0] >= 1.0
            or states_its_unit(p, sentence)
            or (score[0] >= 0.7 and _subject_is(score[1], sentence))
        )
        for p in fields
    )


_REVISED = re.compile(
    r"\b(?:instead of|rather than|down from|up from|now|new|revised|updated|reduced|increased|final|"
    r"becomes|goes (?:up|down) to|comes to|(?:under|over|below|above) the (?:estimate|quote))\b",
    re.I)  # fmt: skip


def updates(profile: Profile, sentence: str) -> bool:
    """Whether a value the agent gives by the field's name replaces the one held: read out in
    the field's unit ("37.9 kilograms"), said as a change ("revised to …", "now …"), or the
    reading of the field itself ("Mileage was 88,412 at check-in")."""
    if states_its_unit(profile, sentence) or _REVISED.search(sentence):
        return True
    score, word = cue_score(profile, sentence)
    return score >= 0.7 and _subject_is(word, sentence) and not _BACK_THEN.search(sentence)


# A reading of another time: "Mileage was 40,000 when you bought it"
_BACK_THEN = re.compile(
    r"\b(?:when (?:you|it|we|they) (?:bought|got|purchased|took|first)|originally|used to|back (?:then|in)|"
    r"at purchase|last (?:year|time|service)|before (?:the|your|it))\b",
    re.I,
)


def _subject_is(word: str | None, sentence: str) -> bool:
    """Whether the sentence opens with ``word`` (a stem) as what it states a value of."""
    if not word:
        return False
    return bool(re.match(
        rf"(?i)\W*(?:(?:your|the|current|latest|new|final)\s+)*{re.escape(word)}\w*\s+"
        r"(?:is|was|are|were|reads?|read|came to|comes to|stands at|now at|at)\b", sentence))  # fmt: skip
