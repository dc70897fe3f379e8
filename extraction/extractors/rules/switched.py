"""Yes/no fields the agent reports switched on or off: "Done, auto-refill is on", "I've set up
the direct debit", "paperless billing is now active"."""

from __future__ import annotations

import re
from dataclasses import replace

from extraction.extractors.rules.fields import Profile, cue_score
from extraction.extractors.rules.mentions import Mention

# Reported as done, not as a rule or a possibility: "Done, auto-refill is on", "paperless billing
# is now active", "I've switched off roaming" (not "roaming is off by default", "your renewal is
# on the 3rd", "if the direct debit is cancelled …")
_SWITCHED = re.compile(
    r"^\W*(?:done|ok|okay|right|all set|sorted|great|understood|perfect)\b[^.;!?]*?\b(?:is|are|'s)\s+"
    r"(?P<v>on|off|active|inactive|enabled|disabled|cancell?ed|stopped|in place)\b(?!\s+(?:the|a|an|\d|"
    r"your|our|monday|tuesday|wednesday|thursday|friday|saturday|sunday))"
    r"|\b(?:is|are|'s)\s+now\s+(?P<n>on|off|active|inactive|enabled|disabled|cancell?ed|stopped)\b"
    r"|\b(?:i've|i have|we've|we have)\s+(?:now\s+|just\s+)?(?P<d>set up|signed you up|enrolled you|turned on|"
    r"switched on|activated|cancell?ed|stopped|opted you out|turned off|switched off|deactivated)\b",
    re.I,
)
_TURNED_ON = re.compile(r"\b(?:set up|activated|turned on|switched on|enrolled|signed)\b", re.I)
_TURNED_OFF = re.compile(
    r"\b(?:cancell?ed|stopped|turned off|switched off|deactivated|removed)\b", re.I
)
_HEDGED = re.compile(r"\b(?:if|unless|by default|would|will|can|could|when)\b", re.I)
_ON = {"on", "active", "enabled", "in place", "set up", "signed you up", "enrolled you",
       "turned on", "switched on", "activated"}  # fmt: skip


def switched(sentence: str, fields: list[Profile]) -> list[tuple[Profile, Mention, str]]:
    """A yes/no field the agent reports switched on or off, named by its words."""
    found = list(_SWITCHED.finditer(sentence))
    both = _TURNED_ON.search(sentence) and _TURNED_OFF.search(sentence)
    if len(found) != 1 or _HEDGED.search(sentence) or both:
        return []  # "I've cancelled the old one and set up the new one": which is which
    match = found[0]
    word = (match.group("v") or match.group("n") or match.group("d")).lower()
    scored = sorted(((cue_score(profile, sentence), profile) for profile in fields
                     if profile.type == "boolean"), key=lambda r: -r[0][0])  # fmt: skip
    if not scored or scored[0][0][0] < 1.0 or not scored[0][0][1]:
        return []
    if len(scored) > 1 and scored[1][0][0] == scored[0][0][0]:
        return []  # two yes/no fields named as well: which one is not said
    (_, cue), profile = scored[0]
    mention = Mention("boolean", word in _ON, match.start(), match.end(), f"told '{word}'")
    return [(profile, replace(mention, sentence=sentence), f"names '{cue}'")]
