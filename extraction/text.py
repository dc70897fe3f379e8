"""Pure text helpers for the rules extractor: sentences, questions, hedges, pronouns, dates.

No ORM, no I/O. Everything here is deterministic: the same turn and date give the same output.
"""

from __future__ import annotations

import datetime
import re

from core.text import sentences

QUESTION_START = re.compile(
    r"^(what|when|where|who|whom|whose|which|why|how|do|does|did|is|are|was|were|can|could|"
    r"would|will|shall|should|may|might|have|has|had|am)\b",
    re.IGNORECASE,
)
HEDGES = re.compile(
    r"\b(i think|i guess|i suppose|i believe|maybe|perhaps|probably|possibly|might|not sure|"
    r"i'm not sure|kind of|sort of|thinking about|considering|likely)\b",
    re.IGNORECASE,
)
AFFIRM = re.compile(
    r"^\W*(yes|yeah|yep|yup|correct|exactly|right|that's right|that is right|sure|absolutely|"
    r"indeed|definitely)\b",
    re.IGNORECASE,
)
FILLER = re.compile(
    r"^\W*(thanks|thank you|thx|bye|goodbye|ok|okay|cool|great|nice|wow|haha|lol|hi|hello|hey|"
    r"sure|yes|no|yeah|nope|awesome|good night|see you|take care)\W*$",
    re.IGNORECASE,
)

WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august",
          "september", "october", "november", "december"]  # fmt: skip
MONTH_ABBR = {m[:3]: i + 1 for i, m in enumerate(MONTHS)} | {"sept": 9}
NUMBER_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
                "seven": 7, "eight": 8, "nine": 9, "ten": 10, "couple of": 2, "few": 3,
                "a couple of": 2, "a few": 3}  # fmt: skip


# A farewell or thanks that ends an exchange, and the pleasantries said with it ("No worries,
# Joanna. Hope you enjoy it!", "Cheers! I owe you one. Bye!"). Not "ok", "sure" or "yes": those
# answer something (an acceptance is what the next session most needs to see).
_FAREWELL = re.compile(
    r"\b(bye|goodbye|good night|take care|take it easy|see you|see ya|talk (to you )?(soon|later)|"
    r"catch you later|speak soon|thanks|thank you|thx|cheers|no worries|no problem|you're welcome|"
    r"my pleasure|anytime|(great|nice|good|lovely) (catching up|chatting|talking|to hear from you)|"
    r"have a (good|great|nice|lovely) \w+)\b",
    re.IGNORECASE,
)
_PLEASANTRY = re.compile(
    r"^\W*(?:[\w']+,?\s+){0,3}?(?:hope you (enjoy|have|like|feel)|i owe you( one)?|let me know if "
    r"you need|that's the spirit|you too|same to you|will do|all the best|have fun|enjoy|"
    r"it was (great|nice|good|lovely))\b",
    re.IGNORECASE,
)


def is_closing(text: str) -> bool:
    """Whether a turn only closes the exchange: a farewell or thanks, and nothing in it but
    pleasantries (no question, no figure, no more than a few words besides)."""
    said = sentences(re.sub(r"\[[^\]]*\]", "", text))
    if not said or not any(_FAREWELL.search(s) for s in said) or re.search(r"\d|\?", text):
        return False
    return all(
        (_PLEASANTRY.match(s) and len(re.findall(r"\w+", s)) <= 10) or _only_farewell(s)
        for s in said
    )


def _only_farewell(sentence: str) -> bool:
    """A farewell with at most four words besides, each a name or a word of thanks ("Great,
    thanks!", "Thanks so much for your help, Asha!"; not "Yes please, thanks", not "Thanks, that
    works", not "Thanks, I'll take the blue one")."""
    rest = _FAREWELL.sub(" ", sentence)
    words = re.findall(r"[\w']+", rest)
    return (
        rest != sentence
        and len(words) <= 4
        and all(
            w.lower() in _THANKS_WORDS or (w[0].isupper() and w.lower() not in _ANSWERS)
            for w in words
        )
    )


_THANKS_WORDS = frozenset(
    re.findall(r"\w+", "so much very again a lot for your the all help time everything today "
               "really great awesome perfect lovely cool nice oh well alright yea")
)  # fmt: skip
_ANSWERS = frozenset(
    re.findall(r"\w+", "i yes yeah yep sure ok okay no nope fine please right correct exactly")
)


def is_question(sentence: str) -> bool:
    stripped = sentence.strip()
    return stripped.endswith("?") or bool(QUESTION_START.match(stripped) and "?" in stripped)


def is_hedged(sentence: str) -> bool:
    return bool(HEDGES.search(sentence))


def is_affirmation(text: str) -> bool:
    return bool(AFFIRM.match(text.strip()))


def is_filler(sentence: str) -> bool:
    return bool(FILLER.match(sentence.strip())) or len(re.findall(r"\w+", sentence)) < 3


# --- Dates ----------------------------------------------------------------------------------


def format_date(day: datetime.date) -> str:
    return f"{day.day} {MONTHS[day.month - 1].capitalize()} {day.year}"


def _number(word: str) -> int | None:
    word = word.lower()
    if word.isdigit():
        return int(word)
    # "several" counts only in a relative date: as a number word it would make "several
    # people" three guests
    return 3 if word == "several" else NUMBER_WORDS.get(word)


# "a few" and "a couple of" before "a": else "a few years ago" kept its "a" ("a around …").
_NUM = r"(\d+|a couple of|a few|couple of|few|several|a|an|one|two|three|four|five|six|seven|eight|nine|ten)"
_UNIT = r"(day|days|week|weeks|month|months|year|years)"
RELATIVE = re.compile(
    r"\b(?:(?P<simple>yesterday|today|tonight|tomorrow|this morning|this evening|this afternoon|"
    r"the day before yesterday|the day after tomorrow)"
    rf"|(?P<ago>{_NUM} {_UNIT} ago)"
    rf"|(?P<in>in {_NUM} {_UNIT})"
    r"|(?P<lastnext>(?:last|next|this|coming) (?:week|weekend|month|year|"
    + "|".join(WEEKDAYS)
    + r")))\b",
    re.IGNORECASE,
)


def _shift(day: datetime.date, amount: int, unit: str) -> datetime.date:
    unit = unit.rstrip("s")
    if unit == "day":
        return day + datetime.timedelta(days=amount)
    if unit == "week":
        return day + datetime.timedelta(weeks=amount)
    month = day.month - 1 + (amount if unit == "month" else amount * 12)
    year = day.year + month // 12
    month = month % 12 + 1
    last = [31, 29 if year % 4 == 0 and (year % 100 or year % 400 == 0) else 28, 31, 30, 31, 30,
            31, 31, 30, 31, 30, 31][month - 1]  # fmt: skip
    return datetime.date(year, month, min(day.day, last))


def _as_precise_as(day: datetime.date, unit: str) -> str:
    """A day counted in months or years is no more precise than its month or year: "two years
    ago" is around 2021, not around 6 March 2021."""
    if unit.startswith("year"):
        return str(day.year)
    if unit.startswith("month"):
        return f"{MONTHS[day.month - 1].capitalize()} {day.year}"
    return format_date(day)


def resolve_relative(phrase: str, today: datetime.date) -> tuple[datetime.date, str]:
    """A relative date phrase → (the date it points at, how to say it absolutely)."""
    lowered = phrase.lower()
    simple = {
        "yesterday": -1, "today": 0, "tonight": 0, "tomorrow": 1, "this morning": 0,
        "this evening": 0, "this afternoon": 0, "the day before yesterday": -2,
        "the day after tomorrow": 2,
    }  # fmt: skip
    if lowered in simple:
        day = today + datetime.timedelta(days=simple[lowered])
        return day, f"on {format_date(day)}"
    match = re.fullmatch(rf"{_NUM} {_UNIT} ago", lowered) or re.fullmatch(
        rf"in {_NUM} {_UNIT}", lowered
    )
    if match:
        sign = -1 if lowered.endswith(" ago") else 1
        day = _shift(today, sign * (_number(match.group(1)) or 1), match.group(2))
        return day, f"around {_as_precise_as(day, match.group(2))}"
    which, _, what = lowered.partition(" ")
    if what in WEEKDAYS:
        target = WEEKDAYS.index(what)
        delta = (target - today.weekday()) % 7
        if which == "last":
            delta = delta - 7 if delta > 0 else -7
        elif which in ("next", "coming"):
            delta = delta if delta > 0 else 7
        day = today + datetime.timedelta(days=delta)
        return day, f"on {format_date(day)}"
    step = {"last": -1, "next": 1, "coming": 1, "this": 0}[which]
    if what in ("week", "weekend"):
        monday = today - datetime.timedelta(days=today.weekday()) + datetime.timedelta(weeks=step)
        if what == "weekend":
            day = monday + datetime.timedelta(days=5)
            return day, f"the weekend of {format_date(day)}"
        return monday, f"the week of {format_date(monday)}"
    if what == "month":
        day = _shift(today.replace(day=1), step, "month")
        return day, f"in {MONTHS[day.month - 1].capitalize()} {day.year}"
    day = datetime.date(today.year + step, 1, 1)
    return day, f"in {day.year}"


VAGUE = {
    "recently": "shortly before {d}", "lately": "in the weeks before {d}", "soon": "soon after {d}",
    "currently": "as of {d}", "nowadays": "as of {d}", "these days": "as of {d}",
}  # fmt: skip
# "as soon as" is a conjunction, not a time: leave it alone.
_VAGUE = re.compile(
    r"\b(recently|lately|(?<!as )soon(?! as\b)|currently|nowadays|these days)\b", re.IGNORECASE
)


def absolutise(text: str, today: datetime.date) -> str:
    """Replace relative date phrases with absolute ones ("yesterday" → "on 7 May 2023")."""
    text = RELATIVE.sub(lambda m: resolve_relative(m.group(0), today)[1], text)
    return _VAGUE.sub(lambda m: VAGUE[m.group(0).lower()].format(d=format_date(today)), text)


ABSOLUTE_DATE = re.compile(
    r"\b(?:(?P<iso>\d{4}-\d{2}-\d{2})"
    r"|(?P<dmy>\d{1,2})(?:st|nd|rd|th)? (?:of )?(?P<month1>"
    + "|".join(m[:3] for m in MONTHS)
    + r")[a-z]*(?:,? (?P<year1>\d{4}))?"
    r"|(?P<month2>"
    + "|".join(m[:3] for m in MONTHS)
    + r")[a-z]* (?P<mdy>\d{1,2})(?:st|nd|rd|th)?(?:,? (?P<year2>\d{4}))?)\b",
    re.IGNORECASE,
)


def find_date(text: str, today: datetime.date) -> datetime.date | None:
    """The first date a sentence names, absolute or relative."""
    match = ABSOLUTE_DATE.search(text)
    if match:
        try:
            if match.group("iso"):
                return datetime.date.fromisoformat(match.group("iso"))
            if match.group("dmy"):
                month = MONTH_ABBR[match.group("month1").lower()[:3]]
                return datetime.date(
                    int(match.group("year1") or today.year), month, int(match.group("dmy"))
                )
            month = MONTH_ABBR[match.group("month2").lower()[:3]]
            return datetime.date(
                int(match.group("year2") or today.year), month, int(match.group("mdy"))
            )
        except ValueError:
            pass
    relative = RELATIVE.search(text)
    if relative:
        return resolve_relative(relative.group(0), today)[0]
    match = re.search(r"\b(?:in|by|next|this) (" + "|".join(MONTHS) + r")\b", text, re.IGNORECASE)
    if match:
        month = MONTHS.index(match.group(1).lower()) + 1
        year = today.year if month >= today.month else today.year + 1
        return datetime.date(year, month, 1)
    return None


# --- Pronouns -------------------------------------------------------------------------------

FIRST_PERSON = {"i": "{me}", "me": "{me}", "my": "{me}'s", "mine": "{me}'s", "myself": "{me}",
                "i'm": "{me} is", "i've": "{me} has", "i'll": "{me} will", "i'd": "{me} would"}  # fmt: skip
SECOND_PERSON = {"you": "{you}", "your": "{you}'s", "yours": "{you}'s", "yourself": "{you}",
                 "you're": "{you} is", "you've": "{you} has", "you'll": "{you} will", "you'd": "{you} would"}  # fmt: skip
PLURAL_FIRST = {"we": "{me} and others", "us": "{me} and others", "our": "{me}'s", "ours": "{me}'s",
                "we're": "{me} and others are", "we've": "{me} and others have", "ourselves": "{me} and others"}  # fmt: skip
PRONOUN = re.compile(
    r"\b("
    + "|".join(
        re.escape(w)
        for w in sorted({**FIRST_PERSON, **SECOND_PERSON, **PLURAL_FIRST}, key=len, reverse=True)
    )
    + r")\b",
    re.IGNORECASE,
)


def resolve_pronouns(text: str, *, speaker: str, listener: str) -> str:
    """First and second person → names ("I" → the speaker, "you" → the listener)."""

    def swap(match: re.Match[str]) -> str:
        word = match.group(0).lower().replace("\u2019", "'")
        template = FIRST_PERSON.get(word) or SECOND_PERSON.get(word) or PLURAL_FIRST.get(word, word)
        return template.replace("{me}", "\x01").replace("{you}", "\x02")

    out = PRONOUN.sub(swap, text.replace("\u2019", "'"))
    out = re.sub("\x01 am\\b", "\x01 is", out)
    out = re.sub("\x02 are\\b", "\x02 is", out)
    out = re.sub("\x01 and others is\\b", "\x01 and others are", out)
    out = _THIRD_PERSON.sub(lambda m: m.group(1) + " " + _conjugate(m.group(2)), out)
    out = out.replace("\x01", speaker).replace("\x02", listener)
    return out[:1].upper() + out[1:]


# After "I" becomes a name the verb must agree: "Priya have" → "Priya has".
_IRREGULAR = {"have": "has", "do": "does", "don't": "doesn't", "am": "is", "are": "is",
              "were": "was", "haven't": "hasn't", "go": "goes"}  # fmt: skip
_REGULAR = set(
    [
        "want",
        "think",
        "like",
        "love",
        "need",
        "live",
        "work",
        "feel",
        "know",
        "hope",
        "plan",
        "guess",
        "believe",
        "enjoy",
        "prefer",
        "wish",
        "mean",
        "see",
        "hate",
        "miss",
        "remember",
        "try",
        "paint",
        "play",
        "read",
        "write",
        "cook",
        "run",
        "walk",
        "visit",
        "own",
        "drive",
        "teach",
        "study",
        "volunteer",
        "agree",
        "get",
        "make",
        "take",
        "keep",
        "find",
        "use",
        "call",
    ]
)
_THIRD_PERSON = re.compile("([\x01\x02]) ([a-z']+)\\b")


def _conjugate(verb: str) -> str:
    if verb in _IRREGULAR:
        return _IRREGULAR[verb]
    if verb in _REGULAR:
        return verb + ("es" if verb.endswith(("s", "sh", "ch", "o")) else "s")
    return verb
