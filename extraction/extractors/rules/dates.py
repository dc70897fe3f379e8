"""Every date a turn names, with where it says it: absolute ("12 August 1979", "March 3rd"),
relative to the turn's day ("next Tuesday", "the day after tomorrow", "in two weeks", "the
17th", "end of the month"). Pure: the same text and day give the same dates.
"""

from __future__ import annotations

import calendar
import contextlib
import datetime
import re
from dataclasses import dataclass

from extraction.text import MONTHS, NUMBER_WORDS, WEEKDAYS

_MONTH = "|".join(sorted([m for m in MONTHS] + [m[:3] for m in MONTHS] + ["sept"], key=len,
                         reverse=True))  # fmt: skip
_MONTH_NO = {m: i + 1 for i, m in enumerate(MONTHS)} | {m[:3]: i + 1 for i, m in enumerate(MONTHS)}
_MONTH_NO["sept"] = 9
_DAY = r"(?P<d>[0-3]?\d)(?:st|nd|rd|th)?"
_WEEKDAY = "|".join(WEEKDAYS)
_NUM = r"(?P<n>\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|couple of|few)"
_UNIT = r"(?P<unit>days?|weeks?|fortnights?|months?|years?)"
_NTH = r"first|1st|second|2nd|third|3rd|fourth|4th|last|final"
_NTH_NO = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4,
           "4th": 4, "last": -1, "final": -1}  # fmt: skip
# Ordinals that are not days of a month ("the 3rd floor", "her 5th birthday").
_NOT_A_DAY = r"(?!\s+(?:floor|grade|class|standard|year|time|round|attempt|place|birthday|century|child|kid|one|week|month|day|anniversary)\b)"

_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("iso", re.compile(r"\b(?P<y>\d{4})-(?P<m>\d{2})-(?P<d>\d{2})\b")),
    ("dmy", re.compile(
        rf"\b(?:(?:{_WEEKDAY}),?\s+)?(?:the\s+)?{_DAY}(?:\s+of)?\s+(?P<mon>{_MONTH})\b\.?(?:,?\s+(?P<y>\d{{4}}))?",
        re.I)),
    ("mdy", re.compile(
        rf"\b(?:(?:{_WEEKDAY}),?\s+)?(?P<mon>{_MONTH})\.?(?:,\s+the\s+|\s+(?:the\s+)?){_DAY}\b(?!\s*(?:%|percent|mg|kg|km|am|pm|lakh|k\b))(?:,?\s+(?P<y>\d{{4}}))?",
        re.I)),
    ("numeric", re.compile(r"\b(?P<d>[0-3]?\d)/(?P<m>[01]?\d)/(?P<y>\d{4})\b")),
    ("simple", re.compile(
        r"\b(?P<w>the day after tomorrow|the day before yesterday|day after tomorrow|day before yesterday|"
        r"yesterday|today|tonight|tomorrow|this morning|this evening|this afternoon|last night|"
        r"tomorrow morning|tomorrow evening)\b", re.I)),
    ("ago", re.compile(rf"\b{_NUM}\s+{_UNIT}\s+ago\b", re.I)),
    ("in", re.compile(rf"\b(?:in|within)\s+{_NUM}\s+{_UNIT}(?:'?\s*time)?\b", re.I)),
    ("in", re.compile(rf"\b(?:in\s+)?{_NUM}\s+{_UNIT}\s+from\s+(?:now|today)\b", re.I)),
    ("weekday", re.compile(
        rf"\b(?:(?P<which>next|last|this|coming|on|by|until|till|from)\s+)?(?P<wd>{_WEEKDAY})\b(?:\s+(?P<next>next week|after next))?", re.I)),
    ("weekon", re.compile(rf"\ba (?P<span>week|fortnight) (?:on|from|this|come) (?P<wd>{_WEEKDAY})\b|\b(?P<wd2>{_WEEKDAY}) week\b|\ba week (?P<rel>tomorrow|today)\b|\b(?P<rel2>tomorrow) week\b", re.I)),
    ("period", re.compile(
        r"\b(?P<which>next|last|this|coming)\s+(?P<what>week|weekend|month|year)\b", re.I)),
    ("end", re.compile(
        r"\b(?P<edge>end|beginning|start|middle)\s+of\s+(?:the\s+|this\s+)?(?P<nx>next\s+)?(?P<what>month|week|year)\b", re.I)),
    ("mid", re.compile(rf"\b(?P<edge>mid|early|end|late|beginning of|start of|end of)[\s-]+(?P<mon>{_MONTH})\b", re.I)),
    ("month", re.compile(rf"\b(?:in|by|next|this|from|until|till|around|for)\s+(?P<mon>{_MONTH})\b(?!\s+\d)(?!\s+(?-i:[A-Z][a-z]))(?:\s+(?P<y>\d{{4}}))?", re.I)),
    ("ordinal", re.compile(rf"\b(?:on\s+|by\s+|for\s+|until\s+|till\s+|from\s+)?(?:(?P<wd>{_WEEKDAY})\s+)?(?:the\s+)?(?P<d>[0-3]?\d)(?:st|nd|rd|th)\b{_NOT_A_DAY}(?:\s+(?:of\s+)?(?P<nx>next month|this month))?", re.I)),
    # "the last Saturday of August", "the second Tuesday in May", "the first weekend of June"
    ("nth", re.compile(rf"\b(?:the\s+)?(?P<nth>{_NTH})\s+(?P<wd>{_WEEKDAY}|weekend)\s+(?:of|in)\s+(?:(?P<mon>{_MONTH})\b(?:\s+(?P<y>\d{{4}}))?|(?:the\s+|this\s+)?(?P<nx>next\s+)?month\b)", re.I)),
    # "two weeks from tomorrow", "three days after Monday"
    ("from", re.compile(rf"\b{_NUM}\s+{_UNIT}\s+(?:from|after)\s+(?P<base>tomorrow|(?:next\s+)?(?P<wd>{_WEEKDAY}))\b", re.I)),
]  # fmt: skip


@dataclass(frozen=True)
class DateMention:
    day: datetime.date
    start: int
    end: int
    phrase: str
    relative: bool
    kind: str = ""


def _number(word: str) -> int:
    word = word.lower()
    return int(word) if word.isdigit() else NUMBER_WORDS.get(word, 1)


def shift(day: datetime.date, amount: int, unit: str) -> datetime.date:
    unit = unit.lower().rstrip("s")
    if unit == "day":
        return day + datetime.timedelta(days=amount)
    if unit in ("week", "fortnight"):
        return day + datetime.timedelta(weeks=amount * (2 if unit == "fortnight" else 1))
    months = day.month - 1 + (amount if unit == "month" else amount * 12)
    year, month = day.year + months // 12, months % 12 + 1
    return datetime.date(year, month, min(day.day, calendar.monthrange(year, month)[1]))


def _year_for(month: int, day: int, today: datetime.date, given: str | None) -> int:
    """A date said without its year lies in the year that makes it nearest to the turn, ahead
    rather than behind by more than two months ("in January" said in November: next year)."""
    if given:
        return int(given)
    try:
        candidate = datetime.date(today.year, month, day)
    except ValueError:
        return today.year
    if (today - candidate).days > 62:
        return today.year + 1
    return today.year


def _resolve(kind: str, m: re.Match[str], today: datetime.date) -> datetime.date | None:
    g = m.groupdict()
    if kind == "iso":
        return datetime.date(int(g["y"]), int(g["m"]), int(g["d"]))
    if kind == "numeric":
        return datetime.date(int(g["y"]), int(g["m"]), int(g["d"]))
    if kind in ("dmy", "mdy"):
        month, day = _MONTH_NO[g["mon"].lower()], int(g["d"])
        return datetime.date(_year_for(month, day, today, g.get("y")), month, day)
    if kind == "simple":
        word = g["w"].lower().removeprefix("the ")
        offset = {"yesterday": -1, "last night": -1, "tomorrow": 1, "tomorrow morning": 1,
                  "tomorrow evening": 1, "day after tomorrow": 2, "day before yesterday": -2}.get(word, 0)  # fmt: skip
        return today + datetime.timedelta(days=offset)
    if kind == "ago":
        return shift(today, -_number(g["n"]), g["unit"])
    if kind == "in":
        return shift(today, _number(g["n"]), g["unit"])
    if kind == "weekday":
        which = (g["which"] or "").lower()
        delta = (WEEKDAYS.index(g["wd"].lower()) - today.weekday()) % 7
        if which == "last":
            delta = delta - 7 if delta > 0 else -7
        elif delta == 0 and which != "this":
            delta = 7
        if g["next"] == "next week":  # "Tuesday next week": that day of the coming week
            monday = today - datetime.timedelta(days=today.weekday()) + datetime.timedelta(weeks=1)
            return monday + datetime.timedelta(days=WEEKDAYS.index(g["wd"].lower()))
        if g["next"]:
            delta += 7
        return today + datetime.timedelta(days=delta)
    if kind == "weekon" and (g["rel"] or g["rel2"]):  # "a week tomorrow": tomorrow's day next week
        return today + datetime.timedelta(days=7 + ((g["rel"] or g["rel2"]).lower() == "tomorrow"))
    if kind == "weekon":  # "a week on Saturday", "Saturday week": the Saturday after next
        return _next_weekday(today, g["wd"] or g["wd2"]) + datetime.timedelta(
            days=14 if g["span"] == "fortnight" else 7
        )
    if kind == "period":
        step = _STEP[g["which"].lower()]
        what = g["what"].lower()
        if what in ("week", "weekend"):
            monday = (
                today - datetime.timedelta(days=today.weekday()) + datetime.timedelta(weeks=step)
            )
            return monday + datetime.timedelta(days=5 if what == "weekend" else 0)
        if what == "month":
            return shift(today.replace(day=1), step, "month")
        return None  # "a promotion last year": a year names no day
    if kind == "end":
        what, edge = g["what"].lower(), g["edge"].lower()
        base = today if not g["nx"] else shift(today, 1, what)
        if what == "month":
            last = calendar.monthrange(base.year, base.month)[1]
            day = {"end": last, "middle": 15}.get(edge, 1)
            return base.replace(day=day)
        if what == "week":
            monday = base - datetime.timedelta(days=base.weekday())
            return monday + datetime.timedelta(days={"end": 4, "middle": 2}.get(edge, 0))
        return datetime.date(
            base.year, {"end": 12, "middle": 6}.get(edge, 1), {"end": 31}.get(edge, 1)
        )
    if kind == "mid":
        month = _MONTH_NO[g["mon"].lower()]
        edge = g["edge"].lower()
        year = _year_for(month, 1, today, None)
        last = calendar.monthrange(year, month)[1]
        day = 15 if edge == "mid" else last if edge in ("end", "end of", "late") else 1
        return datetime.date(year, month, day)
    if kind == "month":
        month = _MONTH_NO[g["mon"].lower()]
        return datetime.date(_year_for(month, 1, today, g.get("y")), month, 1)
    if kind == "nth":
        return _nth(g, today)
    if kind == "from":
        base = _next_weekday(today, g["wd"]) if g["wd"] else today + datetime.timedelta(days=1)
        return shift(base, _number(g["n"]), g["unit"])
    if kind == "ordinal":
        day = int(g["d"])
        if not 1 <= day <= 31:
            return None
        if g["wd"] and not g["nx"]:  # "Friday the 27th": the next 27th that is a Friday
            found = _weekday_the(WEEKDAYS.index(g["wd"].lower()), day, today)
            if found is not None:
                return found
        year, month = today.year, today.month
        said = (g.get("nx") or "").lower()
        if said == "next month" or (not said and day < today.day):
            year, month = (year + 1, 1) if month == 12 else (year, month + 1)
        return datetime.date(year, month, min(day, calendar.monthrange(year, month)[1]))
    return None


def _next_weekday(today: datetime.date, name: str) -> datetime.date:
    """The next day named ``name`` after today (a week on when today is that day)."""
    return today + datetime.timedelta(
        days=(WEEKDAYS.index(name.lower()) - today.weekday()) % 7 or 7
    )


def _nth(g: dict[str, str | None], today: datetime.date) -> datetime.date | None:
    """ "The last Saturday of August": that weekday's nth (or last) day in the month; a
    weekend is its Saturday."""
    if g["mon"]:
        month = _MONTH_NO[g["mon"].lower()]
        year = _year_for(month, 28, today, g.get("y"))
    else:
        base = shift(today.replace(day=1), 1 if g["nx"] else 0, "month")
        year, month = base.year, base.month
    wanted = 5 if (g["wd"] or "").lower() == "weekend" else WEEKDAYS.index((g["wd"] or "").lower())
    days = [d for d in range(1, calendar.monthrange(year, month)[1] + 1)
            if datetime.date(year, month, d).weekday() == wanted]  # fmt: skip
    which = _NTH_NO[(g["nth"] or "").lower()]
    return datetime.date(year, month, days[which if which < 0 else which - 1])


def _weekday_the(weekday: int, day: int, today: datetime.date) -> datetime.date | None:
    """The day numbered ``day`` that falls on ``weekday``: the next one within three months,
    else one gone by within two weeks ("Saturday the 6th" of a leak three days ago); None when
    neither (the weekday was misspoken: the plain day of the month stands)."""
    found = []
    for offset in range(-1, 4):
        month0 = today.month - 1 + offset
        with contextlib.suppress(ValueError):
            candidate = datetime.date(today.year + month0 // 12, month0 % 12 + 1, day)
            if candidate.weekday() == weekday:
                found.append(candidate)
    ahead = [c for c in found if 0 <= (c - today).days <= 92]
    behind = [c for c in found if 0 < (today - c).days <= 14]
    return ahead[0] if ahead else (behind[-1] if behind else None)


def dates_in(text: str, today: datetime.date) -> list[DateMention]:
    """Every date ``text`` names, in order; where phrases overlap the longest wins ("in two
    weeks from today" is one date, not two), then the absolute one."""
    candidates = []
    for priority, (kind, pattern) in enumerate(_PATTERNS):
        for match in pattern.finditer(text):
            candidates.append((match.end() - match.start(), -priority, kind, match))
    found: list[DateMention] = []
    weekdays = [c[3] for c in candidates if c[2] == "weekday"]
    for _, _, kind, match in sorted(candidates, key=lambda c: (-c[0], -c[1])):
        if kind == "weekday" and (_recurring(match, text) or len(weekdays) > 2):
            continue  # "Tuesdays", "Tuesday, Thursday, Sunday": a schedule, not a date
        if (
            kind == "in"
            and _PER.search(text, 0, match.start())
            and match.group(0)[:2].lower() == "a "
        ):
            continue  # "2 lessons a week from now": how often, not a date
        start, end = match.span()
        if any(start < f.end and f.start < end for f in found):
            continue
        try:
            day = _resolve(kind, match, today)
        except (ValueError, KeyError):
            continue
        if (day is not None and kind == "nth" and day < today and match.group("mon")
                and not match.group("y") and not _told_past(text, start)
                and not _PAST_AFTER.match(text, end)):  # fmt: skip  # "… of May the router died"
            day = _nth({**match.groupdict(), "y": str(day.year + 1)}, today)  # "June, like always"
        if day is not None and kind == "weekday" and _in_the_past(match, text):
            day -= datetime.timedelta(days=7)  # "they changed it on Friday night": the last one
        wd = (match.groupdict().get("wd") or "").lower()
        if (day is not None and kind == "weekday" and (match.group("which") or "").lower() == "next"
                and day - today < datetime.timedelta(days=7) and re.search(rf"\bthis {wd}\b", text, re.I)):  # fmt: skip
            day += datetime.timedelta(days=7)  # "Not this Friday … next Friday": the one after
        if kind == "period" and _VAGUE.search(text):
            continue  # "might be next week sometime": no day
        if (day is not None and kind == "ordinal" and day > today
                and not match.groupdict().get("nx") and _told_past(text, match.start())):  # fmt: skip
            day = _month_before(day, int(match.group("d")))  # "was done on the 17th": this month's
        if (day is not None and day > today and kind in ("mdy", "month")
                and not match.groupdict().get("y") and (_BACK.search(text, 0, start) or _told_past(text, start))):  # fmt: skip
            day = day.replace(year=day.year - 1)  # "back in February", "I moved to York in March"
        said_year = _SAID_YEAR.match(text, end)  # "the 3rd of March next year"
        if (day is not None and said_year and kind in ("dmy", "mdy", "month", "mid", "ordinal")
                and not match.groupdict().get("y")):  # fmt: skip
            day = shift(day, today.year + _STEP[said_year.group(1).lower()] - day.year, "year")
        if day is not None:
            relative = kind not in ("iso", "dmy", "mdy", "numeric")
            found.append(DateMention(day, start, end, match.group(0), relative, kind))
    if any(f.kind in ("dmy", "mdy", "iso", "numeric", "ordinal") for f in found):
        # "The 14th, that Monday": the day of the month says it; a bare weekday only agrees
        found = [f for f in found if not (f.kind == "weekday" and (f.phrase.lower() in WEEKDAYS or any(
            o.kind in ("ordinal", "dmy", "mdy") and 0 <= o.start - f.end <= 2 for o in found)))]  # fmt: skip
    return _in_month_said(sorted(found, key=lambda f: f.start))


_VAGUE = re.compile(r"\bsome ?time\b|\bat some point\b|\bat some stage\b", re.I)
_SAID_YEAR = re.compile(r",?\s+(next|last|this) year\b", re.I)
_STEP = {"last": -1, "next": 1, "coming": 1, "this": 0}
_PER = re.compile(r"\b(?:\d+|one|two|three|four|five|six|seven)\s+[a-z]+\s+$", re.I)
# "back in February": gone by (not "I'll be back in June", "coming back in May")
_BACK = re.compile(
    r"(?<!\bbe )(?<!\bcome )(?<!\bcoming )(?<!\bget )(?<!\bgetting )(?<!\bgo )(?<!\bgoing )"
    r"\bback\s*(?:in)?\s*$",
    re.I,
)
_PAST_VERBS = (
    r"was|were|did|had|went|came|got|left|saw|told|said|sent|paid|bought|broke|fell|took|died|"
    r"\w{3,}ed"
)
_PAST_VERB = re.compile(rf"\b(?:{_PAST_VERBS})\b", re.I)
_PAST_AFTER = re.compile(
    rf"\s*,?\s+(?:\w+\s+){{0,3}}?(?:{_PAST_VERBS})\b", re.I
)  # "… the router died"
_NOT_PAST = re.compile(
    r"\b(?:will|'ll|going to|gonna|shall|can|could|would|should|next|coming|plan\w*|want\w*|need\w*|"
    r"let's|please|book\w*|schedul\w*|arrang\w*|expect\w*|hope\w*|to|for|until|till|by|have|has|"
    r"'ve|i'm|we're|is|are)\b",
    re.I,
)


def _in_the_past(match: re.Match[str], text: str) -> bool:
    """ "The team changed the timeout on Friday night", said on a Tuesday: a weekday told of in
    the simple past is the one gone by, not the next ("I've booked you on Friday" is ahead)."""
    if (match.group("which") or "on").lower() != "on" or match.group("next"):
        return False  # "The storm on Sunday night ripped the tiles off": its verb after it
    return _told_past(text, match.start()) or bool(_PAST_NEXT.match(text, match.end()))


_PAST_NEXT = re.compile(rf"\s+(?:(?:night|morning|afternoon|evening)\s+)?(?:{_PAST_VERBS})\b", re.I)


def _told_past(text: str, at: int) -> bool:
    """Whether the date at ``at`` is told in the simple past ("It was delivered on …"): its
    sentence is, and the past verb governs it, a few words before it with nothing between
    ("Your induction was moved, it's now on the 24th" is ahead)."""
    start = max(text.rfind(".", 0, at), text.rfind("?", 0, at), text.rfind("!", 0, at)) + 1
    before = text[start:at]
    verbs = list(_PAST_VERB.finditer(before))
    if not verbs or _NOT_PAST.search(before):
        return False
    between = before[verbs[-1].end() :]
    return len(between.split()) <= 3 and not re.search(
        r"[,;:\u2013\u2014-]|\b(?:now|it's|it is)\b", between, re.I
    )


def _month_before(day: datetime.date, said: int) -> datetime.date:
    """The last day numbered ``said`` before ``day``'s month ("the 31st" on 5 March: 31 January)."""
    year, month = day.year, day.month
    while True:
        year, month = (year - 1, 12) if month == 1 else (year, month - 1)
        if said <= calendar.monthrange(year, month)[1]:
            return datetime.date(year, month, said)


def _in_month_said(found: list[DateMention]) -> list[DateMention]:
    """ "Leaving the 10th of April, back on the 19th": a bare day after a dated one is in its
    month (or the next, if it falls before it)."""
    out: list[DateMention] = []
    for mention in found:
        anchor = next((f for f in reversed(out) if f.kind in ("dmy", "mdy", "iso", "nth")), None)
        if (
            mention.kind == "ordinal"
            and anchor is not None
            and "month" not in mention.phrase.lower()
        ):
            day = int(re.search(r"\d+", mention.phrase).group(0))  # type: ignore[union-attr]
            year, month = anchor.day.year, anchor.day.month
            if day < anchor.day.day:
                year, month = (year + 1, 1) if month == 12 else (year, month + 1)
            with contextlib.suppress(ValueError):  # "the 31st" of a month without one
                mention = DateMention(datetime.date(year, month, day), mention.start, mention.end,
                                      mention.phrase, True, mention.kind)  # fmt: skip
        out.append(mention)
    return out


def _recurring(match: re.Match[str], text: str) -> bool:
    return text[match.end() : match.end() + 1].lower() == "s" or bool(
        re.search(r"\b(every|each|on)\s+$", text[: match.start()].lower())
        and text[match.end() : match.end() + 1] == "s"
    )
