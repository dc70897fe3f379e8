"""What people type in a hurry, as they mean it: negations without their apostrophe ("mondays
dont work", "the boiler doesnt work") or with a curly one; weekdays misspelt ("thursdys",
"wednsday", "tuseday", "firday"), read as the day they mean, so the readers of dates and of
weekday choices see it. Only a word that starts as the day does, ends in y or ys, is as long
give or take two letters and is nearly its spelling is mended ("today", "birthday", "sturdy"
stay)."""

from __future__ import annotations

import re
from difflib import SequenceMatcher

_DAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_WORD = re.compile(r"\b([A-Za-z])[a-z]{3,9}ys?\b")
_NEAR = 0.8
_WORDS = {"sundry", "sturdy", "study", "steady", "sandy", "shady", "fiddly", "windy", "wendy"}


_CONTRACTED = re.compile(
    r"\b(do|does|did|is|was|are|were|ca|wo|have|has|had|should|would|could)nt\b", re.I
)


def mend_typing(text: str) -> str:
    """The text with its apostrophes straight ("I\u2019m" is "I'm"), and its negations and
    weekdays spelt out as meant."""
    text = text.replace("\u2019", "'")
    return mend_weekdays(_CONTRACTED.sub(lambda m: f"{m.group(1)}n't", text))


def mend_weekdays(text: str) -> str:
    def mend(match: re.Match[str]) -> str:
        word = match.group(0)
        lowered = word.lower()
        spellings = [day + "s" * lowered.endswith("ys") for day in _DAYS]
        if lowered in spellings or "d" not in lowered or lowered in _WORDS:
            return word
        near, spelt = max(
            (
                (SequenceMatcher(None, lowered, s).ratio(), s)
                for s in spellings
                if s[0] == lowered[0] and abs(len(s) - len(lowered)) <= 2
            ),
            default=(0.0, ""),
        )
        if near < (_NEAR if abs(len(spelt) - len(lowered)) < 2 else 0.85):  # "wensday"
            return word
        return spelt.capitalize() if word[0].isupper() else spelt

    return _WORD.sub(mend, text)
