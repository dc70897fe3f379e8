"""References to a thing said before, for fields with one fact per thing: "do the same for
the other account", "the same for Myra", "for her too" copy the field's last value to the thing
pointed at (qualify.py reads which thing a value is about)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from extraction.extractors.rules.reader import Claim, Context

if TYPE_CHECKING:
    from extraction.extractors.rules.qualify import Qualifiers

PRONOUN = re.compile(
    r"\b(he|she|him|her|his|hers|it|its|that one|this one|the same one|they|them)\b", re.I
)
OTHER = re.compile(r"\b(the other|other one|the second|the remaining)\b", re.I)
# "do the same for the other account", "same for Myra", "for her too", "Myra as well"
SAME = re.compile(
    r"(?i:\bsame(?: \w+)?(?: for| with| on| goes for| applies to)\b|\bfor (?:\w+ ){0,2}\w+ (?:too|as well)\b)"
    r"|\b(?!(?:You|Me|Us|Him|Her|Them|Same|Thanks|Thank)\b)[A-Z]\w+ (?i:too|as well)\b"  # "Myra too", not "You too"
)


def same_for(q: Qualifiers, ctx: Context, claims: list[Claim]) -> list[Claim]:
    """ "Do the same for the other account" / "the same for Myra": the field's last value, for
    the qualifier pointed at."""
    text = ctx.turn.text
    same = SAME.search(text)
    if same is None or ctx.turn.role != "user":
        return []
    out = []
    latest = {c.profile.key: c for c in claims if c.qualifier}
    recent = max(q.last.values(), key=lambda c: c.order, default=None)
    pool = latest or ({recent.profile.key: recent} if recent else {})  # the field just spoken of
    for key, last in pool.items():
        target: str | None = q.other(last.profile) if OTHER.search(text) else None
        pointed = q.named(last.profile, text[same.end() : same.end() + 40], False)
        kept = re.match(r"same(?: \w+)? (?:on|with)\b", same.group(0), re.I)  # not "for"
        named: str | None
        if kept and pointed:
            if pointed == last.qualifier:  # "Same on the metformin. The lisinopril, …"
                continue  # the metformin's value, said again
            named = pointed
        else:
            named = q.named(last.profile, text[last.span[1] :] if key in latest else text, False)
        if named and named != last.qualifier:
            target = named
        elif PRONOUN.search(text) and not target:
            people = last.profile.qualifier_kind == "name"
            target = next((w for w in reversed(q.heard) if w != last.qualifier and
                           ((people and w in q.names) or w in q.vocab[key])), None)  # fmt: skip
        if (
            not target
            or target == last.qualifier
            or any(c.key == f"{key}:{target}" for c in claims)
        ):
            continue
        why = {"cue": "the same as " + last.key, "reference": True}
        out.append(
            Claim(
                last.profile,
                last.value,
                "explicit",
                [ctx.turn],
                (ctx.index, len(text)),
                why,
                qualifier=target,
            )
        )
    return out
