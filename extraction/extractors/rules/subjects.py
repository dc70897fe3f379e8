"""Things named as what a value is about ("the lamp is out for delivery", "metformin 500 mg"):
learnt as the qualifiers of a field kept per thing by a word."""

from __future__ import annotations

import re

from extraction.extractors.rules.fields import GENERIC, Profile, stem
from extraction.extractors.rules.strings import is_ordinary

_SUBJECT = re.compile(
    r"\b(?:the|my|our|your)\s+(?P<q>[a-z][a-z-]+(?:\s+[a-z][a-z-]+)?)\s*(?:'s|is|are|was|were|has|have|"
    r"'re|needs?|got|came|arrived|shows?|does|weighs|maybe|about|around|roughly)\b"
    r"|\b(?P<d>[a-z]{4,}(?:\s+[a-z]\b)?)\s+(?=\d)"
    # one of a list of things, each with its value: "front's tiny, maybe 15 m2. back is about 60"
    r"|(?:^|[,.;]\s*|\band\s+)(?P<b>[a-z][a-z-]+)(?:'s|\s+is|\s+does|\s+weighs)\s"
)
NOT_THINGS = {"everything", "nothing", "something", "anything", "total", "price", "cost", "which",
               "she", "he", "it", "they", "we", "you", "i", "that", "this", "there", "what", "who",
               "still", "just", "now", "also", "then", "again", "about", "around", "roughly", "maybe"}  # fmt: skip
KIND_WORDS = set(["my", "our", "the", "a", "an", "other", "same", "this", "that", "one", "both", "either", "each", "its", "his", "her", "their", "own", "only", "new", "old", "main", "second", "first"])  # fmt: skip


def subjects(profile: Profile, stretch: str) -> list[tuple[int, str]]:
    """(where, the thing) for each thing ``stretch`` names as the subject of a value."""
    out = []
    for match in _SUBJECT.finditer(stretch.lower()):
        group = next(g for g in "qdb" if match.group(g))
        words = [w for w in match.group(group).split() if w not in KIND_WORDS | NOT_THINGS]
        last = words[-1] if words else ""
        if (
            last
            and stem(last) not in profile.words
            and last not in GENERIC
            and not is_ordinary(last.capitalize())
            and not re.search(r"(ed|ing|ly)$", last)
        ):
            out.append((match.start(group), " ".join(words)))
    return out
