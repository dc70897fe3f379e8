"""A count of people answered by listing them, with no number: "How many people will live
there?" — "me, my wife and our two kids" (4), "Just me and my dog" (1)."""

from __future__ import annotations

import re

from core.text import sentences
from extraction.extractors.rules.acts import RELATIONS, third_party
from extraction.extractors.rules.party import alone, counts_people, party_size
from extraction.extractors.rules.reader import Claim, Context
from extraction.extractors.rules.texts import text_claim, text_source

# "We're planning Switzerland and Italy in June, me and my wife.": who goes, said after a plan
_WHO_GOES = re.compile(
    rf"\b(?:we|we're|we are|we'll|we will)\b[^.!?]*,\s+(?P<who>(?:just\s+)?(?:me|myself) and (?:my|our)\s+"
    rf"(?:\w+\s+)?(?:{RELATIONS}))\s*[.!]?\s*$",
    re.I,
)


def party_claims(ctx: Context, taken: set[str]) -> list[Claim]:
    """The asked count of people, from the people the reply lists when it says no number; or,
    unasked, a plan's party said after it ("…, me and my wife.")."""
    prompt, text = ctx.prompt, ctx.turn.text
    asked = prompt.asked[0] if prompt and prompt.asked else None
    if (
        asked is None
        or asked[0].key in taken
        or not counts_people(asked[0])
        or re.search(r"\d", text)
    ):
        return _who_goes(ctx, taken)
    size = party_size(text) or (1 if alone(text) else None)
    if size is None:
        return []
    why: dict[str, object] = {"cue": "the people the reply lists", "answers": asked[2]}
    return [text_claim(ctx, asked[0], size, text_source(ctx, text), 0, why)]


def _who_goes(ctx: Context, taken: set[str]) -> list[Claim]:
    fields = [p for p in ctx.fields if counts_people(p) and p.key not in taken]
    for sentence in sentences(ctx.turn.text) if len(fields) == 1 else []:
        said = _WHO_GOES.search(sentence)
        size = party_size(said.group("who")) if said else None
        if said and size and not third_party(sentence[: said.start("who")]):
            why: dict[str, object] = {"cue": "the people a plan lists"}
            return [text_claim(ctx, fields[0], size, text_source(ctx, sentence), 0, why, sentence)]
    return []


def recount(claims: list[Claim], text: str) -> None:
    """An answered count of people that the reply also lists ("2 — me, my wife and our two
    kids"): the people listed (4)."""
    for claim in claims:
        size = party_size(text) if counts_people(claim.profile) else None
        if size and "answers" in claim.why and size != claim.value:
            claim.value, claim.why["counted"] = size, "the people the reply lists"
