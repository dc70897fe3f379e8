"""Things memory holds a fact for that the user says no longer hold: "Actually I stopped it last
week" (it: the one the agent just asked about, or the only one held), "I've come off the
ramipril", "we're not using the storage unit any more". The fact ends (``FactCandidate.ends``):
its version is kept as history, valid until that turn, and nothing replaces it. A yes/no or
choice field says the same with a value ("I quit smoking": no), so only fields kept per thing
end this way."""

from __future__ import annotations

import re
from collections.abc import Mapping

from core.text import sentences
from extraction.extractors.rules.acts import clauses, is_question, third_party
from extraction.extractors.rules.fields import Profile
from extraction.extractors.rules.reader import Claim, Context

_ENDED = re.compile(
    r"\b(?:stopped|quit|came off|come off|gave up|given up|no longer (?:take|taking|use|using|"
    r"need|on)|not (?:taking|using|on) (?=.*\bany ?more\b))\s+(?:taking\s+|using\s+)?(?P<o>[\w' -]{1,40})",
    re.I,
)
_NOT_SO = re.compile(r"\b(?:if|would|might|should|thinking|want to|wants to|going to|will)\b", re.I)
_POINTS_BACK = re.compile(r"(?:it|that|them|those|this)\b", re.I)


def ended_things(ctx: Context, current: dict[str, str]) -> list[Claim]:
    """One claim per fact the user's turn ends (``why["ends"]``), its value the one held; the
    fact leaves ``current``."""
    out: list[Claim] = []
    asked = ctx.prompt.turn.text.lower() if ctx.prompt else ""
    about = [p for p, _, _ in ctx.prompt.asked[:1]] if ctx.prompt else []  # the field asked about
    holders = [
        p for p in ctx.fields if p.qualified and any(k.startswith(f"{p.key}:") for k in current)
    ]
    # "Are you still on the muscle relaxant?" with one field holding things: about that field
    if len(holders) == 1 and re.search(r"\bstill\b", asked):
        about.append(holders[0])
    for sentence in sentences(ctx.turn.text):
        for a, b in clauses(sentence):
            clause = sentence[a:b]
            said = _ENDED.search(clause)
            # whose and how, before the words that end it (not "…, Dr Rao said I could")
            if not said or is_question(clause) or _NOT_SO.search(clause[: said.end()]) \
                    or third_party(clause[: said.end()]):  # fmt: skip
                continue
            said_of = said.group("o").lower()
            for profile in ctx.fields:
                thing = _which(profile, said_of, asked, profile in about, current)
                key = f"{profile.key}:{thing}"
                if thing and key in current:
                    why = {"cue": f"'{said.group(0).strip()}'", "ends": True}
                    out.append(Claim(profile, current.pop(key), "explicit", [ctx.turn],
                                     (ctx.index, a), why, qualifier=thing, clause=clause))  # fmt: skip
    return out


def _which(profile: Profile, said_of: str, asked: str, about: bool,
           current: Mapping[str, str]) -> str | None:  # fmt: skip
    """The thing of ``profile`` memory holds that the words point at: named ("the ramipril"), or
    "it" for the one the agent's question named, or the only one held when the question was
    about the field ("Are you still on the muscle relaxant?" with one medicine held)."""
    if not profile.qualified:
        return None
    held = [k.partition(":")[2] for k in current if k.partition(":")[0] == profile.key]
    named = [t for t in held if re.search(rf"\b{re.escape(t.lower())}\b", said_of)]
    if named:
        return named[0]
    if not _POINTS_BACK.match(said_of):
        return None
    in_question = [t for t in held if re.search(rf"\b{re.escape(t.lower())}\b", asked)]
    if len(in_question) == 1:
        return in_question[0]
    return held[0] if len(held) == 1 and about else None
