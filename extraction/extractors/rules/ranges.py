"""A stretch of days said as a range: "from the 3rd to the 10th of April", "Friday 10 April until
Monday 13 April", "14-18 May". Its first day is the schema's one start field's (pick-up, start,
arrival, check-in, move-in, outbound), its last the one end field's (return, drop-off, end,
check-out, finish, move-out, inbound); before, both days went to whichever date field the
sentence named best, the later one winning. Only the user's own stretch and the agent's said as
the user's (the patterns below); ADR 0026, eleventh session, has what a review found."""

from __future__ import annotations

import datetime
import itertools
import re
from dataclasses import replace

from core.text import sentences
from extraction.extractors.rules.acts import hedged, third_party
from extraction.extractors.rules.dates import dates_in
from extraction.extractors.rules.fields import Profile
from extraction.extractors.rules.mentions import Mention
from extraction.extractors.rules.prompts import Prompt
from extraction.extractors.rules.reader import Claim, Context

_BETWEEN = re.compile(r"\s*(?:-|\u2013|\u2014|to|until|till|til|through|thru)\s*$", re.I)
_BARE_DAY = re.compile(
    r"(?<![£$€₹\d])(?<!for )(?<!of )(?<!aged )(?<!ages )(?<!rooms )(?<!room )\b([0-3]?\d)"
    r"(?:st|nd|rd|th)?\s*(?:-|\u2013|\u2014|to|until|till|through)\s*$",
    re.I,
)
# Start and end days by the key's words; "pick up" and "drop off" are a start and an end for a
# hire but an end and a start at a kennel, so a schema with both has no reading of its own.
_START = ({"pickup", "start", "begin", "arrival", "arrive", "checkin", "outbound", "movein"},
          [("pick", "up"), ("check", "in"), ("move", "in")])  # fmt: skip
_END = ({"return", "dropoff", "end", "until", "checkout", "finish", "inbound", "moveout"},
        [("drop", "off"), ("check", "out"), ("move", "out")])  # fmt: skip
# The user asking for the stretch, or the agent putting it to them as theirs.
_WANTS = re.compile(r"\b(?:need|want|book|like|looking|hire|rent|reserve|staying|stay|travelling|"
                    r"traveling|arriving|leaving|taking|can i|could i|please)\b", re.I)  # fmt: skip
_NOT_THEIRS = re.compile(
    r"\b(?:not|was|were|had|came|stayed|last (?:time|year|summer|month|week)|free|busy|away|"
    r"between|closed|shut|offer|sale|promotion|deal|discount|aged|ages)\b|^\W*(?:our|we|we're|"
    r"we are|we'll)\b",
    re.I,
)
_YOURS = re.compile(
    r"^\W*(?:so|that's|that is|ok(?:ay)?|right|great|perfect|lovely|done)\b|\b(?:you're|you are)"
    r" (?:booked|down|in|all set)\b|\byour (?:booking|hire|stay|rental|reservation|dates?)\b|"
    r"\bi(?:'ve| have) (?:got|booked|put|reserved) you\b|\bi can (?:do|book|hold)\b",
    re.I,
)


# A thing's own stretch: "The conference is 3-7 May", "My trial is 2-16 March".
_SOMETHING_IS = re.compile(
    r"\W*(?:the|my|our|his|her|their|this|that)?\s*(?!booking|hire|rental|reservation|dates?\b|"
    r"stay\b)[a-z]+(?:\s+[a-z]+)?\s+(?:is|are|was|were|runs?|lasts?)\b",
    re.I,
)


def _parts(key: str) -> set[str]:
    return set(re.split(r"[_\s-]+", key.lower()))


def _says(key: str, words: tuple[set[str], list[tuple[str, str]]]) -> bool:
    parts = _parts(key)
    return bool(parts & words[0]) or any(a in parts and b in parts for a, b in words[1])


def date_range(sentence: str, today: datetime.date) -> tuple[tuple[datetime.date, int, int],
                                                            tuple[datetime.date, int, int]] | None:  # fmt: skip
    """The first range the sentence says: ((first day, start, end), (last day, start, end))."""
    found = dates_in(sentence, today)
    if len(found) > 2 or _SOMETHING_IS.match(sentence):
        return None  # "return on 10 April, as I'm on holiday 12-19 April"; "Induction is 1-3 April"
    for a, b in itertools.pairwise(found):
        if _BETWEEN.fullmatch(sentence[a.end : b.start]) or (
            sentence[a.end : b.start].strip() == "" and a.phrase.strip().endswith(("-", "\u2013"))
        ):
            first: datetime.date | None = a.day
            if a.kind == "ordinal" and b.kind != "ordinal":  # "the 3rd to the 10th of April"
                first = _in_month_of(a.day.day, b.day)
            if first and first <= b.day:
                return (first, a.start, a.end), (b.day, b.start, b.end)
    for b in found:  # "from 3 to 10 April", "14-18 May": a bare day before a day with its month
        bare = _BARE_DAY.search(sentence[: b.start])
        start = _in_month_of(int(bare.group(1)), b.day) if bare and b.kind != "ordinal" else None
        if bare and start and start < b.day and len(found) == 1:
            return (start, bare.start(1), bare.end(1)), (b.day, b.start, b.end)
    return None


def _in_month_of(day: int, last: datetime.date) -> datetime.date | None:
    try:
        first = last.replace(day=day)
    except ValueError:
        return None
    if first > last:  # "28 to 3 March": the month before
        month = last.month - 1 or 12
        try:
            first = first.replace(year=last.year - (month == 12), month=month)
        except ValueError:
            return None
    return first


def ends(fields: list[Profile]) -> tuple[Profile | None, Profile | None]:
    """The schema's start and end day fields (not per-thing ones), each only when one is."""
    dates = [p for p in fields if p.type == "date" and not p.qualified]
    keys = set().union(*(_parts(p.key) for p in dates))
    if ("pick" in keys or "pickup" in keys) and ("drop" in keys or "dropoff" in keys):
        return None, None
    starts = [p for p in dates if _says(p.key, _START) and not _says(p.key, _END)]
    stops = [p for p in dates if _says(p.key, _END) and not _says(p.key, _START)]
    return (starts[0] if len(starts) == 1 else None), (stops[0] if len(stops) == 1 else None)


def range_claims(ctx: Context, found: list[Claim]) -> list[Claim]:
    """The user's own range read into the start and end fields, in place of what the sentence's
    days gave those fields."""
    start, stop = ends(ctx.fields)
    if start is None and stop is None:
        return found
    today = ctx.turn.occurred_at.date()
    asked = ctx.prompt is not None and any(p in (start, stop) for p, _, _ in ctx.prompt.asked[:2])
    for sentence in sentences(ctx.turn.text):
        said = date_range(sentence, today)
        if said is None or third_party(sentence) or _NOT_THEIRS.search(sentence):
            continue  # "It was 5-9 March last time", "I'm away 3-10 April", "my sister …"
        if not (asked or _WANTS.search(sentence)):
            continue
        mine = [c for c in found if c.profile in (start, stop)]
        source = mine[0].source if mine else ("inferred" if hedged(sentence) else "explicit")
        here = [c for c in mine if c.clause and (c.clause in sentence or sentence in c.clause)]
        found = [c for c in found if c not in here]  # what the range's own days gave them
        for profile, (day, a, b), cue in ((start, said[0], "its first day"),
                                          (stop, said[1], "its last day")):  # fmt: skip
            if profile is not None and not any(c.profile is profile for c in found):
                why = {"cue": f"a range: {cue}", "range": sentence[said[0][1] : said[1][2]]}
                found.append(Claim(profile, day.isoformat(), source, [ctx.turn], (ctx.index, a),
                                   why, clause=sentence, span=(a, b)))  # fmt: skip
        break
    return found


def ranged(prompt: Prompt, fields: list[Profile]) -> None:
    """The agent's range ("So Tuesday 21 April to Tuesday 5 May"): its first day proposed or told
    for the start field, its last for the end field."""
    start, stop = ends(fields)
    if start is None and stop is None:
        return
    today = prompt.turn.occurred_at.date()
    for sentence in sentences(prompt.turn.text):
        said = date_range(sentence, today)
        if said is None or _NOT_THEIRS.search(sentence) or third_party(sentence):
            continue  # "We're closed 24-26 December", "Your last stay was 3-6 February"
        if not _YOURS.search(sentence):
            continue  # "Easter weekend is 3-6 April": not said as the user's stretch
        for entries in (prompt.proposals, prompt.stated):
            entries[:] = [
                e for e in entries if not (e[1].sentence == sentence and e[0] in (start, stop))
            ]
        into = prompt.proposals if prompt.offers else prompt.stated
        for profile, (day, a, b) in ((start, said[0]), (stop, said[1])):
            if profile is not None:
                mention = Mention("date", day.isoformat(), a, b, f"a range '{sentence[a:b]}'")
                into.append((profile, replace(mention, sentence=sentence), "a range"))
