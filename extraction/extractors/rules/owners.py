"""Offers across the two sides: which field a value the agent proposes belongs to (the one of its
type its sentence or turn names best, or the one the turn asks about), the text values it
proposes by a field's cue, and the user's offers the agent takes up."""

from __future__ import annotations

import datetime
import re
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from extraction.extractors.base import WindowTurn
from extraction.extractors.rules.acts import CHANGE_VERBS, denies, question_kind
from extraction.extractors.rules.amounts import priced, quotes
from extraction.extractors.rules.date_fields import SAME_DAY, another_occasion, wrong_time
from extraction.extractors.rules.fields import TIME_UNITS, Profile, cue_score, stem
from extraction.extractors.rules.measures import a_stretch_of_its_period
from extraction.extractors.rules.mentions import BARE, Mention, typed_mentions
from extraction.extractors.rules.strings import after_cue, clean, proper_nouns

if TYPE_CHECKING:
    from extraction.extractors.rules.prompts import Prompt
    from extraction.extractors.rules.reader import Claim


_TIME_UNIT = re.compile(rf"(?:second|{TIME_UNITS})s?\W*", re.I)


def owner(mention: Mention, sentence: str, turn: str, fields: list[Profile], prompt: Prompt,
           things: dict[str, list[str]], since: int = 0, offering: bool = False) -> tuple[float, Profile, str] | None:  # fmt: skip
    """The field a value the agent proposes belongs to: the one of its type its sentence (or
    turn) names best, or the one the turn asks about; the words since the value before it count
    again ("pick-up on Saturday June 20th, drop-off on Friday June 26th"); ``offering``: the turn's
    question offers ("Does that work?"), so a date said before it is what is offered."""
    best: tuple[float, Profile, str] | None = None
    asked = prompt.best(mention.type)
    before = sentence[: mention.start].lower()
    if mention.type == "money" and _another_things_price(before, fields):
        return None  # "It's €420 a week; the damage waiver is €38 a week on top": the waiver's
    today = prompt.turn.occurred_at.date()
    quoted = mention.type == "money" and quotes(sentence, None)  # "£238 all in": a price put
    # the fields that can take it: a slot offered for Thursday is no last visit's date
    fields = [p for p in fields if p.type == mention.type and not (mention.type == "date" and wrong_time(p.key, p.about, str(mention.value), today))]  # fmt: skip
    # the word right after the value: "20 milligrams", and for an amount "$1,400 excess"
    said = mention.after.split()[:1] or re.findall(r"^\s*([a-z]+)", sentence[mention.end :].lower())
    named = re.match(r"\s+[A-Z][a-z]", sentence[mention.end :])
    if mention.type == "number" and named and float(mention.value) >= 1000:
        return None  # "12017 Shatabdi", "12621 Tamil Nadu Express": a train's number, no count
    # "three passengers": the count its key names, whatever the turn asked
    keyed = [p for p in fields if mention.type == "number" and said and said[0] not in _LINKS
             and stem(said[0]) in {stem(w) for w in p.key.split("_")}]  # fmt: skip
    fields = keyed or fields
    for profile in fields:
        if mention.type == "enum" and mention.value not in (profile.field.get("choices") or []):
            continue
        near, word = cue_score(profile, sentence)
        if mention.type == "date" and not near and SAME_DAY.search(mention.how):
            continue  # "Can the tutor call you today?": when to call, not the field's date
        wide, wide_word = cue_score(profile, turn)
        if mention.type == "date" and not (near or wide) and another_occasion(turn, profile.words):
            continue  # "I'll set up a tasting. They have a slot on Saturday?": not the wedding
        # the words since the value before, less that value's own noun ("a $1,400 excess it …")
        stretch = sentence[since : mention.start]
        lead = re.match(r"\s+([a-z]+)", stretch.lower()) if since else None
        if lead and stem(lead.group(1)) in profile.words:
            stretch = stretch[lead.end() :]
        local = cue_score(profile, stretch)[0] if mention.type != "enum" else 0.0
        points = near + local + 0.8 * wide + (1.5 if profile is asked else 0.0)
        if sum(p.type == profile.type for p in fields) == 1:
            points += 0.6  # the schema's only field of the type
        if a_stretch_of_its_period(profile, mention):
            continue
        if said and (stem(said[0]) in profile.words or profile in keyed):
            points += 1.0  # "20 milligrams" for a field in mg
        elif said and mention.type == "number" and _TIME_UNIT.fullmatch(said[0]):
            continue  # "within a few days" counts no bags
        dated = mention.type == "date" and (
            offering or (prompt.kind and re.search(r"\d", mention.how))
        )
        if question_kind(sentence) or dated:
            points += 0.5  # asked with a value in it ("I have the 23rd or the 27th. Which suits?")
        if profile.qualifier_kind == "word" and any(re.search(rf"\b{re.escape(t.lower())}\W*$", before)
                                     for t in things.get(profile.key, [])):  # fmt: skip
            points += 1.0  # "Atorvastatin 20 and metoprolol 25?": one of its things, then a value
        if mention.type == "enum":
            points += 1.0
        if quoted and priced(profile.key, profile.about):
            points += 0.5  # to the user, for a field that holds such a price
        if points >= 1.0 and (best is None or points > best[0]):
            cue = (
                f"proposal names '{word or wide_word}'"
                if (word or wide_word)
                else "the field asked about"
            )
            best = (points, profile, cue)
    return best


_LINKS = {"per", "a", "an", "the", "of", "in", "for", "each", "and", "or", "to", "on", "at", "by"}
# The thing a clause prices: "the damage waiver is €38", "insurance would be $15 a day".
_PRICED_THING = re.compile(
    r"(?:^|[;,:]\s*|\band\s+)(?:the\s+|your\s+)?(?P<thing>[a-z][a-z -]{2,40}?)\s+(?:is|are|"
    r"costs?|comes? to|would be|will be|runs?)\s+(?:an?\s+)?(?:extra\s+|another\s+)?$"
)


def _another_things_price(before: str, fields: list[Profile]) -> bool:
    """Whether the clause before an amount makes it the price of a thing another field (not
    one of money) is named by: its key's two or more words, no more ("the damage waiver is €38"
    for ``damage_waiver``; not "the pallet truck is €45" for ``pallets``, and not "the car is £45
    a day" for a one-word key ``car``: that is the rate of what is hired)."""
    thing = _PRICED_THING.search(before)
    if not thing:
        return False
    said = {stem(w) for w in thing.group("thing").split()}
    return any(p.type != "money" and (words := {stem(w) for w in p.key.split("_") if len(w) > 2})
               and len(words) > 1 and words == said for p in fields)  # fmt: skip


_POINTING = {"same", "that", "this", "those", "these", "it", "usual", "other", "either", "both"}


def string_offers(sentence: str, fields: list[Profile], prompt: Prompt) -> list[tuple[tuple[float, Profile, str], Mention]]:  # fmt: skip
    """Text values the agent proposes ("Shall we look at Brigade projects?")."""
    out = []
    asked = prompt.best("string")
    for profile in fields:
        if profile.type != "string" or profile.person_name:
            continue
        found = after_cue(profile, sentence)
        if found is None and profile.qualified and (changed := _CHANGED_TO.search(sentence)):
            found = (clean(changed.group("v")), "changed to")  # "He's increased metformin to …"
        if found is None and profile is asked and profile.proper and question_kind(sentence):
            nouns = [n for n, _ in proper_nouns(sentence)
                     if not _ADDRESSED.search(sentence[: max(sentence.find(n), 0)])]  # fmt: skip
            found = (nouns[0], "named in the question") if nouns else None
        first = found[0].split()[0] if found else ""
        if found is None or (first.lower() in _POINTING and not first.isupper()):
            continue  # "Same timing, after 5?": it points back, it is no value
        near, word = cue_score(profile, sentence)
        points = near + (1.5 if profile is asked else 0.0)
        if points >= 1.0:
            at = max(sentence.find(found[0]), 0)
            mention = Mention("string", found[0], at, at + len(found[0]), found[1])
            out.append(
                (
                    (
                        points,
                        profile,
                        f"proposal names '{word}'" if word else "the field asked about",
                    ),
                    mention,
                )
            )
    return out


# Whom the agent speaks to or of, not a value: "Hello Ms Reddy, did you …", "Dr Rao can …"
_ADDRESSED = re.compile(
    r"(?:\b(?:mr|mrs|ms|miss|dr|sir|madam)\.?|^\W*(?:hello|hi|hey|dear|morning|good \w+))\s*$", re.I
)


# A thing's value the agent reports changed: "increased metformin to 1000 mg twice a day"
_CHANGED_TO = re.compile(
    rf"\b(?:{CHANGE_VERBS}|moved|updated)\s+"
    r"(?:your\s+|the\s+)?[\w-]+\s+(?:up\s+|down\s+|over\s+)?to\s+(?P<v>[^.;!?]+)",  # not "his"
    re.I,
)
_TAKEN_UP = re.compile(
    r"^\W*(?:yes|yeah|sure|of course|certainly|absolutely|no problem|done|booked|noted|perfect|great|"
    r"okay|ok|that works|can do|we can|i can|i've|it is|it's)\b|\b(?:it is|booked|noted|confirmed|done)\b",
    re.I,
)


def _said_exactly(mention: Mention) -> bool:
    """An amount with its currency, a date with its day: "£42k", "Monday the 16th"."""
    return mention.how != BARE and (mention.type != "date" or bool(re.search(r"\d", mention.how)))


def taken_up(offered: list[Claim], agent: WindowTurn, index: int) -> list[Claim]:
    """The user's offers ("Monday is possible?") the agent takes up ("Monday the 23rd, between 8
    and 12."): written as the user's, citing both turns. Refused ("Sorry, Monday is full"), none."""
    if not offered or denies(agent.text) or re.search(r"\b(sorry|unfortunately|fully booked|not available)\b",
                                                      agent.text, re.I):  # fmt: skip
        return []
    restated = typed_mentions(
        agent.text, agent.occurred_at.date(), [c.profile for c in offered], None
    )
    out = []
    for claim in offered:
        if claim.profile.type == "date" and (week_on := _its_week(claim, restated)):
            # "Thursday?" — "Thursday May 14th, then.": the agent's day, from the agent's turn
            claim.value, claim.source, claim.turns = week_on, "confirmed", []
        said_back = any(m.value == claim.value and (not claim.why.get("near") or _said_exactly(m))
                        for m in restated)  # fmt: skip  # near a field: "£42k", "Monday the 16th"
        if said_back or (_TAKEN_UP.search(agent.text) and not claim.why.get("near")):
            claim.turns = [*claim.turns, agent]
            claim.why["cue"] = ("the agent said it back" if claim.why.get("near")
                                else "the user asked for it; the agent took it up")  # fmt: skip
            claim.order = (index, 0)
            out.append(claim)
    return out


def _its_week(claim: Claim, restated: list[Mention]) -> str | None:
    """The day the agent names for the weekday the user asked for, a week or two on ("Can't do
    Tuesday. Thursday?" — "Thursday May 14th at 10, then."): the one day, said with its date."""
    try:
        asked = datetime.date.fromisoformat(str(claim.value))
        days = {
            datetime.date.fromisoformat(str(m.value))
            for m in restated
            if m.type == "date" and _said_exactly(m)
        }
    except ValueError:
        return None
    day = days.pop() if len(days) == 1 else None
    return day.isoformat() if day and (day - asked).days in (7, 14) else None


def inside(told: Any, stated: list[Any]) -> bool:
    profile, mention, _ = told
    return any(p is profile and m is not mention and m.sentence == mention.sentence
               and m.start <= mention.start and mention.end <= m.end for p, m, _ in stated)  # fmt: skip


_YES = re.compile(r"\b(yes|yeah|yep|yup|ya|right|correct|that's right|same|fine|ok|okay)\b", re.I)


def picked(mention: Any, offered: list[Any], said: set[str]) -> bool:
    """Whether the reply names a word only this proposal's part of its sentence has (not a time
    word): "$118 for the C5, or $95 for the C3" — "I'll take the C3"."""
    words = set(WORD.findall(_part(mention).lower())) - _WHEN_WORDS
    for _, other, _ in offered:
        if other is not mention:
            words -= set(WORD.findall(_part(other).lower()))
    return bool(words & said)


WORD = re.compile(r"[a-z]+\d+\w*|\d+[a-z]+|[a-z]{4,}")  # "C3", "50gb", "breakfast"


def _part(mention: Any) -> str:
    """The stretch of the proposal's sentence its value is in (between commas and "or")."""
    text = mention.sentence or ""
    cuts = [m.end() for m in re.finditer(r",|\bor\b|;", text)]
    start = max([c for c in cuts if c <= mention.start], default=0)
    end = min([c for c in cuts if c > mention.end], default=len(text))
    return text[start:end] if mention.end <= len(text) else text


_WHEN_WORDS = {"month", "months", "week", "weeks", "year", "years", "today", "tomorrow", "please",
               "that", "this", "with", "your", "from", "then", "just", "will", "would"}  # fmt: skip


def agreed_on(mention: Any, reply: str) -> bool:
    """Whether a clause of the reply names the proposed value's thing (or its first letters:
    "simva") and says yes to it, with no refusal in it."""
    sentence = mention.sentence or ""
    things = re.findall(r"[a-z]{4,}", sentence[: mention.start].lower())[-1:]
    for clause in re.split(r"[.;!?]|,\s+(?:but|and)\b", reply):
        lowered = clause.lower()
        named = any(re.search(rf"\b{re.escape(t[:5])}", lowered) for t in things)
        if named and _YES.search(lowered) and not denies(clause.strip()):
            return True
    return False


_NTH = re.compile(
    r"^\W*(?:(?:um+|er+|hmm+|ok(?:ay)?|well|so|oh)\W+)*(?:i'?d (?:go for|take|say|prefer) |"
    r"let'?s (?:go for|do) )?(?:the\s+)?(first|second|third|middle|last|latter|former)"
    r"(?:\s+(?:one|option|choice))?(?:\W+(?:please|thanks|thank you|then|i think|i guess))*\W*$",
    re.I,
)
_PLACE = {"first": 0, "former": 0, "second": 1, "middle": 1, "third": 2, "last": -1, "latter": -1}


def nth_offer(proposals: list[Any], reply: str) -> Any | None:
    """The proposal a reply picks by its place ("Fixed or variable?" — "the second one"): of
    one field's choices offered in one sentence, in the order they were said."""
    first = re.split(r"(?<=[.!?])\s+", reply.strip())[0]  # "middle one. internet and telly"
    match = _NTH.match(first)
    fields = {id(p) for p, _, _ in proposals}
    if not match or len(fields) != 1 or len({m.sentence for _, m, _ in proposals}) != 1:
        return None
    listed = sorted(proposals, key=lambda t: t[1].start)
    place = _PLACE[match.group(1).lower()]
    if len(listed) < 2 or place >= len(listed):
        return None
    if match.group(1).lower() in ("latter", "former") and len(listed) != 2:
        return None
    if match.group(1).lower() == "middle" and len(listed) != 3:
        return None
    return listed[place]


def snap_to_offer(mention: Mention, sentence: str, proposals: list[Any]) -> Mention:
    """ "I have Thursday the 23rd or Monday the 27th" — "Thursday please": a bare weekday or day
    of the month in the reply is the offered date it matches, when exactly one does."""
    said = sentence[mention.start : mention.end].lower()
    bare = re.fullmatch(r"(?:on\s+|the\s+)*(?:(\w+day)|([0-3]?\d)(?:st|nd|rd|th)?)", said)
    if mention.type != "date" or not bare:
        return mention
    days = {str(m.value) for _, m, _ in proposals if m.type == "date"}
    weekday, number = bare.group(1), bare.group(2)
    same = [d for d in days if (weekday and datetime.date.fromisoformat(d).strftime("%A").lower()
                                == weekday) or (number and int(d[8:10]) == int(number))]  # fmt: skip
    return (
        replace(mention, value=same[0], how=f"{mention.how}, the one offered")
        if len(same) == 1
        else mention
    )


# "£90 list, so with your discount you pay £72", "which makes 115", "that comes to 4,620"
_RESULT = re.compile(
    r",\s*so\b|\bwhich (?:makes|comes to)\b|\bthat (?:makes|comes to)\b|\bin total\b", re.I
)


# "€1,480 in total", "£238 all in": the sum; "€740 each": a part of it
_TOTAL_AFTER = re.compile(r"\W{0,3}(?:in total|all in|all up|altogether|total)\b", re.I)
_EACH_AFTER = re.compile(r"\W{0,3}(?:each|apiece|a piece|per (?:item|piece|unit))\b", re.I)


def result_first(owners: list[Any], sentence: str) -> list[Any]:
    """A value said as the result of the ones before it, for the same field, is the one meant;
    so is a total beside the prices of its parts."""
    out = list(owners)
    top = max((o[0] for o, _ in owners), default=0.0)
    for i, ((_, profile, cue), mention) in enumerate(owners):
        earlier = [m for (_, p, _), m in owners if p is profile and m.end <= mention.start]
        total = mention.type == "money" and _TOTAL_AFTER.match(sentence, mention.end)
        if (earlier and _RESULT.search(sentence, earlier[-1].end, mention.start)) or (
            total and len([1 for (_, p, _), _ in owners if p is profile]) > 1
        ):
            out[i] = ((top + 0.01, profile, cue), mention)
        elif mention.type == "money" and _EACH_AFTER.match(sentence, mention.end):
            out[i] = ((min(o[0] for o, _ in owners) - 0.01, profile, cue), mention)
    return out


def price_group(profile: Profile, mention: Mention, dated: bool, quoted: bool) -> tuple[bool, bool]:
    """Which values of a sentence compete: a date offered is apart from what is offered on it,
    a price from the plan it is the price of ("Premium's £54.99")."""
    price = quoted and mention.type == "money" and priced(profile.key, profile.about)
    return dated and mention.type == "date", price


# "… comes to €1,500", "making £347", "so £540": the sum of the prices before it
_SUMMED = re.compile(
    r"\b(?:comes? to|came to|makes?|making|totals?|totalling|in all|so)\s+(?:about\s+|around\s+)?\W{0,2}$",
    re.I,
)


def several_prices(owners: list[Any], profile: Profile, sentence: str) -> bool:
    """Two prices for one field in a sentence, neither the total nor offered as "or" ("Basic is
    £20 a month and Premium's £54.99"): which one is agreed to is not said. Alternatives ("$118
    for the C5, or $95 for the C3") stay proposals, the reply picks one by its words."""
    said = [m for (_, p, _), m in owners if p is profile and m.type == "money"]
    values = {str(m.value) for m in said}
    summed = any(
        _TOTAL_AFTER.match(sentence, m.end)
        or _RESULT.search(sentence, 0, m.start)
        or _SUMMED.search(sentence, 0, m.start)
        for m in said
    )
    offered = re.search(r"\bor\b", sentence)  # "$189 a night, or $215 with breakfast"
    return len(values) > 1 and not summed and not offered
