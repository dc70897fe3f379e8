"""What a date said means for a date field: a bare day of the month moves a date the field
holds, or is the day the question dated; a field about what lies ahead takes no day years back,
one about a time gone by none ahead; "today" and "tonight" say when to call, not the field's day.
"""

from __future__ import annotations

import datetime
import functools
import re
from collections.abc import Mapping
from dataclasses import replace

from extraction.extractors.rules.dates import dates_in
from extraction.extractors.rules.fields import stem
from extraction.extractors.rules.mentions import Mention

# "today", "tonight": when to call or come by more often than a field's date
SAME_DAY = re.compile(r"'(?:today|tonight|this morning|this afternoon|this evening)'", re.I)


_BARE_DAY = re.compile(r"(?:(?:on|by|for|from|until|till|the)\s+)*[0-3]?\d(?:st|nd|rd|th)", re.I)


# A reply that agrees with what the agent said before asking ("Exactly, the 29th.")
_AFFIRMS = re.compile(
    r"^\W*(?:exactly|yes|yeah|yep|yup|right|correct|that's right|that's it|indeed)\b", re.I
)


def near_known(
    day: str, phrase: str, known: str | None, today: datetime.date, asked: str = "", reply: str = ""
) -> str:
    """ "The 13th instead" for a flight held for 12 March, said in January: 13 March — a bare
    day of the month moves a date the field holds within its month, not to the next 13th. In
    a reply, a bare day the question dated is that date ("The last Saturday of August, that's
    the 29th." — "Exactly, the 29th.": 29 August)."""
    if not _BARE_DAY.fullmatch(phrase.strip()):
        return day
    said_day = int(re.search(r"\d+", phrase).group(0))  # type: ignore[union-attr]
    in_question = {d.day.isoformat() for d in dates_in(asked, today)}
    if known and known[:10] in in_question and int(known[8:10]) == said_day:
        return known[:10]  # "Your booking is 5 July. Move it to 5 August?" — "Keep the 5th."
    if not _AFFIRMS.match(reply):  # "Your passport expires on 20 July. When do you fly out?"
        asked = " ".join(s for s in re.split(r"(?<=[.!?])\s+", asked) if s.rstrip().endswith("?"))
    dated = sorted(
        {d.day for d in dates_in(asked, today) if d.day.day == said_day and d.day >= today}
    )
    if len(dated) == 1:
        return dated[0].isoformat()
    if not known:
        return day
    try:
        held = datetime.date.fromisoformat(known[:10])
        moved = held.replace(day=said_day)
    except ValueError:
        return day
    return moved.isoformat() if abs((moved - held).days) <= 20 and moved >= today else day


_AHEAD = re.compile(
    r"\b(next|upcoming|planned|scheduled|due|will|appointment|visit|pick ?up|"
    r"deliver|renew|start|move|arriv|depart|return|settle|expir|deadline|interview)",
    re.I,
)
_PAST = re.compile(
    r"\b(birth|born|dob|last|previous|happened|incident|accident|date of the|since|"
    r"bought|purchased|joined|started|took place)",
    re.I,
)


# "last visit", "previous service", "most recent dose": a time gone by (not "last working day")
_LAST = re.compile(
    r"\b(?:last|previous|most recent)\s+(?!(?:working\s+|business\s+)?(?:day|date|night)\b)[a-z]",
    re.I,
)


@functools.lru_cache(
    maxsize=4096
)  # asked of each date field per mention by owner, reader and score
def wrong_time(key: str, about: str, day: str, today: datetime.date) -> bool:
    """Whether a date field cannot take the day: one about what lies ahead takes no date years
    back ("born May 3rd 1958" is no pickup date), a birth date or a last visit none ahead (a
    slot offered for Thursday is no last visit). ``about``: the field's key and description as
    words."""
    date = datetime.date.fromisoformat(day[:10])
    if _LAST.search(key.replace("_", " ")):  # "last_visit": one gone by
        return date > today + datetime.timedelta(days=1)
    if _GONE.search(about):  # "Date the patient's symptoms began", whatever its key says
        return date > today
    ahead = _AHEAD.search(key.replace("_", " "))  # "next_pickup", whatever its text says
    if ahead or (_AHEAD.search(about) and not _PAST.search(about)):
        return date < today - datetime.timedelta(days=31)
    if re.search(r"\b(birth|born|dob)\b", about, re.I):
        return date > today
    return False


# A field of a day gone by, by its description: "Date the patient's symptoms began", "the item
# was bought", "the damage occurred" (not "the date of the wedding").
_GONE = re.compile(r"\b(?:began|begun|started|happened|occurred|took place|was bought|were bought|"
                   r"was purchased|stopped working|first noticed|was lost|was stolen)\b", re.I)  # fmt: skip


def in_held_month(mention: Mention, held: str | None, now: datetime.datetime) -> Mention:
    """A date the agent says as a bare day ("they're free on the 12th"), read as ``near_known``
    reads the user's: the 12th of the month the field's date is in, not the next 12th."""
    if mention.type != "date" or not mention.sentence:
        return mention
    phrase = mention.sentence[mention.start : mention.end]
    return replace(mention, value=near_known(str(mention.value), phrase, held, now.date()))


# Words that move a date: "instead", "reschedule", "bring it forward"
_MOVED = re.compile(
    r"\b(?:instead|move[sd]?|moving|reschedul\w*|bring (?:it )?forward|brought forward|earlier|"
    r"change[sd]?|push(?:ed)? (?:it )?(?:back|up)|cancellation|sooner)\b",
    re.I,
)


_STEP_DAYS = 28  # weeks before the held date, not a day or two: that is the date moved


def a_step_before(mention: Mention, held: str | None, turn: str, now: datetime.datetime) -> bool:
    """A date the agent offers, for the field only because its question is about a day, that
    falls weeks before a date the field holds still ahead, in a turn that says nothing of moving
    it: a step on the way ("a tasting slot a week on Saturday" for a wedding held for September),
    not the held date moved."""
    if mention.type != "date" or not held or _MOVED.search(turn):
        return False
    try:
        held_day = datetime.date.fromisoformat(held[:10])
        offered = datetime.date.fromisoformat(str(mention.value)[:10])
    except ValueError:
        return False
    return now.date() < held_day and (held_day - offered).days >= _STEP_DAYS


# What else a day gets booked for: "an exit interview", "a tasting", "a call".
_OCCASION = re.compile(
    r"\b(interview|tasting|call|meeting|viewing|session|inspection|consultation|fitting|demo|"
    r"lesson|trial|tour|chat|check-?up|review|survey|induction|orientation|assessment)s?\b",
    re.I,
)


def another_occasion(text: str, words: Mapping[str, float]) -> bool:
    """Whether ``text`` books a day for an occasion none of a date field's ``words`` names ("I'll
    book an exit interview for Tuesday" for a last working day): that day is not the field's."""
    found = _OCCASION.search(text)
    said = stem(found.group(1).lower()) if found else ""
    return bool(said) and not any(w.startswith(said) for w in words)  # "callback" is a call


# A day of something ending or of another occasion: "my contract ends coming friday"
_ENDS = re.compile(r"\b(?:ends?|ending|finish(?:es)?|expires?|closes?)\b", re.I)


def said_back_writes(
    mention: Mention, share: float, sentence: str, words: Mapping[str, float]
) -> bool:
    """Whether a value the user said that names its field weakly (``share`` of the points a
    field needs) may be written once the agent says it back exactly: an amount at half the
    points; a day at four fifths, and not a day of another occasion or of something ending
    ("my interview is coming monday", "my contract ends friday" for a start date)."""
    if mention.type == "money":
        return share >= 0.5
    if mention.type == "number":  # a reading said with a word of its field ("8,500 a year") —
        said = {stem(w) for w in re.findall(r"[a-z]+", sentence.lower())}  # "8,500 miles."
        return share >= 0.5 and abs(float(mention.value)) >= 100 and bool(said & set(words))
    if mention.type != "date" or share < 0.8 or another_occasion(sentence, words):
        return False
    ending = _ENDS.search(sentence)
    return not ending or any(w.startswith(stem(ending.group(0).lower())[:3]) for w in words)


_MOVE_BAR = 1.5  # points a date needs to replace a different one the field holds, named by nothing


def weakly_moved(
    mention: Mention, why: Mapping[str, object], held: str | None, points: float
) -> bool:
    """Whether a day would replace a different one the field holds on likeness alone: no word
    of the field, no question about it, no word of moving it ("1420 on Saturday's test", for
    an exam held for October: another test's day). A first day for the field needs less."""
    if mention.type != "date" or not held or held[:10] == str(mention.value)[:10]:
        return False
    named = any(
        k in why for k in ("word", "answers", "moved", "repeats proposal", "topic", "state")
    )
    return not named and points < _MOVE_BAR
