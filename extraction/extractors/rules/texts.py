"""Claims of text fields in a user turn: names, answers, values after the words an example or
the field's description lead with, the new side of a change, values of a shape of their own
(yes/no fields: booleans.py)."""

from __future__ import annotations

import re

from core.text import sentences
from extraction.extractors.rules.acts import (
    CORRECTION,
    RELATIONS,
    STATEMENT,
    accepts,
    clauses,
    denies,
    hedged,
    is_question,
    small_talk,
    takes_back,
    third_party,
)
from extraction.extractors.rules.addresses import own_address
from extraction.extractors.rules.code_fields import code_in_reply
from extraction.extractors.rules.fields import WH_ONLY, Profile, cue_score
from extraction.extractors.rules.naming import person_name
from extraction.extractors.rules.persons import a_part_of_the_name, name_part
from extraction.extractors.rules.reader import Claim, Context, Dropped, source_of
from extraction.extractors.rules.strings import (
    after_cues,
    answer_phrase,
    proper_nouns,
    replaced,
    their_occasion,
)
from extraction.values import EMAIL, PHONE, is_phone, said_as_phone


def text_claim(ctx: Context, profile: Profile, value: object, source: str, at: int,
           why: dict[str, object], clause: str = "") -> Claim:  # fmt: skip
    turns = [ctx.turn]
    if ctx.prompt is not None and (source == "confirmed" or "answers" in why):
        turns = [ctx.prompt.turn, ctx.turn]  # the question and its answer
    return Claim(profile, value, source, turns, (ctx.index, at), why, clause=clause, span=(at, at))


_HOLDER = re.compile(r"\b(?:owner|holder|account|policy)\b", re.I)
_FOR_SOMEONE = re.compile(
    rf"\b(?:calling|ringing|phoning|writing) (?:for|on behalf of) (?:my|our) "
    rf"(?:\w+ )?(?:{RELATIONS})\b|\bon (?:my|our) (?:{RELATIONS})'s behalf\b|"
    r"\b(?:account|policy|booking)(?:'s| is) in (?:her|his|their) name\b",
    re.I,
)


def name_claims(ctx: Context) -> list[Claim]:
    asked = {p.key for p, _, _ in ctx.prompt.asked} if ctx.prompt else set()
    out = []
    if _FOR_SOMEONE.search(ctx.turn.text):  # "I'm Philip, calling for my mum, it's her account"
        return []
    agent = ctx.turn.listener.split()[0].lower() if ctx.turn.listener.split() else ""
    opening = ctx.prompt is not None and ctx.prompt.turn.seq == 1  # "…, Jana speaking."
    for profile in (p for p in ctx.fields if p.person_name):
        found = person_name(ctx.turn.text, asked=profile.key in asked, agent=agent, opening=opening,
                            reply=ctx.reply.text if ctx.reply else "",
                            holder=bool(_HOLDER.search(profile.about)))  # fmt: skip
        part = name_part(profile.about, found[0]) if found else None  # "Tom. Surname Okafor."
        if found and part and found[0].split()[0].lower() != agent:
            out.append(text_claim(ctx, profile, part, "explicit", 0, {"cue": found[1]}))
            if not a_part_of_the_name(profile.about):  # else the first name, then the last
                break
    return out


# A field that holds someone other than the user: "My sister, Hannah Clarke" answers it.
_SOMEONE_ELSE = re.compile(
    r"\b(?:contact|next of kin|guardian|guarantor|referee|reference|emergency|spouse|partner|nominee|"
    r"beneficiary|carer|caregiver|person to call|who to call)\b",
    re.I,
)
# A field of what someone avoids ("what they avoid (vegetarian, no pork, etc.)", allergies)
_AVOIDS = re.compile(r"\bavoid|\bdon't|\bdo not|\ballerg|\bno [a-z]+\b|\bintoleran", re.I)
_NOT_A_NO = r"thanks|thank|problem|worries|idea|way|chance|need|rush|clue"  # "No clue": no value
_AVOIDED = re.compile(
    r"^\W*(?:no|(?:i|we)\s+(?:don't|do not|can't|cannot)\s+(?:eat|have|drink|take))\s+"
    rf"(?!{_NOT_A_NO}|i\b|we\b|not\b)(?P<what>[a-z][a-z -]{{1,30}}?)"
    r"(?:\s+please)?\s*(?:[.,;!]|$)",
    re.I,
)
_NO_THANKS = re.compile(
    rf"^\W*no\b[,.!]?\s+(?:{_NOT_A_NO}|i|we|it's|that's|all|nothing|not|hurry|pressure)\b", re.I)  # fmt: skip
_FIX = re.compile(r"^\W*(?:no|sorry|actually|i mean|no wait|wait)\W+(?=\w)", re.I)  # "No, Thursday."  # fmt: skip
_A_PERSON = re.compile(r"\b(?:name|person|who|whom)\b", re.I)
# Another value put in place of the one offered: "I'd prefer Asakusa", "rather Porto"
_PREFERS = re.compile(
    r"^\W*(?:no,?\s+)?(?:(?:i|we)(?:'d| would)\s+(?:prefer|rather(?: have)?)|rather)\s+"
    r"(?:(?:the|to stay (?:at|in)|to go (?:with|to)|somewhere in|to see)\s+)?(?=(?-i:[A-Z]))", re.I
)  # fmt: skip  # the one preferred, named right after: not "if you asked Mark first"


def answer_claims(
    ctx: Context, taken: set[str], current: dict[str, str], typed_first: bool = False
) -> list[Claim]:
    """The reply to a question about a text field, read as its answer. A question that names
    the field's current value ("How is the back?") asks how it is, not what it is."""
    prompt = ctx.prompt
    if prompt is None or not prompt.asked or prompt.kind == "":
        return []
    profile, _, cue = prompt.asked[0]
    text = ctx.turn.text.strip()
    # "Your ID and name?" — "Neha Joshi, E20731"; "Any meal preference?" — "Vegetarian." (no seat)
    named = profile.person_name and profile.key in taken
    if named or (profile.type == "enum" and profile.key not in taken):
        profile, _, cue = next((a for a in prompt.asked[1:] if a[0].type == "string"
                                and (named or a[1] >= 1.5)), prompt.asked[0])  # fmt: skip
        if named:  # the name said first
            text = re.sub(r"^\W*[A-Z][a-z'-]+(?:\s+[A-Z][a-z'-]+)+\s*[,.;:]\s*", "", text)
    if profile.type != "string" or profile.person_name or profile.qualified or profile.key in taken:
        return []  # one fact per thing: read clause by clause, with the thing (qualify.py)
    question = prompt.turn.text.lower()
    if any(
        k.partition(":")[0] == profile.key and (_shares_value(v, question) or cue == WH_ONLY)
        for k, v in current.items()
    ):
        return []  # nor does a question naming no field replace a held value by its wh-word
    if code := code_in_reply(profile, text):  # "Lisa Chen, E31905." for a staff ID
        return [text_claim(ctx, profile, code, text_source(ctx, text), 0, {"cue": "a code in the reply", "answers": cue})]  # fmt: skip
    said = sentences(text)
    filler = bool(said) and bool(_FILLER.fullmatch(said[0]))  # "Certainly. It is HH-2209."
    if len(said) > 1 and (denies(said[0]) or small_talk(said[0]) or filler):
        text = " ".join(said[1:])  # "DLF is too pricey. M3M or Godrej, whichever."
    elif len(said) > 1 and (fix := next((s for s in said[1:] if _FIX.match(s)), None)):
        text = _FIX.sub("", fix, count=1)  # "Tuesday. No, Thursday. Tuesday he has swimming."
    elif (prefers := _PREFERS.search(text)) and proper_nouns(text[prefers.end() :]):
        text = text[prefers.end() :]  # "Shinjuku?" — "I'd prefer Asakusa, it's quieter."
    elif _NO_THANKS.match(text) or (
        denies(text) and not re.match(r"^\W*no\b[,.!]?\s+\w+", text, re.I)
    ):  # "No thanks, all good", "No, I eat everything": no value
        return []
    if small_talk(text) or (accepts(text) and not _content(text)):
        return []  # a bare yes confirms what the agent proposed, if anything
    if _echoes(text, question):
        return []  # "Same PO?" — "same po yes": what is stored stands
    if prompt.kind == "yn":
        cues = _last_if_corrected(after_cues(profile, text), text, profile)
        # "My neighbour bought a villa in …" is no answer ("Her school is …" is)
        owner = third_party(text[: cues[0][2]]) if cues else None
        if cues and (owner is None or not re.search(rf"\b(?:{RELATIONS})\b", owner.group(0), re.I)):
            why: dict[str, object] = {"cue": cues[0][1], "answers": cue}
            return [text_claim(ctx, profile, cues[0][0], text_source(ctx, text), 0, why)]
        if cues:
            return []
        rest = re.sub(r"^\W*(yes|yeah|yep|sure)\b[,.!\s]*", "", text, flags=re.I)
        if not rest or (accepts(rest) and len(rest.split()) <= 3):
            return []
        if re.match(r"[^.!?]{0,20}[.!]\s", text) and rest != text \
                and cue_score(profile, rest)[0] == 0:  # fmt: skip
            return []  # "Delivery before 8? — yep. put it against PO 55812": yes, then news
        text = rest
    said = sentences(text)
    fixed = [i for i, sentence in enumerate(said) if CORRECTION.search(sentence)]
    mended = _corrected(text)  # "unit 4 grange business park. no sorry, unit 6. 4 was the last job"
    if mended:
        text = mended
    elif fixed and fixed[-1] + 1 < len(
        said
    ):  # "Latex. Oh wait, sorry, not latex … Mine is codeine."
        text = " ".join(said[fixed[-1] + 1 :])
    first = sentences(text)[0] if sentences(text) else text
    # the first sentence even when the next starts in lower case ("at the gate. he's there 24h")
    first = re.split(r"(?<=[.!?])\s+", first.strip())[0]
    owner = third_party(first)
    # the field holds another person: an emergency contact, a guarantor (not a booking reference)
    someone = _SOMEONE_ELSE.search(profile.about) and _A_PERSON.search(profile.about)
    if (
        owner
        and not profile.qualified
        and not someone
        and not their_occasion(profile, first, owner.end())
    ):
        ctx.dropped.append(Dropped(first, "an answer about someone else", ctx.turn))
        return []
    if typed_first:
        return []  # the reply answered with a number, an amount or a date, and that is taken
    phrase = answer_phrase(profile, text)
    if phrase is None or is_question(first):
        return []
    said_first = (sentences(ctx.turn.text) or [""])[0]
    avoids = _AVOIDS.search(profile.about) or any(  # or an example says what is avoided
        str(e).lower().startswith("no ") for e in profile.field.get("examples") or []
    )
    avoided = _AVOIDED.match(said_first) if avoids else None
    if avoided:  # "Anything you don't eat?" — "no mushrooms", "I don't eat beef": what is avoided
        phrase = "no " + avoided.group("what").strip()
    if STATEMENT.match(phrase) and not profile.how:
        # "Has this influenced your goals?" — "It really motivated me for sure": the reply says
        # something about the user, in a sentence of its own; a value is a name for a thing
        # ("Run a marathon", "Kothrud"). How someone feels may be said so ("I feel great").
        ctx.dropped.append(Dropped(phrase, f"{profile.key}: a statement, not a value", ctx.turn))
        return []
    if not _A_ONE.search(phrase):  # "The oak one, I think": oak (not "just the one")
        phrase = re.sub(r"(?<=[a-z])\s+ones?$", "", phrase, flags=re.I)
    phrase = re.sub(r"(?<=\w)[\s,]+(?:yeah|yep|yes|ya|mate|innit|lol|haha)$", "", phrase, flags=re.I)  # fmt: skip
    source = source_of(ctx, profile, phrase, text)
    return [text_claim(ctx, profile, phrase, source, 0, {"cue": "short answer", "answers": cue})]


_A_ONE = re.compile(
    r"(?:^|\b(?:number|no|the|any|each|that|this|every|which|other|last|first|next))\s*ones?$", re.I
)


_FILLER = re.compile(
    r"\W*(?:certainly|sure|of course|yes|yeah|yep|ok|okay|right|absolutely|definitely|no problem|"
    r"one (?:moment|sec(?:ond)?)|let me (?:see|check|look)|hmm+|um+|uh+|well|so)\W*",
    re.I,
)


_ECHO = {"same", "yes", "yeah", "yep", "yup", "correct", "right", "still", "as", "before", "the",
         "it", "is", "that", "one", "please", "ok", "okay"}  # fmt: skip


def _echoes(reply: str, question: str) -> bool:
    """Whether the reply only says yes or "the same" in the question's own words."""
    words = re.findall(r"[a-z0-9]+", reply.lower())
    if not words or not _ECHO & set(words) - {"the", "it", "is", "that", "one", "as"}:
        return False
    return all(w in _ECHO or re.search(rf"\b{re.escape(w)}\b", question) for w in words)


_MENDS = re.compile(r"\b(?:actually|sorry|i mean|i meant|no wait|wait|correction|make that|"
                    r"scratch that|rather)\b", re.I)  # fmt: skip


def _corrected(text: str) -> str | None:
    """What a correction says after its cue ("no sorry, unit 6"), with what it mends: the word
    before the new part keeps its place in the value said first ("unit 4 grange business park"
    becomes "unit 6 grange business park")."""
    cues = [m for m in _MENDS.finditer(text) if re.search(r"\w", text[: m.start()])]
    if not cues:
        return None
    rest = re.split(r"(?<=[.!?])\s+", text[cues[-1].end() :].strip(" ,;:-"))[0].strip(" ,.;:-")
    if not re.search(r"\w", rest) or re.match(r"(?i)(?:no|not|never|for|to|about|if)\b", rest):
        return None  # "not latex", "sorry for the delay": no new value
    before = re.sub(r"(?i)[\W]*(?:no|nope|oh|um|uh)?[\W]*$", "", text[: cues[-1].start()])
    before = re.split(r"(?<=[.!?])\s+", before)[-1].strip(" .")
    words = rest.split()
    if 2 <= len(words) <= 3:
        mend = re.search(rf"(?i)\b{re.escape(words[0])}\s+([\w-]+)", before)
        if mend and mend.group(1).lower() != words[1].lower():
            return before[: mend.start()] + rest + before[mend.end() :]
    return rest


def _shares_value(value: str, question: str) -> bool:
    words = [w for w in re.findall(r"[a-z]+", value.lower()) if len(w) > 3]
    return any(re.search(rf"\b{w}\b", question) for w in words)


def _content(text: str) -> bool:
    """Whether a reply says more than yes, thanks or fine."""
    rest = re.sub(
        r"\b(yes|yeah|yep|sure|ok|okay|fine|thanks|thank you|please|great|perfect|"
        r"sounds|good|works|that|that's|is|it|right|correct|go|ahead|do|for|me|us)\b",
        "", text, flags=re.I,
    )  # fmt: skip
    return bool(re.search(r"[A-Za-z0-9]{2,}", rest))


def text_source(ctx: Context, clause: str) -> str:
    return "inferred" if hedged(clause) else "explicit"


def cue_claims(ctx: Context, taken: set[str], current: dict[str, str]) -> list[Claim]:
    """Text values stated unasked: after an example's lead-in or a word of the field, or the
    new side of a change ("Porto instead of Lisbon"). A field with one fact per thing may take
    several ("a savings account ending 4821 and a current account ending 9035")."""
    out: list[Claim] = []
    cued: dict[str, int] = {}  # a field's value found here, by its index in ``out``
    offset = 0
    for sentence in sentences(ctx.turn.text):
        at = ctx.turn.text.find(sentence, offset)
        offset = max(at, 0)
        if is_question(sentence):
            continue
        for a, b in clauses(sentence):
            clause = sentence[a:b]
            for profile in ctx.fields:
                if profile.type != "string" or profile.person_name:
                    continue
                if profile.key in taken and not (
                    profile.key in cued
                    and takes_back(ctx.turn.text[out[cued[profile.key]].span[1] : offset + a])
                ):
                    continue  # one value per field, unless a later clause takes it back
                olds = [v for k, v in current.items() if k.partition(":")[0] == profile.key]
                change = replaced(clause, olds) if olds else None
                if change:
                    why: dict[str, object] = {"cue": f"replaces '{change[1]}'"}
                    out.append(
                        text_claim(
                            ctx,
                            profile,
                            change[0],
                            source_of(ctx, profile, change[0], clause),
                            offset + a,
                            why,
                            clause,
                        )
                    )
                    taken.add(profile.key)
                    continue
                asked = ctx.prompt is not None and any(p is profile for p, _, _ in ctx.prompt.asked)
                found = after_cues(profile, clause, asked, ctx.turn.text[offset + b :])
                found = _last_if_corrected(found, clause, profile)
                owner = third_party(clause)
                if found and owner and not profile.qualified:
                    ctx.dropped.append(
                        Dropped(found[0][0], f"someone else's ('{owner.group(0)}')", ctx.turn)
                    )
                    continue
                for value, cue, where in found if profile.qualified else found[:1]:
                    claim = text_claim(ctx, profile, value, source_of(ctx, profile, value, clause),
                                   offset + a + where, {"cue": cue}, clause)  # fmt: skip
                    if profile.key in cued:  # "… in the garage, … no, better with the neighbour"
                        claim.why["corrects"] = str(out[cued[profile.key]].value)
                        out[cued[profile.key]] = claim
                    else:
                        out.append(claim)
                if found and not profile.qualified:
                    taken.add(profile.key)
                    cued.setdefault(profile.key, len(out) - 1)
    return out


def _last_if_corrected(
    found: list[tuple[str, str, int]], clause: str, profile: Profile
) -> list[tuple[str, str, int]]:
    """For one value per field: the later of two when the words between take the first back
    ("in the garage, the code is... no, better with the neighbour"), else the first."""
    if profile.qualified or len(found) < 2:
        return found
    first, last = min(found, key=lambda f: f[2]), max(found, key=lambda f: f[2])
    return [last] if takes_back(clause[first[2] : last[2]]) else [first]


_SHAPES = [
    (
        re.compile(r"\b(e-?mail|mail)\b", re.I),
        EMAIL,
        "an email address",
    ),
    (
        re.compile(r"\b(phone|mobile|cell|whatsapp|contact number)\b", re.I),
        PHONE,
        "a phone number",
    ),
    (
        re.compile(r"\b(zip|postcode|postal code|pin ?code)\b", re.I),
        re.compile(r"\b(?:\d{5}(?:-\d{4})?|\d{6}|[A-Z]{1,2}\d[A-Z\d]? ?\d[A-Z]{2})\b"),
        "a postal code",
    ),
]


def shaped_claims(ctx: Context, taken: set[str]) -> list[Claim]:
    """Values with a shape of their own (emails, phone numbers, postal codes), for the text
    fields that hold them, wherever the user writes them."""
    out, codes = [], {w for ws in ctx.things.values() for w in ws if w.isdigit()}
    best = ctx.prompt.best() if ctx.prompt is not None else None  # the field the agent asked
    for profile in ctx.fields:
        if profile.type != "string" or profile.key in taken:
            continue
        about = profile.key.replace("_", " ") + " " + profile.field.get("description", "")
        asked = ctx.prompt is not None and any(p is profile for p, _, _ in ctx.prompt.asked)
        street = own_address(
            profile, ctx.fields, ctx.turn.text, asked
        )  # "22 alma rd, sheffield S11"
        if street and not third_party(ctx.turn.text[: street[1]], ctx.words) \
                and not takes_back(ctx.turn.text[street[1] :]):  # fmt: skip
            out.append(text_claim(ctx, profile, street[0], text_source(ctx, ctx.turn.text),
                                  street[1], {"cue": "a street address"}))  # fmt: skip
            taken.add(profile.key)
            continue
        for field_words, shape, what in _SHAPES:
            if not field_words.search(about):
                continue
            match = next((m for m in shape.finditer(ctx.turn.text) if what != "a phone number" or (is_phone(
                ctx.turn.text, m) and (best is profile or said_as_phone(ctx.turn.text, m, best is not None, codes)))), None)  # fmt: skip
            if match and what == "a postal code" and match.group(0).isdigit():  # asked or named
                match = match if best is profile or field_words.search(ctx.turn.text) else None
            if match:
                out.append(text_claim(ctx, profile, match.group(0).strip(), text_source(ctx, ctx.turn.text),
                                  match.start(), {"cue": what}))  # fmt: skip
                taken.add(profile.key)
                break
    return out
