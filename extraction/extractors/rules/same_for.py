"""References to a thing said before, for fields with one fact per thing: "do the same for
the other account", "the same for Myra", "for her too" copy the field's last value to the thing
pointed at, and "Same as Pip." to "And Mabel, what does she weigh?" copies Pip's value to Mabel
(qualify.py reads which thing a value is about)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from extraction.extractors.rules.fields import GENERIC, Profile, stem
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


_A_DAY = re.compile(r"\bsame (?:day|date|time|slot|week|weekend|morning|afternoon|evening)\b", re.I)


def same_for(q: Qualifiers, ctx: Context, claims: list[Claim]) -> list[Claim]:
    """ "Do the same for the other account" / "the same for Myra": the field's last value, for
    the qualifier pointed at."""
    text = ctx.turn.text
    same = SAME.search(text)
    if same is None or ctx.turn.role != "user":
        return same_as(q, ctx, claims) if ctx.turn.role == "user" else []
    out = []
    latest = {c.profile.key: c for c in claims if c.qualifier}
    recent = max(q.last.values(), key=lambda c: c.order, default=None)
    pool = latest or ({recent.profile.key: recent} if recent else {})  # the field just spoken of
    if _A_DAY.search(same.group(0)):  # "Same day for her too": a date's, not an allergy's
        pool = {k: c for k, c in pool.items() if c.profile.type == "date"}
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


# "Same as Pip", "same again as the front": the value held for the thing named after it
SAME_AS = re.compile(r"\bsame(?:\s+again)?\s+as\s+(?:for\s+|with\s+)?", re.I)
# the thing an agent's question is about: "… for economics?", "And Mabel, what does she weigh?"
_ASKED = re.compile(
    r"\bfor\s+(?:the\s+)?(?P<f>\w+(?:\s\w+)?)\s*\?"
    r"|^\W*(?:and|what about|how about)\s+(?:the\s+)?(?P<a>\w+(?:\s\w+)?)\s*[,?]",
    re.I,
)


def same_as(q: Qualifiers, ctx: Context, claims: list[Claim]) -> list[Claim]:
    """ "And Mabel, what does she weigh?" — "Same as Pip.": Pip's value, for Mabel."""
    text = ctx.turn.text
    same = SAME_AS.search(text)
    if same is None:
        return []
    out = []
    for key, profile in q.fields.items():
        source = q.named(profile, text[same.end() : same.end() + 40], False)
        held = _held(profile, source, ctx, [*q.last.values(), *claims]) if source else None
        if held is None or any(c.profile is profile for c in claims):
            continue
        target = q.named(profile, text[: same.start()], True)
        question = ctx.prompt.turn.text if ctx.prompt else ""
        asked = _ASKED.search(question) if question and not target else None
        if asked:  # the thing the question names (a name first), learnt as one of the field's
            names = [n for n in q.names if re.search(rf"\b{re.escape(n)}\b", question)]
            target = (
                q.named(profile, question, True)
                or next(iter(names), None)
                or asked.group("f")
                or asked.group("a")
            )
            target = target.lower() if profile.qualifier_kind == "word" else target
        if (
            not source
            or not target
            or target.lower() in (source.lower(), *GENERIC)
            or stem(target.lower()) in profile.words
        ):
            continue  # "And what will Jack have for lunch?": Jack, not lunch
        turns = [ctx.prompt.turn, ctx.turn] if asked and ctx.prompt else [ctx.turn]
        why = {"cue": f"the same as {key}:{source}", "reference": True}
        out.append(
            Claim(
                profile, held, "explicit", turns, (ctx.index, same.start()), why, qualifier=target
            )
        )
    return out


def _held(profile: Profile, thing: str, ctx: Context, claims: list[Claim]) -> Any:
    """The value held for ``thing`` of the field: said in this window, or memory's, typed."""
    said = [
        c.value
        for c in claims
        if c.profile is profile and (c.qualifier or "").lower() == thing.lower()
    ]
    if said:
        return said[-1]
    text = next(
        (v for k, v in ctx.current.items() if k.lower() == f"{profile.key}:{thing}".lower()), None
    )
    if text is None or profile.type == "money":  # memory's money is text ("£15"); not re-read here
        return None
    if profile.type == "number":
        try:
            number = float(text.replace(",", ""))
        except ValueError:
            return None
        return int(number) if number.is_integer() else number
    if profile.type == "enum":
        return next(
            (c for c in profile.field.get("choices") or [] if c.lower() == text.lower()), None
        )
    if profile.type == "boolean":
        return text.lower() in ("true", "yes")
    return text
