"""Typed values in text: money (with Indian units), numbers, emails, phones; and the value
signature that keeps dedup from eating updates. Pure functions."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from extraction.text import ABSOLUTE_DATE, MONTHS, NUMBER_WORDS

UNITS = {"k": 1e3, "thousand": 1e3, "lakh": 1e5, "lakhs": 1e5, "lac": 1e5, "lacs": 1e5,
         "l": 1e5, "crore": 1e7, "crores": 1e7, "cr": 1e7, "million": 1e6, "mn": 1e6,
         "m": 1e6, "billion": 1e9, "bn": 1e9}  # fmt: skip
INDIAN_UNITS = {"lakh", "lakhs", "lac", "lacs", "l", "crore", "crores", "cr"}
SIGNS = {"₹": "INR", "rs": "INR", "rs.": "INR", "inr": "INR", "rupees": "INR", "rupee": "INR",
         "$": "USD", "usd": "USD", "dollars": "USD", "dollar": "USD", "€": "EUR", "eur": "EUR",
         "euros": "EUR", "£": "GBP", "gbp": "GBP", "pounds": "GBP"}  # fmt: skip
MONEY = re.compile(
    r"(?P<pre>₹|\$|€|£|\brs\.?|\binr|\busd|\beur|\bgbp)?\s?"
    r"(?P<num>\d+(?:[.,]\d+)*)\s?"
    r"(?P<unit>k|thousand|lakhs?|lacs?|l|crores?|cr|million|mn|m|billion|bn)?\b\s?"
    r"(?P<post>rupees?|dollars?|euros?|pounds|inr|usd|eur|gbp)?",
    re.IGNORECASE,
)
EMAIL = re.compile(r"\b[\w.+-]+@[\w-]+\.[\w.-]+\b")
# Digits in groups as phone numbers are written ("07700 914 238", "612 48 93 70", "+44 7700
# 900123", "(555) 123-4567"); callers ask for at least eight digits.
PHONE = re.compile(
    r"(?<![\w-])(?:\+\d{1,3}[\s.-]?)?(?:\(\d{1,5}\)[\s.-]?)?(?:\d{8,12}|\d{2,6}(?:[\s.-]\d{2,6}){0,4})"
    r"(?![\w-])"
)
NUMBER = re.compile(
    r"\b(\d+(?:,\d{3})*(?:\.\d+)?|"
    + "|".join(w for w in NUMBER_WORDS if " " not in w and len(w) > 2)
    + r")\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Money:
    amount: float
    currency: str | None
    start: int
    end: int

    def value(self) -> dict[str, Any]:
        amount: float | int = int(self.amount) if float(self.amount).is_integer() else self.amount
        return {"amount": amount, "currency": self.currency}


def find_money(text: str) -> list[Money]:
    """Amounts that are clearly money: a currency sign or word, or a money unit (lakh, crore, k)."""
    found = []
    for match in MONEY.finditer(text):
        pre, unit, post = match.group("pre"), match.group("unit"), match.group("post")
        if not (pre or unit or post):
            continue
        # "3 m" or "5 k" alone are too often not money (metres, kilometres)
        bare_unit = bool(unit) and unit.lower() in ("m", "l", "k") and not (pre or post)
        money_words = re.search(r"\b(salary|budget|rent|pay|price|cost)", text, re.I)
        if bare_unit and (unit.lower() != "k" or not money_words):
            continue
        raw = match.group("num")
        number = float(raw.replace(",", "")) if raw.count(".") <= 1 else None
        if number is None:
            continue
        multiplier = UNITS.get((unit or "").lower(), 1)
        currency = SIGNS.get((pre or "").lower().strip()) or SIGNS.get((post or "").lower())
        if currency is None and unit and unit.lower() in INDIAN_UNITS:
            currency = "INR"
        found.append(Money(round(number * multiplier, 2), currency, match.start(), match.end()))
    return found


def find_numbers(text: str) -> list[tuple[float, int, int]]:
    out = []
    for match in NUMBER.finditer(text):
        word = match.group(1).lower()
        value = NUMBER_WORDS.get(word)
        number = float(value) if value is not None else float(word.replace(",", ""))
        out.append((number, match.start(), match.end()))
    return out


# A number said as a booking's, an account's or a ticket's is no phone number and no amount
# ("PNR 4521879001", "claim 90114", "savings ending 4821", "card ending in 0932")
A_CODE_BEFORE = re.compile(
    r"\b(?:pnr|ref|(?<!for )reference|booking|order|ticket|account|policy|claim|invoice|tracking|"
    r"consumer|customer|member|serial|employee|staff|(?<!any )case|complaint|application|passport|"
    r"licen[cs]e)(?:\s*(?:no\.?|number|id|#)(?:\s*(?:is|was|:))?)?[\s:#-]*$"
    r"|\b(?:ending|ends)(?: in| with)?[\s:]*$|\blast (?:four|4)(?: digits)?(?: (?:are|is))?[\s:]*$",
    re.I,
)  # not "my claim is 2500 pounds", "the whole order, £1250", "in any case, 2000"


def names_a_code(before: str, digits: str) -> bool:
    """Whether ``digits``, said after ``before``, name a thing: after a code word, with five
    digits or more or a word that marks a code ("number", "no.", "#", "ending") — "claim 90114",
    "ticket no. 4471", "ending 4821"; not "claim 2500, that's what the plumber charged"."""
    found = A_CODE_BEFORE.search(before[-40:])
    if found is None:
        return False
    return len(digits) >= 5 or bool(re.search(r"no\.?|number|id|#|end|last", found.group(0), re.I))


# A run of digits said when the agent asked about another field is that field's, not a phone
# number, unless written as one (a leading +, 0 or "(", groups) or said as one ("call me on",
# "my number is"): "61220045" to "Which order?" is an order. Said unasked, it is a phone's.
_DIALLED = re.compile(r"^\s*(?:\+|0|\(|\d+[\s.-]\d)")
_CALL = re.compile(r"\b(?:call(?:s|ed|ing|back)?|ring|reach|texts?|texting|sms|whatsapp|dial|"
                   r"(?:hand)?phone|mobile|mob|cell(?:phone)?|landline|tel|contact|my number|"
                   r"get me on|i'm on|best on|try me|alerts?|otps?|reminders?|notify|message)\b",
                   re.I)  # fmt: skip


def said_as_phone(text: str, match: re.Match[str], asked_else: bool, codes: set[str]) -> bool:
    """Whether a phone-shaped number is a phone number: said unasked (``asked_else``: the
    agent's question was about another field) and not one of the things' ``codes`` (an order
    number given to "Give me the order reference"), or written or said as one."""
    code = re.sub(r"\D", "", match.group(0)) in codes
    return not (asked_else or code) or bool(_DIALLED.search(match.group(0)) or _CALL.search(text))


def is_phone(text: str, match: re.Match[str]) -> bool:
    """At least eight digits, and not a booking's or an account's number ("PNR 4521879001")."""
    digits = sum(c.isdigit() for c in match.group(0))
    return digits >= 8 and not A_CODE_BEFORE.search(text[: match.start()])


_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b([A-Z][a-z]{2,})\b")
_SKIP_NAMES = {m.capitalize() for m in MONTHS} | {"On", "The", "And", "But", "Said", "Monday", "Tuesday",
               "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"}  # fmt: skip


def value_signature(text: str) -> frozenset[str]:
    """The concrete values a text states: numbers, amounts, dates, names.

    Two memory units are duplicates only when their signatures agree: "rent is $1,800" and
    "rent is $2,100" embed almost alike, but their signatures differ, so the update is kept.
    """
    parts: set[str] = set()
    for money in find_money(text):
        parts.add(f"money:{money.amount:g}")
    for match in ABSOLUTE_DATE.finditer(text):
        parts.add("date:" + re.sub(r"\W+", " ", match.group(0).lower()).strip())
    for number, _, _ in find_numbers(text):
        parts.add(f"n:{number:g}")
    for name in _NAME.findall(text):
        if name not in _SKIP_NAMES:
            parts.add(f"name:{name.lower()}")
    return frozenset(parts)
