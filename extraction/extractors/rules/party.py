"""How many people a reply counts when it lists them instead of saying a number: "me, my wife
and our two kids" is 4, "just me and my husband" 2, "my mum, dad and me" 3."""

from __future__ import annotations

import re

from extraction.extractors.rules.acts import RELATIONS
from extraction.extractors.rules.fields import Profile

_PEOPLE_FIELD = re.compile(
    r"\b(?:people|persons?|travell?ers?|guests?|passengers?|adults?|pax|occupants?|party|"
    r"headcount|attendees?|freelancers?|staff|employees?|workers?|hires?)\b",
    re.I,
)
_ME = re.compile(r"\b(?:(?i:me|myself)|I)\b(?!')")
_NUMBER = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
           "nine": 9, "ten": 10}  # fmt: skip
_SAID = re.compile(rf"\b(?:\d+|{'|'.join(_NUMBER)})\s+(?:of us|people|persons|adults in total|in total|"
                   r"in all)\b", re.I)  # fmt: skip
_GROUP = re.compile(
    rf"\b(\d+|{'|'.join(_NUMBER)})\s+(?:\w+\s+)?(?:kids?|child|children|boys?|girls?|sons?|daughters?|"
    r"friends?|colleagues?|others|adults?|teens?|teenagers?|grandchild|grandchildren|(?:\d+|\w+)-year-olds)\b",
    re.I,
)
_SINGLE = "|".join(w for w in RELATIONS.split("|") if not w.endswith("s") or w == "boss")
_ONE = re.compile(rf"\b(?:{_SINGLE}|baby|toddler|infant|newborn|(?:\d+|\w+)-year-old)\b(?!s)", re.I)
_LIST = re.compile(r",|\band\b|\bplus\b|&", re.I)


def counts_people(profile: Profile) -> bool:
    """A number field that counts people ("Number of travellers"), not one kept per person
    ("Age of each person on the policy, one fact per person")."""
    return (
        profile.type == "number"
        and not profile.qualified
        and bool(
            _PEOPLE_FIELD.search(profile.key.replace("_", " ")) or _COUNT.search(profile.about)
        )
        and bool(_PEOPLE_FIELD.search(profile.about))
    )


_COUNT = re.compile(r"\b(?:number|how many|count|size|total)\b", re.I)


def party_size(text: str) -> int | None:
    """The people a listing reply names ("me, my wife and our two kids": 4), or None when it
    is no list of people."""
    clause = re.split(r"[.!?;]", text)[0]
    if not _LIST.search(clause) or _SAID.search(clause):
        return None  # "Maybe 4 of us, I'll confirm once my parents decide": the number said
    groups = [int(n) if n.isdigit() else _NUMBER[n.lower()] for n in _GROUP.findall(clause)]
    plural = {"parents": 2, "grandparents": 2, "in-laws": 2}
    ones = len(_ONE.findall(clause)) + (1 if _ME.search(clause) else 0)
    ones += sum(n for w, n in plural.items() if re.search(rf"\b{w}\b", clause, re.I))
    total = ones + sum(groups)
    return total if total >= 2 and (ones >= 2 or groups) else None


# "Just me and my dog, Biscuit.", "only myself": one person (a pet is no occupant)
_ALONE = re.compile(r"^\W*(?:(?:just|only)\s+(?:me|myself)|me alone|on my own|by myself|"
                    r"alone|solo|just the one)\b", re.I)  # fmt: skip


def alone(text: str) -> bool:
    """Whether the reply's first clause counts the user alone ("Just me and my dog")."""
    clause = re.split(r"[.!?;]", text)[0]
    return bool(_ALONE.match(clause)) and not _ONE.search(clause) and not _GROUP.search(clause)
