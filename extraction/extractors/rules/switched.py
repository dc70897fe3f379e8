"""Yes/no fields the agent reports switched on or off: "Done, auto-refill is on", "I've set up
the direct debit", "paperless billing is now active"."""

from __future__ import annotations

import re
from dataclasses import replace

from extraction.extractors.rules.fields import Profile, cue_score
from extraction.extractors.rules.mentions import Mention

# "auto-refill is off", "I've set up the direct debit", "paperless billing is now active"
_SWITCHED = re.compile(
    r"\b(?:is|are|'s|now|been)\s+(?:now\s+)?(?P<v>on|off|active|inactive|enabled|disabled|"
    r"cancell?ed|stopped|in place)\b|\b(?P<d>set up|signed you up|enrolled you|turned on|"
    r"switched on|activated|cancell?ed|stopped|removed|opted you out|turned off|switched off|"
    r"deactivated)\b",
    re.I,
)
_ON = {"on", "active", "enabled", "in place", "set up", "signed you up", "enrolled you",
       "turned on", "switched on", "activated"}  # fmt: skip


def switched(sentence: str, fields: list[Profile]) -> list[tuple[Profile, Mention, str]]:
    """A yes/no field the agent reports switched on or off, named by its words."""
    match = _SWITCHED.search(sentence)
    if not match:
        return []
    word = (match.group("v") or match.group("d")).lower()
    out = []
    for profile in fields:
        points, cue = cue_score(profile, sentence)
        if profile.type == "boolean" and points >= 1.0 and cue:
            mention = Mention("boolean", word in _ON, match.start(), match.end(), f"told '{word}'")
            out.append((profile, replace(mention, sentence=sentence), f"names '{cue}'"))
    return out[:1]
