"""An answer to the agent's question about a choice field, said in words no choice has: "It's my
knee, the GP reckons it's the cartilage. So bones and joints, I suppose?" for *orthopaedics*,
"my skin has come up in a rash" for *dermatology*. The answer and each choice are compared with
the bundled embedder; the closest choice is taken when it is close enough and clearly closer
than the next. An answer that says a word of any choice is left to the readers of words (a
choice named, even to put it off, "the panels can wait", is theirs to judge), and so is one
that asks back ("What do you recommend?"), agrees ("Yes, all correct.") or turns the question
down."""

from __future__ import annotations

import functools
import re

import numpy as np

from core.text import sentences
from extraction.extractors.rules.acts import accepts, denies, is_question
from extraction.extractors.rules.fields import stem
from extraction.extractors.rules.reader import Claim, Context, source_of
from memory.embedding import embed

NEAR = 0.3  # cosine of the answer and the choice, at least
MARGIN = 0.1  # ahead of the next choice by at least this
_LONGEST = 25  # words: a longer turn tells more than an answer


@functools.lru_cache(maxsize=256)
def _vectors(choices: tuple[str, ...]) -> np.ndarray:
    return embed(list(choices))


def meant_choice(ctx: Context, claims: list[Claim]) -> list[Claim]:
    """The choice the user's answer means, when the agent asked about the choice field."""
    prompt, text = ctx.prompt, ctx.turn.text.strip()
    if prompt is None or not prompt.asked or not text:
        return []
    asked = next(((p, cue) for p, _, cue in prompt.asked if p.type == "enum"), None)
    if asked is None:  # the choice field the question names (not always first: "Which
        return []  # department is the appointment for?" names the appointment's date first)
    profile, cue = asked
    choices = tuple(str(c) for c in profile.field.get("choices") or [])
    if profile.qualified or len(choices) < 2:
        return []
    if any(c.profile is profile for c in claims) or len(text.split()) > _LONGEST:
        return []
    said = {stem(w) for w in re.findall(r"[a-z]+", text.lower())}
    named = {stem(w) for c in choices for w in re.findall(r"[a-z]+", c.lower()) if len(w) > 2}
    if said & named or denies(text) or accepts(text) or is_question(sentences(text)[0]):
        return []  # not "What do you recommend?", "Yes, all correct." (the proposals' to judge)
    sims = _vectors(choices) @ embed([text])[0]
    best, second = np.argsort(-sims)[:2]
    if sims[best] < NEAR or sims[best] - sims[second] < MARGIN:
        return []
    choice = choices[int(best)]
    why = {"cue": f"closest choice by meaning ({sims[best]:.2f}; next {sims[second]:.2f})",
           "answers": cue}  # fmt: skip
    source = source_of(ctx, profile, choice, text)
    return [
        Claim(profile, choice, source, [prompt.turn, ctx.turn], (ctx.index, 0), why, clause=text)
    ]
