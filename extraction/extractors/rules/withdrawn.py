"""A request called off in the next breath: "I'd like to freeze my membership." — "Sure, I can do
that." — "Actually forget it, I'll keep coming." What the user asked for or accepted in the
exchange before is withdrawn, and memory keeps what it held; what the user simply told ("my
postcode is LS1 4AB") stands."""

from __future__ import annotations

import re

from extraction.extractors.rules.reader import Claim

# The whole turn opens by calling it off ("never mind", "forget it", "scratch that").
NEVER_MIND = re.compile(
    r"^\W*(?:(?:oh|ah|um+|actually|wait|sorry|hmm+|no|ok|okay)\W+)*(?:never ?mind|forget (?:it|that|"
    r"about it|the\b)|scratch that|cancel that|don't bother|leave it)\b",
    re.I,
)
_ASKED_FOR = re.compile(
    r"\b(?:i'd like|i would like|we'd like|can (?:we|i|you)|could (?:we|i|you)|please|i want|"
    r"we want|let's|shall we)\b",
    re.I,
)


def withdrawn(claims: list[Claim], since: int, current: dict[str, str],
              before: dict[str, str]) -> list[Claim]:  # fmt: skip
    """``claims`` without the requests among those made since ``since`` (asked for, accepted
    or taken up); ``current`` goes back to ``before`` for their facts."""
    out = claims[:since]
    for claim in claims[since:]:
        asked = (
            claim.source == "confirmed"
            or claim.why.get("offered by the user")
            or bool(_ASKED_FOR.search(claim.clause or claim.turns[0].text))
        )
        if not asked:
            out.append(claim)
        elif claim.key in before:
            current[claim.key] = before[claim.key]
        else:
            current.pop(claim.key, None)
    return out
