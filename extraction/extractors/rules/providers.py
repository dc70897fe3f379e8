"""The company a user is with: a text field that holds a supplier, insurer, bank or network
("Energy company the customer is with now"), asked "Who are you with?" and answered "We're with
Octopus" or told unasked ("I'm with British Gas but they've put my debit up")."""

from __future__ import annotations

import re

from extraction.extractors.rules.fields import Profile

_PROVIDER = re.compile(
    r"\b(?:supplier|provider|insurer|insurance company|bank|lender|network|carrier|broadband|"
    r"energy company|mobile company|is with)\b",
    re.I,
)
_WITH = re.compile(
    r"\b(?i:i'm|i am|we're|we are|(?:i|we)'ve been|(?:i|we) have been|currently|still|"
    r"(?:i|we) (?:bank|insure|switched|moved))\s+(?:\w+\s+)?(?i:with)\s+(?P<v>[A-Z][^.,;!?]*)"
)
WHO_WITH = re.compile(
    r"\bwho (?:are|is) (?:you|your \w+) (?:\w+ed )?with\b|\bwho do you (?:bank|insure) with\b", re.I
)


def provider(profile: Profile) -> bool:
    """Whether a text field holds the company the user is with (supplier, insurer, bank …)."""
    return profile.type == "string" and bool(_PROVIDER.search(profile.about))


def with_company(profile: Profile, clause: str) -> tuple[str, int] | None:
    """(what follows "with", where) when a provider field's clause says whom the user is with."""
    held = _WITH.search(clause) if provider(profile) else None
    if held is None or _NOT_NOW.search(clause):  # "I'm not with Vodafone any more"
        return None
    return held.group("v"), held.start("v")


_NOT_NOW = re.compile(r"\b(?:not|no longer|any ?more|used to|previously|was with)\b", re.I)
