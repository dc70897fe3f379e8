"""The agent's side of the dialogue: what its turn asks about and what it proposes.

A question picks the fields it asks about by their words and by meaning (the bundled
embedder); a yes/no question or an offer that carries a value ("Shall I book your follow-up for
the 3rd of March?", "Would 30 work?", "Shall I note your home loan as pre-approved?") is a
proposal: the user's acceptance confirms it, a refusal or silence writes nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from core.text import sentences
from extraction.extractors.base import WindowTurn
from extraction.extractors.rules.acts import RELATIVE, question_kind, someone_elses_name
from extraction.extractors.rules.amounts import money_in, quotes, speaks_of_money
from extraction.extractors.rules.date_fields import another_occasion
from extraction.extractors.rules.fields import WH_ONLY, Profile, cue_score, similarity
from extraction.extractors.rules.mentions import Mention, typed_mentions
from extraction.extractors.rules.owners import (
    owner,
    price_group,
    result_first,
    several_prices,
    string_offers,
)
from extraction.extractors.rules.providers import WHO_WITH, provider
from extraction.extractors.rules.strings import is_ordinary, kinds_named
from extraction.extractors.rules.switched import switched
from extraction.extractors.rules.told import given, names_a_field
from extraction.extractors.rules.travel import asks_elsewhere

OFFER = re.compile(
    r"\b(shall i|should i|can i|may i|i'll|i will|i can|i could|we'll|we will|we can|we could|let's|let me|"
    r"how about|what about|would you like|do you want|would .{0,40}\bwork|does .{0,40}\bwork|"
    r"is that (okay|ok|fine|alright|right|correct)|sound good|suit you|works for you|"
    r"^\W*so,? (?:that's|you're|your|it's)|just to confirm|to confirm|i have you (?:down )?(?:as|for)|"
    r"put you down|proposes?|suggest|recommend|pencil|worth (?:a look|considering|thinking about)|"
    r"you (?:might|may) want to|"
    # advice is an offer too: "For a Persian I'd consider at least accident cover"
    r"(?:i'd|i would|we'd|we would)\s+(?:\w+\s+)?(?:consider|go for|go with|opt for|advise|look at)|"
    r"you (?:should|could|ought to)\s+(?:\w+\s+)?(?:consider|go for|go with|try|switch|upgrade|add|pick|choose|get (?:the|a|an)\b)|"
    r"it(?:'s| is| might be| may be| would be|'d be) worth|"
    r"which (?:\w+ )?(?:suits|works|is better|would suit|do you prefer|would you prefer)|"
    r"(?:we|i)(?: have|'ve got| have got)\s+(?:a|an|some|one|two|three|another|(?:mon|tues|wednes|thurs|fri|"
    r"satur|sun)day)\b(?!\s+(?:question|problem|"
    r"issue|note|record|look|update|answer|quick|few|bit|feeling|idea)\b))\b",
    re.I,
)
ASKED_MIN_WORDS = 0.5  # weighted word overlap that alone names the field
ASKED_MIN_SIMILARITY = 0.42  # embedder cosine that alone names the field


@dataclass
class Prompt:
    """An agent turn as the user's next turn reads it."""

    turn: WindowTurn
    kind: str  # "wh", "yn", "alt", or "" (no question)
    asked: list[tuple[Profile, float, str]]  # fields asked about, best first: (field, score, cue)
    proposals: list[tuple[Profile, Mention, str]] = field(default_factory=list)
    stated: list[tuple[Profile, Mention, str]] = field(default_factory=list)  # "your plan is …"
    offers: bool = False  # the turn proposes (yes/no question, offer, confirmation request)
    given: list[Mention] = field(default_factory=list)  # of ``stated``, those told.given passed

    def best(self, type_: str | None = None) -> Profile | None:
        for profile, _, _ in self.asked:
            if type_ is None or profile.type == type_:
                return profile
        return None


NAME_QUESTION = re.compile(
    r"\b(name|who am i|who's (?:this|calling|speaking)|who is (?:this|calling)|"
    r"who do i have|who (?:i'm|i am) speaking|speaking (?:to|with)|talking (?:to|with)|"
    r"call you|is this|on the line|have the pleasure)\b",
    re.I,
)
_THEIR_NAME = re.compile(
    r"\b(?:your|the|his|her|their)\s+\w+'s\s+name\b", re.I
)  # "your dog's name"
_YOUR_NAME = re.compile(
    r"\byour\s+(?:full\s+|first\s+|last\s+)?name\b|\bwho (?:am i|do i have|is (?:this|calling))\b|"
    r"\bspeaking (?:to|with)\b",
    re.I,
)
_THAT = re.compile(r"^\W*(?:\w+\W+){0,5}(?:that|this|it)\W+(?:\w+\W*){0,2}$", re.I)
CLOSER = re.compile(r"^\W*(?:\w+[.!,]\s+)?(?:is there )?(?:anything|something) else\b", re.I)
_HOW_MUCH = re.compile(r"\bhow much\b|\b(?:rough|ballpark|ball-park)\s+(?:figure|number|amount)\b", re.I)  # fmt: skip
_WH_TYPES = [
    (re.compile(r"\b(when|what date|which date|what day|which day)\b", re.I), {"date"}),
    (re.compile(r"\bhow (many|old|long|often)\b", re.I), {"number"}),
    (_HOW_MUCH, {"money", "number"}),
    (re.compile(r"\bwhere\b", re.I), {"place"}),
    (re.compile(r"\bwho\b", re.I), {"person"}),
]
_SOMEONE = re.compile(r"\b(?:person|people|name|who)\b", re.I)  # a field that holds someone
WH_PRIOR = 0.8  # "when" asks for a date, "how many" for a number, "where" for a place


def _prior(question: str, profile: Profile, named: float) -> float:
    """``named``: how strongly the question names the field by its words (``cue_score``)."""
    for pattern, types in _WH_TYPES:
        if pattern.search(question):
            if "place" in types and not named and asks_elsewhere(question, profile):
                return 0.0  # "Where did you go on that trip?" asks no home city
            someone = profile.person_name or bool(
                _SOMEONE.search(profile.field.get("description") or "")
            )
            if (
                profile.type in types
                or ("place" in types and profile.proper and not someone)
                or ("person" in types and someone)
            ):
                return WH_PRIOR
            return -WH_PRIOR / 2
    return 0.0


# A question asking how someone does or did something ("How do you keep up with your goals?",
# "How have you been juggling dance and business goals?", "How did it feel when you achieved
# such a big goal?") asks no field's value, unless the field is itself a how ("How the user
# says they feel"), or one of choices (a method: "How do you want to pay?"). How something went
# asks for its outcome, a value ("How did the practice test go?" — "1350!"); so do "how many /
# much / long …".
_MANNER = re.compile(
    r"\bhow\s+(?:do|did|does|have|has|had)\s+(?:you|they|he|she|we|it)\s+(?:been\s+)?"
    r"(?!go\b|going\b|went\b|turn|work(?:ed)?\s+out|end(?:ed)?\s+up|want|like|prefer|wish|usually)\w+",
    re.I,
)


def _rank(
    question: str, vector: np.ndarray | None, fields: list[Profile]
) -> list[tuple[Profile, float, str]]:
    """The fields a sentence asks about, best first: by their words (and the wh-word's type),
    and, for a question, by meaning."""
    ranked = []
    manner = bool(_MANNER.search(question))
    for profile in fields:
        if manner and profile.type == "string" and not profile.how:
            continue  # "How do you keep up with your goals?" asks how, not which goal
        words, word = cue_score(profile, question)
        if profile.type == "date" and not word and another_occasion(question, profile.words):
            continue  # "I'll book an exit interview for Tuesday, ok?" asks no last working day
        words += _prior(question, profile, words)
        sim = similarity(profile, vector) if vector is not None else 0.0
        theirs = (_THEIR_NAME.search(question) or someone_elses_name(question, profile.about)) and not _YOUR_NAME.search(question)  # fmt: skip
        if profile.person_name and (not NAME_QUESTION.search(question) or theirs):
            continue  # a name is asked in so many words ("your name?", "who am I speaking with?")
        if profile.person_name and _YOUR_NAME.search(question):
            words = max(words, 1.0)  # however many fields say "name" ("pet:<name>")
        if words >= ASKED_MIN_WORDS or sim >= ASKED_MIN_SIMILARITY:
            cue = (
                (f"question names '{word}'" if word else WH_ONLY)
                if words >= ASKED_MIN_WORDS
                else f"question similarity {sim:.2f}"
            )
            ranked.append((profile, words + 1.5 * sim, cue))
    return sorted(ranked, key=lambda r: -r[1])


# The agent telling the user about themselves: "Your new card is active", "You applied for the
# product designer role" (the user as subject, not "Dr Rao will see you").
ABOUT_YOU = re.compile(
    r"^\W*(?:\w+[,.!]\s+)?(?:you|your)\b|\byour\s+(?:[\w-]+\s+){0,3}(?:is|are|was|has|have)\b"
    r"|\b(?:will|'ll|can)\s+(?:call|visit|see|contact|ring|meet|come to|deliver to|pick up)\s+you\b"
    r"|\byou(?:'ll| will| would)?\s+(?:pay|owe|get back|receive|be charged|be refunded)\b",  # "so you pay ¥2,640"
    re.I,
)
# A question that asks the user to confirm what was just said, or to accept an offer.
CONFIRMING = re.compile(
    r"\b(?:is that|does that|would that|will that|that's)\s+(?:ok|okay|fine|alright|right|correct|"
    r"work|suit|sound)|\b(?:ok|okay|right|correct|alright|yes)\?\s*$|\bsound good\b|\bshall i\b|"
    r"\bshould i\b|\bwant me to\b|\bwould you like\b|\bdo you want\b|\bhappy with\b|\bagreed\b",
    re.I,
)
# Not the user's: a relative's, another customer's, or what to do ("Please apply soon").
OTHERS = re.compile(
    rf"{RELATIVE.pattern}|(?i:\b(?:other|another|previous|last|a)\s+(?:client|customer|tenant|buyer|"
    r"candidate|patient|caller)s?\b|\bsomeone else\b|^\W*(?:please|remember to|make sure to|"
    r"be sure to|don't forget to|do try to)\s+(?!note\b|be aware\b|find\b|see\b)[a-z]+\b)"
)
# The agent reporting what it did or what now holds: "I've blocked the debit card", "Standing
# instruction on savings reduced to 15,000", "the claim is paid".
REPORT = re.compile(
    r"^\W*done\b|\b((?:i|we) have|i've|we've)(?=\s+(?:just\s+|now\s+|already\s+)?(?:\w+ed|done|made|"
    r"sent|put|set|taken|given|spoken|told|paid|found|got (?:you|it|that|them)|just|now|already)\b)|"
    r"\b(i just|has been|have been|is now|are now|now on|is on|is off|"
    r"updated|moved|changed|switched|set up|booked|scheduled|rescheduled|reduced|increased|raised|"
    r"lowered|blocked|unblocked|activated|deactivated|cancelled|canceled|approved|rejected|"
    r"confirmed|registered|added|removed|renewed|issued|paid|refunded|reported|upgraded|downgraded)\b",
    re.I,
)
# The agent reading back what it heard: "Got it, 2 crore ceiling.", "Pat on 087 614 2209, noted."
READ_BACK = re.compile(r"^\W*(?:got it|noted|understood)\b|\bnoted\W*$", re.I)
NAME_CHECK = re.compile(
    r"(?i:\b(?:speaking (?:with|to)|talking (?:with|to)|is this|is that|are you|am i with)\s+"
    r"(?:(?:mr|ms|mrs|miss|dr)\.?\s+)?)(?P<v>[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+){0,2})"
)


def read_prompt(turn: WindowTurn, fields: list[Profile], vectors: dict[str, np.ndarray],
                currency: str | None, things: dict[str, list[str]], before: str = "") -> Prompt:  # fmt: skip
    """What the agent's turn asks, proposes (questions and offers that carry a value) and
    states about the user ("You applied for the product designer role"); ``before``: the
    user's turn it answers (see ``told.given``)."""
    said = sentences(turn.text)
    questions = [s for s in said if question_kind(s)]
    question = questions[-1] if questions else (said[-1] if said else "")
    kind = question_kind(question) if questions else ""
    ranked = _rank(question, vectors.get(question), fields)  # or the offer "that" stands for:
    prior = said[said.index(question) - 1] if kind and _THAT.search(question) and said.index(question) else ""  # fmt: skip
    if not ranked and prior and _offers(prior):  # "I can add the sports channels. Like that?"
        ranked = _rank(f"{prior} {question}", vectors.get(prior), fields)
    asked = [] if not question or CLOSER.match(question) else ranked
    if not questions:
        asked = [a for a in asked if a[1] >= 1.2]  # a statement names a field less surely
    elif not asked and WHO_WITH.search(question):  # "Who are you with at the moment?"
        asked = [(p, 2.0, "who are you with") for p in fields if provider(p)][:1]
    prompt = Prompt(turn, kind, asked)
    prompt.offers = kind in ("yn", "alt") or _offers(question)
    money = [a for a in money_in(turn.text, currency) if a.explicit]
    bare = bool(money) or any(p.type == "money" for p, _, _ in asked[:1])
    seen: set[tuple[str, str, int]] = set()
    agent = {w.lower() for w in turn.speaker.split()[:1] if len(w) > 2 and w[:1].isupper()}
    for sentence in said:
        offer = bool(proposes(sentence))
        quoted = quotes(sentence, currency)  # "That's $118 for the C5": theirs if they agree
        enums = [p for p in fields if p.type == "enum"]
        states = any(
            m.type == "enum"
            for m in typed_mentions(sentence, turn.occurred_at.date(), enums, currency)
        )
        told = (  # "the lamp is delivered"; "For the HR business partner role, …"
            ABOUT_YOU.search(sentence)
            or REPORT.search(sentence)
            or READ_BACK.search(sentence)
            or states
            or any(p.type == "string" and kinds_named(p, sentence) for p in fields)
        )
        names = not told and names_a_field(sentence, fields)  # "The estimate is $265"
        told = told or names
        stated = (
            bool(told)
            and not OTHERS.search(sentence)  # not another client's, a relative's
            and not _AGENTS_OWN.match(sentence)  # "My budget for this search is 90 lakhs"
            and not agent & {w.lower() for w in re.findall(r"[A-Za-z]+", sentence)}
        )  # "Jana from the service desk": the agent about itself
        if stated and not question_kind(sentence):
            prompt.stated += switched(sentence, fields)  # "Done, auto-refill is on."
        if not (prompt.offers or stated or quoted):
            continue
        mentions = typed_mentions(sentence, turn.occurred_at.date(), fields, currency,
                                  bare_money=bare or speaks_of_money(sentence),
                                  context=money[-1] if money else None)  # fmt: skip
        owners = [(o, m) for m in mentions if not _WITHOUT.search(sentence, 0, m.start)
                  and not (m.type == "number" and _LIMIT.search(sentence, 0, m.start))  # "under 35 kilos"
                  if (o := owner(m, sentence, turn.text, fields, prompt, things,
                                  max([0] + [n.end for n in mentions if n.type == m.type and n.end <= m.start]),
                                  (bool(questions) and _offers(question)) or offer))]  # fmt: skip
        owners = [(o, m) for o, m in owners if not (m.type == "number" and _MORE.match(sentence, m.end)
                  and not _EXTRAS.search(o[1].key))]  # fmt: skip  # "one more session": how many are added
        owners += [o for o in string_offers(sentence, fields, prompt)
                   if not _MONEYISH.match(str(o[1].value))]  # fmt: skip  # not "Rs 1" of "Rs 1,180"
        if not owners:
            continue
        # A sentence proposes one thing, its best-named value; or one per thing it names
        # ("the lamp is out for delivery; the blender and the rug are in transit"). When the
        # user has just spoken of a day, a date is when, beside what: it does not compete with
        # the value said with it ("Monday the 23rd, full service - how's that?" proposes both).
        owners = result_first(owners, sentence)

        dated = offer  # a date offered is when, beside what ("I can book Kev for Tuesday")
        tops: dict[tuple[bool, bool], float] = {}  # a price beside its plan ("Premium's £54.99")

        groups = [price_group(p, m, dated, quoted) for (_, p, _), m in owners]
        for ((points, _, _), _), at in zip(owners, groups, strict=True):
            tops[at] = max(points, tops.get(at, points))
        for ((points, profile, cue), mention), at in zip(owners, groups, strict=True):
            top, price = tops[at], at[1]  # at[1]: a price quoted, of a field that holds one
            key = (profile.key, str(mention.value), mention.start if profile.qualified else 0)
            named = mention.how.startswith("a kind of")  # "the HR role": said beside the question
            either = (
                prompt.offers and mention.type == "date" and points >= 1.0 and _OR.search(sentence)
            )
            if (
                points == top or (profile.qualified and points >= 1.0) or named or either
            ) and key not in seen:  # "Wednesday the 14th or Friday the 16th": both offered
                seen.add(key)
                # "I've opened INC-20417. Can I reach you on your extension?": a report, not
                # offered by the question after it (unless that asks "is that right?")
                reported = bool(REPORT.search(sentence)) and not CONFIRMING.search(question)
                offered = offer or (prompt.offers and not reported) or (price and not stated)
                into = prompt.proposals if offered and not named else prompt.stated
                if into is prompt.stated and (
                    not (prompt.offers or stated)  # let in as a price only: it tells nothing
                    or not _names_field(profile, mention, sentence, prompt)
                    or (names and not given(sentence, mention, before))
                ):
                    if not price:
                        continue
                    into = prompt.proposals  # a price not said of its field: theirs if agreed
                if (
                    _THIRD_PERSON.match(sentence)
                    and RELATIVE.search(before)
                    and profile.type == "enum"
                    and not profile.qualified
                ):
                    continue  # "my buddy…" — "He can call anytime": how the buddy is reached
                if price and not offer and (several_prices(owners, profile, sentence) or (
                        into is prompt.proposals and questions and not _PROCEED.search(question)
                        and not CLOSER.match(question))):  # fmt: skip
                    continue  # "£145. Shall I email you the details?" — "Yes": not the price
                into.append((profile, replace(mention, sentence=sentence), cue))
                if names and into is prompt.stated:
                    prompt.given.append(into[-1][1])
    _name_check(prompt, question, fields)
    best = prompt.best()
    if best is not None and best.type == "boolean" and kind == "yn" and OFFER.search(question):
        prompt.proposals.append((best, Mention("boolean", True, 0, 0, "yes/no question"), "asked"))
    return prompt


# A sentence about a third person ("He can call anytime", "She'll pay 50 upfront"): the one
# the user's turn before spoke of, when it spoke of someone.
_THIRD_PERSON = re.compile(r"\W*(?:he|she|his|her)\b(?!\s+(?:you|the user)\b)", re.I)
# "We're out of compacts, I can upgrade you to an SUV": a value not to be had is not offered.
_WITHOUT = re.compile(
    r"\b(?:out of|sold out of|no more|none of the|instead of|rather than|not)\s+(?:the\s+)?$", re.I
)
LIMITS = r"under|over|above|below|at least|at most|up to|more than|less than|takes|holds|fits|seats"
_LIMIT = re.compile(rf"\b(?:{LIMITS})\s+$", re.I)  # a limit, not a count: "under 35 kilos"
_OR = re.compile(r"\bor\b", re.I)
# "Shall we add one more session?": how many are added, not how many there are
_MORE = re.compile(r"\s+(?:more|extra|additional|fewer|less)\b(?![\s-]+large)", re.I)
_EXTRAS = re.compile(r"extra|additional|more")  # a field that counts the extras themselves
# A question that asks to go ahead with what was priced (not "Shall I email you the details?")
_PROCEED = re.compile(
    r"\b(?:go ahead|proceed|book|confirm|that ok|that okay|that alright|that all right|sound ok|"
    r"sound good|sounds? ok|happy|do (?:it|that)|want it|take it|does that work|that suit|switch|"
    r"sign (?:you )?up|set (?:it|that|you) up|put you (?:on|down)|upgrade|order|add)\b",
    re.I,
)
_MONEYISH = re.compile(r"\W*(?:rs\.?|inr|usd|eur|gbp|[£$€₹])\s*\d", re.I)
_AGENTS_OWN = re.compile(r"\W*my\b", re.I)
# "I'll mark it as resolved": what the agent does, told, not offered (unless it asks).
_ANNOUNCES = re.compile(r"\b(?:i'll|i will|we'll|we will)\b", re.I)


def proposes(sentence: str) -> bool:
    """Whether the sentence itself offers (a question, "I'd suggest …", "shall I …")."""
    return bool(question_kind(sentence)) or _offers(sentence)


def _offers(sentence: str) -> bool:
    found = [m.group(0) for m in OFFER.finditer(sentence)]
    return any(not _ANNOUNCES.fullmatch(f) for f in found)


def _names_field(profile: Profile, mention: Mention, sentence: str, prompt: Prompt) -> bool:
    """Whether a value the agent tells (not offers) is said of its field: the sentence names
    the field, or the user as its subject, or the field is the one asked; an enum choice names
    itself. "The network team changed the timeout on Friday" dates no one's return."""
    if mention.type == "enum" or profile.qualified or ABOUT_YOU.search(sentence):
        return True
    if any(p is profile for p, _, _ in prompt.asked[:1]):
        return True
    return cue_score(profile, sentence)[0] > 0


def _name_check(prompt: Prompt, question: str, fields: list[Profile]) -> None:
    """ "Am I speaking with Ms Aisha Khan?": the user's name, proposed."""
    match = NAME_CHECK.search(question) if question_kind(question) == "yn" else None
    profile = next((p for p in fields if p.person_name), None)
    if match and (match.group("v").isupper() or is_ordinary(match.group("v").split()[0])):
        match = None  # "Is that OK with you?"
    if match and profile is not None:
        name = match.group("v")
        prompt.proposals.append(
            (
                profile,
                Mention("string", name, match.start("v"), match.end("v"), "name asked"),
                "name check",
            )
        )


def proposal_values(prompt: Prompt | None) -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {}
    for profile, mention, _ in prompt.proposals if prompt else []:
        out.setdefault(profile.key, []).append(mention.value)
    return out
