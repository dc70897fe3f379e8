"""Units of the numbers a turn says: which unit of time a field or a number is in, a number
converted to its field's unit ("three months" for a field in days is 90), and how much a number's
unit says it belongs to a field ("60 days", "12 GB")."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from extraction.extractors.rules.amounts import MONEY_WORDS, RATE_WORDS, Amount, money_in
from extraction.extractors.rules.fields import Profile, stem
from extraction.extractors.rules.mentions import BARE, Mention, day_of_month
from extraction.extractors.rules.party import counts_people

UNIT_BONUS = 1.5  # the value's unit is a word of the field ("60 days", "12 GB")

_TIME = {
    "day": 1.0,
    "week": 7.0,
    "fortnight": 14.0,
    "month": 30.0,
    "year": 365.0,
    "yr": 365.0,
    "hour": 1 / 24,
    "minute": 1 / 1440,
}


_RATE = re.compile(r"\b(?:a|an|per|each|every)\s+(?:day|week|month|year|hour)\b", re.I)


# a description that counts in time: "in days", "how many nights", "how long"; not "a year" (a
# rate: "how far the car is driven in a year") nor "class or year" (a school year)
_DURATION = re.compile(r"\b(?:in|how many|number of)\s+(?:\w+\s+)?(?:minute|hour|day|night|week|month|year)s\b"
                       r"|\bhow long\b|\bduration\b|\bperiod\b|\bterm\b|\blength\b", re.I)  # fmt: skip


def counted_in_time(profile: Profile) -> str | None:
    """The unit of time a field counts in: its key's ("notice_period_days"), or its description's
    where it counts a stretch of time ("Length of the lease in months")."""
    description = _RATE.sub(" ", profile.field.get("description", ""))
    return time_unit(profile.key) or (
        time_unit(description) if _DURATION.search(description) else None
    )


def time_unit(text: str) -> str | None:
    """The unit of time a field or a number is in ("notice_period_days", "3 months")."""
    for word in re.findall(r"[a-z]+", text.lower().replace("_", " ")):
        unit = word.rstrip("s")
        if unit in _TIME:
            return unit
    return None


def a_stretch_of_its_period(profile: Profile, mention: Mention) -> bool:
    """ "Race is in less than six weeks" for "sessions a week": a number of the period a field
    counts in (a count each week, day, month) is a stretch of time, not the count."""
    said = time_unit(" ".join(mention.after.split()[:1]))
    if mention.type != "number" or not said:
        return False
    return _counted_per(profile, said)


_PERIODIC = {"hour": "hourly", "day": "daily", "night": "nightly", "week": "weekly",
             "month": "monthly", "year": "yearly|annually|annual"}  # fmt: skip


def _counted_per(profile: Profile, unit: str) -> bool:
    """Whether the field counts something in each ``unit`` ("sessions a week", "daily dose")."""
    each = _PERIODIC.get(unit, f"{unit}ly")
    pattern = rf"\b(?:a|an|per|each|every)\s+{unit}\b|\b(?:{each})\b"
    return bool(re.search(pattern, profile.about, re.I))


def in_field_unit(profile: Profile, mention: Mention) -> Any:
    """ "three months" for a field in days is 90 (and "2 weeks" 14)."""
    said = time_unit(" ".join(mention.after.split()[:1]))
    wanted = counted_in_time(profile)
    if mention.type != "number" or not said or not wanted or said == wanted:
        return mention.value
    if _counted_per(profile, wanted):
        return mention.value  # "sessions a week": a count in each week, "4 days" is 4

    value = mention.value * _TIME[said] / _TIME[wanted]
    return round(value) if abs(value - round(value)) < 0.05 else round(value, 2)


def in_thousands(profile: Profile, mention: Mention, known: Mapping[str, str]) -> bool:
    """ "850 tops" for a price, "110" for a deposit: a bare amount under 1,000 for a field whose
    amounts run to tens of thousands (its examples, its stored value) is said in thousands."""
    if profile.type != "money" or mention.how != BARE or not 0 < mention.value["amount"] < 1000:
        return False
    stored, examples = field_amounts(profile, known)
    amounts = [a.amount for a in [*examples, *stored]]
    return bool(amounts) and min(amounts) >= 10_000


def counted_in(asked: Profile | None, current: Mapping[str, str]) -> Amount | None:
    """What a bare number in the reply to a question about ``asked`` is in, for a money field:
    its stored amount ("it was 85, not 60" after £60), else the unit its examples agree on
    ("we can't go above 40k": a bare "35" is 35k)."""
    if asked is None or asked.type != "money":
        return None
    stored, amounts = field_amounts(asked, current)
    if stored:
        return stored[0]
    units = {a.unit for a in amounts}
    return amounts[0] if len(units) == 1 and units != {1.0} else None


def field_amounts(profile: Profile, known: Mapping[str, str]) -> tuple[list[Amount], list[Amount]]:
    """(the amounts its stored value states, those its examples state): what a money field's
    amounts look like, for a bare one said to it."""
    stored = [a for a in money_in(known.get(profile.key, "")) if a.explicit]
    examples = [str(e) for e in profile.field.get("examples") or []]
    return stored, [a for e in examples for a in money_in(e) if a.explicit]


# Units a field can be measured in (its key or description names one), with their spellings.
_MEASURES = {"kg": {"kg", "kilo", "kilogram"}, "lb": {"lb", "pound"}, "km": {"km", "kilometre",
             "kilometer"}, "mile": {"mile"}, "gb": {"gb", "gig", "gigabyte"}, "mb": {"mb",
             "megabyte"}, "mg": {"mg", "milligram"}, "ml": {"ml", "millilitre", "milliliter"},
             "cm": {"cm", "centimetre", "centimeter"}, "litre": {"litre", "liter", "l"}}  # fmt: skip


def measured_in(profile: Profile) -> str | None:
    """The unit a field is measured in ("parcel_weight_kg", "data cap in GB"), if it names one."""
    text = profile.about.lower()
    words = {stem(w) for w in re.findall(r"[a-z]+", text)}
    return next((unit for unit in _MEASURES if unit in words), None)


def unit_points(profile: Profile, mention: Mention) -> float:
    after = [stem(w) for w in re.findall(r"[a-z%]+", mention.after)]
    if not after:
        return 0.0
    measure = measured_in(profile)
    if measure and after[0] in profile.words and after[0] not in _MEASURES[measure]:
        return -1.0  # "two parcels" for a parcel's weight in kg: a count of parcels
    if "age" in profile.key.split("_") and after[0] in profile.words and not time_unit(after[0]):
        return -1.0  # "two kids registered with you" for a child's age: a count of kids
    if time_unit(after[0]) and day_of_month(profile):
        return -1.0  # "4 days" is no day of the month
    if time_unit(after[0]) and counted_in_time(profile):
        return UNIT_BONUS  # "3 months" for a notice period; not for "how far … in a year"
    if after[0] in ("percent", "%"):
        return (
            UNIT_BONUS
            if {"percent", "yield", "rate", "%"} & set(profile.words)
            or "percent" in profile.field.get("description", "")
            else -1.0
        )
    people = counts_people(profile) or bool(
        {"people", "person", "adult", "pax", "traveller", "occupant", "living"} & set(profile.words)
    )  # "people" is a generic word: "Number of people in the party" counts them all the same
    if after[0] in profile.words or (people and " ".join(after[:2]) in ("of u", "of them")):
        return UNIT_BONUS
    if after[0] in _COUNTED and people:
        return UNIT_BONUS
    raw = mention.after.split()[0].lower()  # "two baristas called in sick": a count of others
    others = (
        profile.type == "number"
        and bool(re.fullmatch(r"[a-z]{3,}[^s'u]s", raw))
        and raw not in ("times", "units", "items", "pieces", "rounds", "sets", "reps", "goes")
        and not (
            time_unit(after[0]) or any(after[0] in spellings for spellings in _MEASURES.values())
        )
    )
    return -1.0 if others else -0.6 if after[0] in UNIT_WORDS else 0.0


_COUNTED = {stem(w) for w in ("of", "people", "person", "adult", "pax", "guest")}
UNIT_WORDS = {"day", "week", "month", "year", "hour", "minute", "gb", "mb", "mg", "kg", "km",
               "percent", "%", "unit", "flat", "bhk", "bed", "bedroom", "people", "person",
               "time", "lakh", "crore", "k", "grade", "line", "kid", "child", "room"}  # fmt: skip


def states_its_unit(profile: Profile, sentence: str) -> bool:
    """Whether the sentence gives a number in the unit the field is measured in ("17.2 kilos,
    lovely" for a weight in kg): a measurement read out names its field."""
    unit = measured_in(profile) if profile.type == "number" else None
    if unit is None:
        return False
    spellings = "|".join(sorted(_MEASURES[unit], key=len, reverse=True))
    return bool(re.search(rf"\d\s*(?:{spellings})(?:e?s)?\b", sentence, re.I))


def money_said(sentence: str, fields: list[Profile]) -> bool:
    """Whether the sentence speaks of money; a rate alone ("8,500 a year, he says") does not
    where a number field counts by that rate too ("about 8,000 miles a year")."""
    words = [m.group(0) for m in MONEY_WORDS.finditer(sentence)]
    if not words or not all(RATE_WORDS.fullmatch(w) for w in words):
        return bool(words)
    return not any(p.type == "number" and RATE_WORDS.search(
        " ".join([p.about, *map(str, p.field.get("examples") or [])])) for p in fields)  # fmt: skip
