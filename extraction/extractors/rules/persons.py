"""Whether a text field holds the user's own name: a key that is a name ("name",
"customer_name"), or one that holds the person the account is in under another word
("account_holder": "Name of the person the account is in"; "member": "The member's full
name"); never someone else's (a pet's, a child's, a doctor's, an emergency contact's)."""

from __future__ import annotations

import re

_HOLDER_NAME = re.compile(
    r"\bname of the (?:person|customer|client|user|caller|member|holder|account holder|"
    r"policy ?holder|patient|applicant)\b|\b(?:customer|client|caller|user|member|holder|patient|"
    r"applicant|guest|tenant|student|subscriber)'s (?:full )?name\b"
)
# "name", "full_name", "customer_name": a person's; "nursery_name", "company_name": a thing's
_NAME_KEY = re.compile(
    r"(?:(?:full|first|last|given|family|legal|preferred|customer|client|user|caller|member|"
    r"holder|account_holder|patient|applicant|guest|tenant|student|subscriber|passenger|owner|"
    r"buyer|candidate|employee|traveller|traveler|policyholder|contact|consumer|learner|parent|"
    r"resident|visitor|driver|rider|attendee|participant|claimant|insured|borrower|investor|"
    r"lead|prospect|booking|account|reservation|order|registered|main|primary|card|cardholder|"
    r"your|my)_)?name|surname"
)
_SOMEONE_ELSES = re.compile(
    r"\b(pet|dog|cat|child|children|kid|son|daughter|baby|doctor|company|employer|builder|bank|"
    r"hotel|school|landlord|spouse|wife|husband|partner|emergency|gp|dentist|solicitor|nominee|"
    r"beneficiary|guarantor|referee|reference|vet|tutor|teacher)\b"
)


def users_name(key: str, about: str) -> bool:
    """``about``: the field's key and description as lower-case words, without the examples of
    its qualifiers."""
    named = _NAME_KEY.fullmatch(key) or _HOLDER_NAME.search(about)
    return bool(named) and not _SOMEONE_ELSES.search(about)


_FIRST = re.compile(r"\b(?:first|given|fore)[ _]?name\b", re.I)
_LAST = re.compile(r"\b(?:(?:last|family)[ _]?name|surname)\b", re.I)


def name_part(about: str, name: str) -> str | None:
    """The part of the user's name a name field keeps: the first word for a first name, the last
    for a surname ("Tom. Surname Okafor." — first_name Tom, last_name Okafor), else all of it;
    ``about``: the field's key and description."""
    words = name.split()
    if _FIRST.search(about) and not _LAST.search(about):
        return words[0]
    if _LAST.search(about) and not _FIRST.search(about):
        return words[-1] if len(words) > 1 else None
    return name


def a_part_of_the_name(about: str) -> bool:
    """Whether a name field keeps only the first or only the last name."""
    return bool(_FIRST.search(about)) != bool(_LAST.search(about))
