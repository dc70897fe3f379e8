"""A reading the agent gives without naming what it reads: "Hop on... 36.1. Great progress." for
a dog whose weight memory holds at 37.6. Values that are measured again and again (a weight, a
meter, an odometer, a score) move a little each time, so a bare number near the one memory holds
for exactly one number field is that field's new reading. Near: within a quarter of the held
value, not equal to it, and no other field holds a value that near. Never a price, a time, a
date, a value aimed at ("get him down to 32"), or a number the sentence says of someone else.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from core.text import sentences
from extraction.extractors.rules.amounts import money_in, numbers_in
from extraction.extractors.rules.dates import dates_in
from extraction.extractors.rules.fields import Profile, stem
from extraction.extractors.rules.mentions import Mention
from extraction.extractors.rules.prompts import LIMITS, OTHERS, Prompt

NEAR = 0.25  # how far a new reading may lie from the held one, as a share of it
_CLOCK = re.compile(r"\s*(?:am|pm|o'clock|:\d|h\b|hrs?\b|%|percent)", re.I)
_OTHER_UNIT = re.compile(
    r"\s*(?:seconds?|minutes?|mins?|hours?|days?|weeks?|months?|years?|people|persons?|times|"
    r"sessions?|nights?|items?|pieces?|units?)\b",
    re.I,
)
# A reading is said alone, or with the field's unit: it ends its clause ("Hop on... 36.1.",
# "88,412 at check-in" is the field's own word's rule, not this one).
_SAID_ALONE = re.compile(
    r"\s*(?:kgs?|kilos?|kilograms?|lbs?|pounds|km|miles|cm|kwh|units)?\s*(?:[.!,;]|$)", re.I
)
# What else a bare number is: a room, an extension, a price, a dose, a rate, an age, a due point
_LABELLED = re.compile(
    r"\b(?:room|extension|ext|page|gate|seat|table|platform|bay|ward|floor|aisle|desk|temperature|"
    r"heart rate|pulse|pressure|bpm|dose|ml|mg|price|costs?|fee|be|each|due|interval|every|who's|"
    r"aged?|number|no\.?|#)\s*(?:is\s+|was\s+|at\s+|of\s+)?(?:about\s+)?$",
    re.I,
)
_AT = re.compile(r"\b(?:at|by|from|until|till|before|after|around)\s*$", re.I)
# A value aimed at, not read: "get him down to about 32", "the target is 30", "ideally 80"; a
# limit, not a reading: "it takes 250", "under 25"
_AIMED = re.compile(
    r"\b(?:down to|up to|get \w+ (?:down |up )?to|aim(?:ing)? (?:for|at)|target|goal|ideal(?:ly)?|"
    r"should be|want \w+ (?:at|to be)|hoping for|by (?:the end|next))\b[^.;!?]{0,20}$"
    # a capacity or a threshold: "it takes 250", "under 25 there's a fee"
    rf"|\b(?:{LIMITS}|sleeps|capacity|max(?:imum)?|min(?:imum)?|fewer than)\s+(?:about\s+)?$",
    re.I,
)


def _held(current: Mapping[str, str], profile: Profile) -> list[float]:
    out = []
    for key, text in current.items():
        if key.partition(":")[0] == profile.key:
            try:
                out.append(float(str(text).replace(",", "")))
            except ValueError:
                continue
    return out


def near_held(prompt: Prompt, fields: list[Profile], current: Mapping[str, str]) -> None:
    """Add to ``prompt.stated`` each bare number of the agent's turn that is a new reading of the
    one number field holding a value near it."""
    numeric = [(p, held) for p in fields if p.type == "number" and (held := _held(current, p))]
    if not numeric:
        return
    today = prompt.turn.occurred_at.date()
    for sentence in sentences(prompt.turn.text):
        if OTHERS.search(sentence) or money_in(sentence, None):
            continue
        days = [(d.start, d.end) for d in dates_in(sentence, today)]
        for number in numbers_in(sentence):
            value, written = number.value, sentence[number.start : number.end]
            if (
                value <= 0
                or (value < 10 and not re.search(r"\d\.\d", written))  # "in 5", "two of you"
                or _OTHER_UNIT.match(sentence, number.end)
                or _LABELLED.search(sentence[: number.start])
                or _CLOCK.match(sentence, number.end)
                or _AIMED.search(sentence[: number.start])
                or (
                    _AT.search(sentence[: number.start])  # "at 4.15": a time; "at 36.1" is not
                    and re.fullmatch(r"\d{1,2}[.:]\d\d", written)
                )
                or any(a <= number.start < b for a, b in days)
                or any(m.value == value for _, m, _ in prompt.stated)
            ):
                continue
            near = [
                p
                for p, held in numeric
                if any(h and value != h and abs(value - h) <= NEAR * abs(h) for h in held)
            ]
            unit = stem((number.after.split() or [""])[0].lower().strip(".,!?;"))
            if len(near) != 1 or not (
                _SAID_ALONE.match(sentence, number.end)  # "36.1." — not "38 for the consult"
                or (
                    unit and (unit in near[0].words or unit in near[0].key.split("_"))
                )  # "75 guests"
            ):
                continue
            reading = int(value) if float(value).is_integer() else value
            mention = Mention("number", reading, number.start, number.end, "a reading near the "
                              "held one", number.after, sentence)  # fmt: skip
            prompt.stated.append((near[0], mention, "a new reading of the value held"))
