"""A relative's name, for a field that keeps it: "my fiancé is Ewan Douglas", "my wife, Anna
Berg", "my husband's name is Raj Patel" for a field about the user's partner's or spouse's name
(its key or description names the relation and a name). Other relatives' names are not it ("my
brother is Tom Hale" for a partner's name)."""

from __future__ import annotations

import re

from extraction.extractors.rules.fields import Profile
from extraction.extractors.rules.naming import person_like
from extraction.extractors.rules.reader import Claim, Context

# Each kind of relative and the words a field or a user says it with.
_KINDS = {
    "partner": r"partner|spouse|fianc[eé]e?|wife|husband|boyfriend|girlfriend|other half",
    "mother": r"mother|mum|mom",
    "father": r"father|dad",
}
_NAMED = re.compile(r"\b(?:name|named|called|who)\b", re.I)
# "partner firm", "partner hotel": a business partner, not a person's
_BUSINESS = re.compile(
    r"\b(?:partner|father|mother)\s+(?:firm|hotel|company|agency|bank|business|supplier|vendor|"
    r"airline|store|shop|school|organi[sz]ation|network|site|programme|program|brand|institution)",
    re.I,
)
_NAME = r"(?P<name>(?-i:[A-ZÀ-Ý])[\w'\u2019-]+(?:\s+(?:(?-i:[A-ZÀ-Ý])[\w'\u2019-]+|de|van|von|da|del|al|bin|le)){0,3})"
_LINK = r"(?P<link>\s*,\s*|\s+is\s+(?:called\s+)?|'s\s+name\s+is\s+|\s+(?:named|called)\s+|\s+)"


def _kind(profile: Profile) -> str | None:
    """The relative a text field keeps the name of, if any."""
    if profile.type != "string" or profile.qualified or profile.person_name:
        return None
    if not (_NAMED.search(profile.about) or "name" in profile.key) or _BUSINESS.search(
        profile.about
    ):
        return None
    found = [k for k, words in _KINDS.items() if re.search(rf"\b(?:{words})\b", profile.about)]
    return found[0] if len(found) == 1 else None


def kin_claims(ctx: Context, taken: set[str]) -> list[Claim]:
    """The name the user gives their relative, for the field of that relative's name."""
    if ctx.turn.role != "user":
        return []
    out = []
    for profile in ctx.fields:
        kind = _kind(profile)
        if kind is None or profile.key in taken:
            continue
        said = re.compile(rf"\b(?:my|our)\s+(?:{_KINDS[kind]}){_LINK}{_NAME}", re.I)
        for match in said.finditer(ctx.turn.text):
            words = match.group("name").split()
            while words and not person_like(words[-1]):
                words.pop()  # "Ewan Douglas And" → "Ewan Douglas"
            if not words or not person_like(words[0]) or not match.group("name")[0].isupper():
                continue
            if any(w.endswith(("'s", "\u2019s")) for w in words) or (
                re.fullmatch(r"\s+is\s+", match.group("link")) and len(words) < 2
            ):
                continue  # "my partner is Italian", "my father is Google's lawyer": no name
            at = match.start("name")
            out.append(Claim(profile, " ".join(words), "explicit", [ctx.turn], (ctx.index, at),
                             {"cue": f"the user's {kind}, named"}, span=(at, at)))  # fmt: skip
            break
    return out
