"""Claims of yes/no fields in a user turn: a yes or a no to the agent's question (or its "this
or that?"), one of the kind asked about ("Any pets?" — "just a cat"), and a sentence that names
the field unasked ("I stopped smoking")."""

from __future__ import annotations

import re

from core.text import sentences
from extraction.extractors.rules.acts import (
    DEFERS,
    accepts,
    denies,
    is_question,
    small_talk,
    third_party,
)
from extraction.extractors.rules.fields import Profile, content_words, cue_score
from extraction.extractors.rules.prompts import OFFER
from extraction.extractors.rules.reader import Claim, Context
from extraction.extractors.rules.texts import text_claim, text_source

NEGATIVE = re.compile(
    r"\b(no|not|don't|doesn't|didn't|won't|never|without|none|nobody|stopped|quit|gave up|"
    r"cancel(?:led)?|off|disabled?|turned off|isn't|aren't|wasn't|haven't|hasn't|nope|nah|"
    r"never ?mind|forget (?:about )?(?:the|that|my|all)|scratch (?:the|that)|drop the)\b",
    re.I,
)  # "forget the porting thing, I'm staying": taken back
# The answer that something no longer holds ("I stopped", "gave it up", "not any more").
CEASED = re.compile(
    r"\b(?:stopped|quit|gave (?:it |them |that )?up|given (?:it |them |that )?up|no longer|"
    r"not any ?more|don't \w+ any ?more|cancell?ed it|got rid of|not since)\b",
    re.I,
)
_NONE = re.compile(
    r"\W*(?:nothing|none|nope|nah|not really|not that i know)\b(?!\s+(?:serious|major|much|big|"
    r"bad|but|except|apart|else|other|besides))",
    re.I,
)
# "any other drivers", "any children under five": none of some, not a count of nought
_SOME_OF = re.compile(
    r"\b(?:any|anyone|anybody|anything) ?(?:other|else|more|additional|further|extra)\b|"
    r"\b(?:under|over|aged|older than|younger than|living with you|at home)\b",
    re.I,
)
_UNSURE = re.compile(r"\b(?:don't know|do not know|dunno|no idea|not sure)\b", re.I)
_ZERO = re.compile(
    r"\W*(?:no|nope|nah)?\W*(?:zero|not (?:a )?(?:one|single one|any)|no,? none)\b", re.I
)
# A reply that thinks aloud names no thing: "hmm let me think", "good question".
_FILLER = re.compile(
    r"\b(?:let me|think|sure|question|depends|hard to say|know|remember|maybe|possibly|hmm+|um+|"
    r"er+|why|what)\b",
    re.I,
)
_ANY = re.compile(
    r"\b(?:any|anything)\s+\w+[^?]*\?\s*$", re.I
)  # "Any injuries I should know about?"
# A short phrase without an auxiliary or a subject: "dodgy left knee from football".
_A_THING = re.compile(
    r"\W*(?:(?:a|an|my|the|just|only|one|two|some|bit of a|slight|mild)\s+)*[a-z][a-z'-]*"
    r"(?:\s+(?!(?:is|are|was|were|do|does|did|have|has|had|will|would|can|could|i|we|you|it)\b)"
    r"[a-z0-9'-]+){0,5}\W*",
    re.I,
)
_AHEAD = re.compile(r"\b(?:i'll|we'll|will|going to|gonna|hopefully|hoping|soon|"
                    r"next (?:week|month|year))\b", re.I)  # fmt: skip
# How often, as the whole of a reply's first words: "socially", "a couple a week", "most days".
_HOW_OFTEN = re.compile(
    r"\W*(?:(?:only|just|maybe|probably|about|around|like|um|oh|well)\W+)*(?:socially|occasionally|"
    r"sometimes|now and then|every now and then|once in a while|at weekends|on weekends|daily|"
    r"every (?:day|morning|evening|night|week|weekend)|most days|(?:once|twice|once or twice|"
    r"(?:a|one|two|three|four|five|\d+|a few|a couple)\s+(?:\w+\s+)?)\s*"
    r"(?:a|per|each|every)\s+(?:day|week|month|night|year))\b",
    re.I,
)
BOOLEAN_WORDS = 0.9  # cue points a sentence needs to speak of a yes/no field unasked
NEGATION = re.compile(r"\b(?:no|not|never|none|nothing)\b|n't\b", re.I)


def _alternative(profile: Profile, question: str, reply: str) -> bool | None:
    """Which side of "X or Y?" the reply takes, as the yes/no of a field that names one side:
    True for the side the field's words are on, False for the other."""
    asked = [s for s in sentences(question) if s.rstrip().endswith("?")]
    parts = re.split(
        r",?\s+or\s+", (asked[-1] if asked else "").rstrip(" ?"), maxsplit=1, flags=re.I
    )
    if len(parts) != 2:
        return None
    sides = [set(content_words(parts[0].split(",")[-1])), set(content_words(parts[1]))]
    said = set(content_words(reply))
    picked = [i for i, side in enumerate(sides) if side & said - sides[1 - i]]
    weight = [
        max((profile.words.get(w, 0.0) for w in side - sides[1 - i]), default=0.0)
        for i, side in enumerate(sides)
    ]
    if len(picked) != 1 or weight[0] == weight[1]:
        return None
    return picked[0] == (0 if weight[0] > weight[1] else 1)  # the side the field is named by


_MINE = re.compile(r"\b(?:i|i'm|i've|i'd|we|we're|we've|my|our|me)\b", re.I)
_HAVING = re.compile(r"^has\b|^owns?\b|\bwhether\b.*\b(?:has|have|keeps?|owns?)\b", re.I)


def _one_of_mine(profile: Profile, sentence: str, named: set[str]) -> bool:
    """ "Just me and my dog, Biscuit.", "We've got a cat" for whether the applicant keeps pets:
    one of the kind the field is about, said as the user's own (no one else named before it)."""
    if not _HAVING.search(f"{profile.key} {profile.about}"):
        return False
    owned = (
        r"\b(?:my|our)\s+(?:\w+\s+)?|\b(?:i|we)(?:'ve| have)\s+(?:got\s+)?(?:a|an|two|three|\d+)\s+"
    )
    found = [re.search(rf"(?:{owned}){w}\w*\b", sentence, re.I) for w in named]
    return any(m and not third_party(sentence[: m.start()]) for m in found)


def boolean_claims(ctx: Context, taken: set[str]) -> list[Claim]:
    prompt = ctx.prompt
    text = ctx.turn.text
    out: list[Claim] = []
    asked = prompt.asked[0][0] if prompt and prompt.asked else None
    if prompt and prompt.kind == "yn":  # "Any pet insurance?": the yes/no field it names
        asked = next((p for p, _, _ in prompt.asked if p.type == "boolean"), asked)
    if asked is not None and asked.type == "boolean" and prompt and prompt.kind in ("yn", "alt"):
        if prompt.kind == "alt":  # "Do you own the home or rent?" — "We own."
            value = _alternative(asked, prompt.turn.text, text)
            if value is None and denies(text) and not accepts(text) and not _UNSURE.search(text):
                value = False  # "A driveway or a garage?" — "No, we've just got the road."
        else:
            value = True if accepts(text) and not denies(text) else False if denies(text) else None
            value = None if DEFERS.search(text) and not accepts(text) else value  # "let me think"
            first = text.split(",")[0]  # "Any pets?" — "just a cat": one of the kind asked about
            if (
                value is None
                and set(content_words(first)) & set(asked.words)
                and not NEGATION.search(first)
            ):
                value = True
            if value is None and _HOW_OFTEN.match(text) and not NEGATION.search(first):
                value = True  # "Do you smoke?" — "Socially. Maybe two a week.": how often is a yes
            if value is None and _NONE.match(text):
                value = False  # "Any injuries?" — "Nothing at the moment, touch wood"
            elif (value is None and _ANY.search(prompt.turn.text) and _A_THING.fullmatch(first)
                  and not NEGATION.search(first) and not third_party(first)
                  and not _FILLER.search(first)):  # fmt: skip
                value = True  # "Any injuries?" — "Dodgy left knee from football": one named
            if CEASED.search(text) and not third_party(text):
                value = False  # "Do you smoke?" — "I stopped completely ten days ago."
            elif value and CEASED.search(prompt.turn.text):
                value = False  # "Have you quit smoking?" — "Yes."
        if value is not None:
            offered = bool(OFFER.search(prompt.turn.text))
            source = "confirmed" if value and offered else text_source(ctx, text)
            out.append(
                text_claim(
                    ctx,
                    asked,
                    value,
                    source,
                    0,
                    {"cue": "yes" if value else "no", "answers": prompt.asked[0][2]},
                )
            )
            taken.add(asked.key)
    if asked is not None and asked.type == "number" and asked.key not in taken and prompt:
        # "Do you have any dependants?" / "How many?" — "Nope, none.": a count of nought
        first = sentences(text)[0] if text.strip() else ""
        if (re.search(r"\bany\b|\bhow many\b", prompt.turn.text, re.I) and not re.search(r"\d", first)
                and not _SOME_OF.search(prompt.turn.text)
                and (_NONE.match(first) or _ZERO.match(first)) and not third_party(first)):  # fmt: skip
            why: dict[str, object] = {"cue": "none", "answers": prompt.asked[0][2]}
            out.append(text_claim(ctx, asked, 0, text_source(ctx, text), 0, why))
            taken.add(asked.key)
    for profile in ctx.fields:
        if profile.type != "boolean" or profile.key in taken:
            continue
        said = [
            s
            for s in sentences(text)
            if not is_question(s) and not small_talk(s) and len(s.split()) > 2
        ]
        scored = sorted(((cue_score(profile, s), s) for s in said), key=lambda r: -r[0][0])
        if not scored or scored[0][0][1] is None:
            continue
        named = {w for w in content_words(scored[0][1]) if profile.words.get(w, 0) > 0}
        mine = _one_of_mine(profile, scored[0][1], named)  # "my dog", for keeping pets
        if not mine and (scored[0][0][0] < BOOLEAN_WORDS or (len(named) < 2 and max(
                (profile.words.get(w, 0) for w in named), default=0) < 1.5)):  # fmt: skip
            continue  # one shared word ("car", "work") does not say which yes/no it is
        (points, word), sentence = scored[0]
        named_in = max(re.split(r"[,;:]|\s+(?:and|but|so)\s+", sentence),
                       key=lambda c: cue_score(profile, c)[0])  # fmt: skip
        theirs = third_party(sentence) and (third_party(named_in) or not _MINE.search(named_in))
        if (theirs and not profile.qualified) or _AHEAD.search(named_in):  # not "My sister has
            # two dogs but …", unless the clause that names it is the user's ("… I don't have any")
            continue  # someone else's; "I'll have the pre-approval next week hopefully"
        value = not NEGATIVE.search(sentence)
        why = {"cue": f"names '{word}'", "points": round(points, 2)}
        out.append(
            text_claim(
                ctx, profile, value, text_source(ctx, sentence), text.find(sentence), why, sentence
            )
        )
        taken.add(profile.key)
    return out
