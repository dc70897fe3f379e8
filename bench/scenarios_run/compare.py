"""Typed comparison of fact values, and finding a value stated in rendered text. Pure functions,
deliberately independent of the extractor's own parsers (``extraction.values``): a bug there
must not hide itself here.

- ``value_equal``: money by amount and currency, numbers numerically, dates as ISO days,
  strings case- and space-insensitively (trailing punctuation ignored), enums and booleans
  exactly.
- ``value_spans``: where a text states a value, in the forms it is rendered or written: money
  as "₹50 lakh", "50 lakhs", "50,00,000", "Rs 5000000", "0.5 crore", "$2,100", "2.1k",
  "€1,450"; dates as "2026-03-11", "11 March", "March 11th, 2026"; numbers by value; strings
  and enum choices as whole words.
"""

from __future__ import annotations

import math
import re
from typing import Any

UNITS = {"k": 1e3, "thousand": 1e3, "lakh": 1e5, "lakhs": 1e5, "lac": 1e5, "lacs": 1e5,
         "l": 1e5, "lpa": 1e5, "crore": 1e7, "crores": 1e7, "cr": 1e7, "million": 1e6,
         "mn": 1e6, "m": 1e6, "bn": 1e9, "billion": 1e9}  # fmt: skip
INDIAN = {"lakh", "lakhs", "lac", "lacs", "l", "lpa", "crore", "crores", "cr"}
SIGNS = {"₹": "INR", "rs": "INR", "rs.": "INR", "inr": "INR", "rupees": "INR", "$": "USD",
         "usd": "USD", "dollars": "USD", "€": "EUR", "eur": "EUR", "euros": "EUR",
         "£": "GBP", "gbp": "GBP", "pounds": "GBP"}  # fmt: skip
MONEY = re.compile(
    r"(?P<pre>₹|\$|€|£|\brs\.?|\binr\b|\busd\b|\beur\b|\bgbp\b)?\s?"
    r"(?<![\d.,])(?P<num>\d[\d,]*(?:\.\d+)?)\s?"
    r"(?P<unit>thousand|lakhs?|lacs?|lpa|crores?|cr|million|mn|billion|bn|k|l|m)?(?![a-z])\s?"
    r"(?P<post>rupees|dollars|euros|pounds|inr|usd|eur|gbp)?(?![a-z])",
    re.IGNORECASE,
)
NUMBER = re.compile(r"(?<![\w.,])\d[\d,]*(?:\.\d+)?(?![\d])")
MONTHS = {name: i for i, names in enumerate(
    [("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",),
     ("june", "jun"), ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"),
     ("october", "oct"), ("november", "nov"), ("december", "dec")], 1) for name in names}  # fmt: skip
_MONTH = "|".join(sorted(MONTHS, key=len, reverse=True))
DATES = [
    re.compile(r"\b(?P<y>\d{4})-(?P<m>\d{2})-(?P<d>\d{2})\b"),
    re.compile(rf"\b(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<mon>{_MONTH})\b\.?(?:,?\s+(?P<y>\d{{4}}))?", re.I),
    re.compile(rf"\b(?P<mon>{_MONTH})\.?\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s+(?P<y>\d{{4}}))?", re.I),
]  # fmt: skip


def norm_text(text: str) -> str:
    return re.sub(r"\s+", " ", str(text)).strip().strip(".,;:!?").casefold()


def norm_key(key: str) -> str:
    """``child_age:Aditi`` and ``child_age: aditi`` are the same key."""
    name, _, qualifier = key.partition(":")
    return f"{name.strip()}:{norm_text(qualifier)}" if qualifier.strip() else name.strip()


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-6)


def _money(value: Any) -> tuple[float, str | None] | None:
    if isinstance(value, dict) and isinstance(value.get("amount"), int | float):
        return float(value["amount"]), value.get("currency")
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value), None
    return None


def value_equal(type_: str, actual: Any, expected: Any) -> bool:
    if type_ == "money":
        got, want = _money(actual), _money(expected)
        return bool(got and want and _close(got[0], want[0]) and got[1] == want[1])
    if type_ == "number":
        numeric = lambda v: isinstance(v, int | float) and not isinstance(v, bool)  # noqa: E731
        return numeric(actual) and numeric(expected) and _close(float(actual), float(expected))
    if type_ == "date":
        return isinstance(actual, str) and actual[:10] == str(expected)[:10]
    if type_ == "boolean":
        return isinstance(actual, bool) and actual is expected
    if type_ == "enum":
        return actual == expected
    return isinstance(actual, str) and norm_text(actual) == norm_text(expected)


def value_matches(type_: str, actual: Any, item: dict[str, Any]) -> bool:
    """The expectation's value or one of its ``accept`` alternatives."""
    return any(value_equal(type_, actual, v) for v in [item["value"], *item.get("accept", [])])


def money_spans(text: str) -> list[tuple[float, str | None, int, int]]:
    """Every amount written in ``text`` with its currency when the text says it."""
    out = []
    for match in MONEY.finditer(text):
        pre, unit, post = match.group("pre"), match.group("unit"), match.group("post")
        raw = match.group("num").rstrip(",")
        try:
            number = float(raw.replace(",", ""))
        except ValueError:
            continue
        unit_l = (unit or "").lower()
        number *= UNITS.get(unit_l, 1)
        currency = SIGNS.get((pre or "").lower().strip()) or SIGNS.get((post or "").lower())
        if currency is None and unit_l in INDIAN:
            currency = "INR"
        out.append((number, currency, match.start("num"), match.end()))
    return out


def date_spans(text: str) -> list[tuple[int | None, int, int, int, int]]:
    """(year or None, month, day, start, end) for every date written in ``text``."""
    out = []
    for pattern in DATES:
        for match in pattern.finditer(text):
            groups = match.groupdict()
            month = int(groups["m"]) if groups.get("m") else MONTHS[groups["mon"].lower()]
            year = int(groups["y"]) if groups.get("y") else None
            out.append((year, month, int(groups["d"]), match.start(), match.end()))
    return out


def value_spans(type_: str, value: Any, text: str) -> list[tuple[int, int]]:
    """Where ``text`` states ``value`` (a value of a field of type ``type_``)."""
    if type_ == "money":
        want = _money(value)
        if want is None:
            return []
        return [(s, e) for amount, currency, s, e in money_spans(text)
                if _close(amount, want[0]) and currency in (None, want[1])]  # fmt: skip
    if type_ == "number":
        return [(m.start(), m.end()) for m in NUMBER.finditer(text)
                if _close(float(m.group().replace(",", "")), float(value))]  # fmt: skip
    if type_ == "date":
        year, month, day = (int(part) for part in str(value)[:10].split("-"))
        return [(s, e) for y, m, d, s, e in date_spans(text)
                if (m, d) == (month, day) and y in (None, year)]  # fmt: skip
    if type_ == "boolean":
        word = r"(yes|true)" if value else r"(no|false)"
        return [(m.start(), m.end()) for m in re.finditer(rf"\b{word}\b", text, re.I)]
    phrase = re.escape(norm_text(value)).replace(r"\ ", r"\s+")
    return [(m.start(), m.end())
            for m in re.finditer(rf"(?<!\w){phrase}(?!\w)", text, re.I)]  # fmt: skip


def distinctive(type_: str, value: Any) -> bool:
    """Whether a value is specific enough to be recognised in prose without its field's name
    nearby: "₹50 lakh" is; "3" or "yes" is not."""
    if type_ in ("money", "date"):
        return True
    if type_ == "number":
        return abs(float(value)) >= 100
    if type_ in ("string", "enum"):
        return len(norm_text(value)) >= 4
    return False
