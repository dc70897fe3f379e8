"""Numbers written in words, as digits: "four hundred and twenty-five thousand" → "425000",
"sixty-four thousand five hundred" → "64500", "a hundred and fifteen" → "115", "two lakh fifty
thousand" → "2.5 lakh"; and "151 300" (thousands set apart by a space) → "151300". Voice
transcripts and formal speech say amounts this way; the readers
of money and numbers read digits. Only a run of two or more number words (or a hyphenated
"twenty-five", or one from thirteen to ninety) is rewritten: "two kids" and "one of them" stay as
they are."""

from __future__ import annotations

import re

_UNITS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
          "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
          "eighteen", "nineteen"]  # fmt: skip
_TENS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_SMALL = {w: i for i, w in enumerate(_UNITS)} | {w: 20 + 10 * i for i, w in enumerate(_TENS)}
# A number word alone that is never anything but a number ("Sixty.", "about eighty people")
_PLAIN = frozenset(_UNITS[13:] + _TENS)
_SCALES = {"thousand": 1e3, "thou": 1e3, "million": 1e6, "billion": 1e9, "lakh": 1e5, "lakhs": 1e5,
           "crore": 1e7, "crores": 1e7}  # fmt: skip
_WORD = rf"(?:{'|'.join(_TENS)})(?:-(?:{'|'.join(_UNITS[1:10])}))?|{'|'.join(sorted(_UNITS, key=len, reverse=True))}"
_TOKEN = rf"(?:{_WORD}|hundred|{'|'.join(_SCALES)})"
_RUN = re.compile(
    rf"\b(?:an?\s+(?=hundred|thousand|million|lakh|crore))?{_TOKEN}"
    rf"(?:(?:\s+and\s+(?={_WORD}\b)|[\s-]+){_TOKEN})*\b",
    re.IGNORECASE,
)


def _value(words: list[str]) -> tuple[float, str] | None:
    """The run's value and its Indian unit if it ends in one; None when it is no one number
    ("five six", "thousand")."""
    total, current, last = 0.0, 0.0, ""
    for word in words:
        if word in ("a", "an"):
            current, last = 1.0, "small"
        elif word in _SMALL:
            n = _SMALL[word]
            if last == "small" and not (current % 100 >= 20 and current % 10 == 0 and n < 10):
                return None  # "five six": two numbers; "twenty five" is one
            current, last = current + n, "small"
        elif word == "hundred":
            if last != "small":
                return None
            current, last = current * 100, "hundred"
        else:
            if last not in ("small", "hundred") or current == 0:
                return None
            total, current, last = total + current * _SCALES[word], 0.0, word
    if last == "":
        return None
    value = total + current
    indian = [w for w in words if w in ("lakh", "lakhs", "crore", "crores")]
    unit = ("crore" if value >= 1e7 else "lakh") if indian else ""
    return value, unit


# A tens or teens word that is a name ("The Sixty", "Room Fourteen": capitalised after a word)
# or an age in passing ("she's turning sixteen, so maybe 25 kids") stays a word
_NOT_COUNTED_BEFORE = re.compile(r"(?:\b(?:turning|turns|turned)\s+|[A-Za-z]\s+(?=[A-Z]))$")


def _counted(match: re.Match[str]) -> bool:
    """A tens or teens word alone that counts ("Sixty.", "we've seventy coming", "the ninety")."""
    if match.group(0).lower() not in _PLAIN:
        return False
    before = match.string[: match.start()]
    capital_mid = match.group(0)[:1].isupper() and re.search(r"[A-Za-z,]\s+$", before)
    return not (capital_mid or _NOT_COUNTED_BEFORE.search(before))


def spell_out(text: str) -> str:
    def digits(match: re.Match[str]) -> str:
        raw = match.group(0)
        words = [w for w in re.split(r"[\s-]+", raw.lower()) if w != "and"]
        if len(words) < 2 and "-" not in raw and not _counted(match):
            return raw
        found = _value(words)
        if found is None:
            return raw
        value, unit = found
        if unit:  # keep the Indian unit: it says the currency
            scale = _SCALES[unit]
            return f"{value / scale:g} {unit}"
        return f"{value:.0f}" if float(value).is_integer() else f"{value:g}"

    def half(match: re.Match[str]) -> str:  # "eight and a half thousand" → "8500"
        count, scale = match.group(1).lower(), match.group(2).lower()
        found = (float(count), None) if count[0].isdigit() else _value(count.split("-"))
        if found is None or found[1] or scale not in _SCALES:
            return match.group(0)
        value = found[0] + 0.5
        return f"{value:g} {scale}" if scale[0] in "lc" else f"{value * _SCALES[scale]:.0f}"

    text = _HALF.sub(half, text)
    return _GROUPED.sub(lambda m: m.group(0).replace(" ", ""), _RUN.sub(digits, text))


_HALF = re.compile(rf"\b({_WORD}|\d+)\s+and\s+a\s+half\s+({'|'.join(_SCALES)})\b", re.I)


# "151 300 km", "155 900": thousands set apart by a space, as much of Europe writes them (not a
# phone number's groups: the first group follows no other digits)
_GROUPED = re.compile(
    r"(?<![\d,.])(?<!\d )\b(?:\d{2,3}(?: \d{3})+\b(?! ?\d)"
    r"|\d(?: \d{3})+\b(?= ?(?:km|kms|miles|€|eur)))"
)
