"""Typed values in a sentence, each with its span: money, numbers, dates and enum choices. A
span holds one value: a date's day or a money amount is not also a number."""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass
from typing import Any

from extraction.extractors.rules.amounts import Amount, money_in, numbers_in
from extraction.extractors.rules.choices import said_choices, turned_down
from extraction.extractors.rules.dates import dates_in
from extraction.extractors.rules.fields import GENERIC, Profile, cue_score, stem
from extraction.extractors.rules.states import hoped, is_status, said_states, unsure
from extraction.values import names_a_code

BHK = re.compile(r"\b(\d+)\s?-?\s?(bhk|bed(room)?s?|br)\b", re.I)


BARE = "a bare amount where money was asked"


@dataclass(frozen=True)
class Mention:
    type: str
    value: Any
    start: int
    end: int
    how: str
    after: str = ""  # the words right after a number ("days", "of us")
    sentence: str = ""  # where an agent's proposal was said (its qualifier is looked for there)


def _overlaps(start: int, end: int, taken: list[tuple[int, int]]) -> bool:
    return any(start < b and a < end for a, b in taken)


def choice_words(choice: str) -> list[str]:
    return [stem(w) for w in re.findall(r"[a-z0-9]+", choice.lower())]


def _apart(word: str) -> str:
    """A choice's word as written whole or in two ("pickup", "pick up", "pick-up")."""
    if len(word) < 5 or not word.isalpha():
        return re.escape(word)
    return (
        "(?:"
        + "|".join(
            re.escape(word[:i]) + r"[\s-]?" + re.escape(word[i:]) for i in range(2, len(word) - 1)
        )
        + ")"
    )


_INDIFFERENT = re.compile(
    r"\b(?:don't mind|do not mind|doesn't matter|does not matter|either (?:is|works|way|one)|"
    r"whichever|no preference|not fussed|any is fine|anything is fine)\b"
)
_BARE_NO = re.compile(
    r"\W*(?:no|nope|nah|none|not really|no,? (?:i|we) (?:don't|do not)(?: have (?:one|any))?)"
    r"(?:,? (?:thanks|thank you|sorry))?\W*$"
)
A_BARE_NO = "a bare no:"
# A question whether the user has the thing at all ("Do you have pet insurance?", "Any
# allergies?"), which a bare no answers with "none"; not "Are you happy on basic cover?"
_HAVING = re.compile(
    r"\b(?:(?:do|does) (?:you|he|she|they|it) have|have (?:you|they|he|she) got|is there|are there|"
    r"any)\b",
    re.I,
)


def asks_having(question: str) -> bool:
    return bool(_HAVING.search(question))


_NONE_CHOICE = re.compile(r"none|no|nothing|not applicable|n/?a|no \w+")
_INDIFFERENT_CHOICE = re.compile(r"\b(?:no preference|either|any|flexible|no pref)\b", re.I)


# "call me Olu": how someone is named, not a phone call
_NAMING = re.compile(r"\bcall (?:me|him|her|us)\s+(?-i:[A-Z])", re.I)


# Nouns a one-word choice stands before as another thing's adjective, never as the choice:
# "email address", "phone number", "cash machine", "standard procedure", "basic question".
_COMPOUND = re.compile(
    r"address(?:es)?|numbers?|machines?|procedures?|practice|questions?|names?|details|forms?|"
    r"ids?|codes?|passwords?|logins?|receipts?|statements?"
)


def _of_another(lowered: str, end: int, profile: Profile) -> bool:
    """Whether a one-word choice stands before a noun of something else, as its adjective:
    "standard procedure", "email address", "cash machine" (not "a large flat white")."""
    after = re.match(r"\s+([a-z]{3,})\b", lowered[end:])
    if not after or is_status(profile):
        return False
    word = after.group(1)
    return bool(_COMPOUND.fullmatch(word)) and stem(word) not in profile.words


def enum_mentions(sentence: str, profile: Profile) -> list[Mention]:
    """Choices of an enum field named in the sentence: the whole choice ("ready to move"), or a
    word only that choice has ("the 599 plan", "unlimited")."""
    lowered = sentence.lower().replace("-", " ")
    choices = [str(c) for c in profile.field.get("choices") or []]
    words = {c: choice_words(c) for c in choices}
    out: list[Mention] = []
    for choice in choices:
        # word by word, and a word may be written apart ("pick up" for "pickup"); an article
        # may come between ("on the waiting list" for "on waiting list")
        pattern = (
            r"\b"
            + r"\W+(?:(?:the|a|an|my|your|our|their|his|her)\W+)?".join(
                _apart(w) for w in re.findall(r"[a-z0-9]+", choice.lower())
            )
            + r"(?:s|es)?\b"
        )
        match = re.search(pattern, lowered)
        if len(re.sub(r"\W", "", choice)) <= 1:  # "A*", "B": as written, not "a" nor "as"
            match = re.search(rf"(?<![\w*+]){re.escape(choice)}(?![\w*+])", sentence)
        if match and " " not in choice.strip() and _of_another(lowered, match.end(), profile):
            continue  # "standard procedure", "email address": a word of another thing
        if match and turned_down(lowered, match.start()):
            continue  # "don't call me", "not urgent"
        if match and not (is_status(profile) and hoped(lowered, match.start())):
            out.append(Mention("enum", choice, match.start(), match.end(), f"choice '{choice}'"))
    # "premium economy" names one choice, not "economy" as well
    out = [m for m in out if not any(o is not m and o.start <= m.start and m.end <= o.end
                                     and o.end - o.start > m.end - m.start for o in out)]  # fmt: skip
    # "face to face please", "ring me, I never check email": choices in everyday words too
    out += [Mention("enum", c, s, e, f"saying '{sentence[s:e]}' is '{c}'")
            for c, s, e in said_choices(sentence.replace("-", " "), choices)
            if not any(m.value == c or (m.start < e and s < m.end) for m in out)]  # fmt: skip
    out.sort(key=lambda m: m.start)
    if not out and _INDIFFERENT.search(lowered):  # "don't mind really": the choice that says so
        out = [Mention("enum", c, 0, len(lowered), f"indifferent: '{c}'") for c in choices
               if _INDIFFERENT_CHOICE.search(c)][:1]  # fmt: skip
    if not out and _BARE_NO.match(lowered):  # "Any pet insurance?" — "Nope.": the choice "none"
        out = [Mention("enum", c, 0, len(lowered), f"{A_BARE_NO} '{c}'") for c in choices
               if _NONE_CHOICE.fullmatch(c.lower())][:1]  # fmt: skip
    if out:
        return out
    # "it finally arrived": a status said in other words, the last one the sentence says
    states = said_states(sentence, profile)
    if states:
        return [Mention("enum", c, s, e, f"state '{sentence[s:e]}' is '{c}'")
                for c, s, e in states[-1:]]  # fmt: skip
    if unsure(sentence, profile):
        return []
    sentence_words = [stem(w) for w in re.findall(r"[a-z0-9]+", lowered)]
    for choice in choices:
        own = [w for w in words[choice] if sum(w in v for v in words.values()) == 1 and len(w) > 2
               and w not in GENERIC]  # fmt: skip
        hit = next((w for w in own if w in sentence_words
                    and not (w == "call" and _NAMING.search(sentence))), None)  # fmt: skip
        at = lowered.find(hit[:4]) if hit else -1
        word = re.findall(r"[a-z0-9]*", lowered[at:])[0] if hit else ""  # the word as written
        if hit and (
            turned_down(lowered, at) or (word.endswith("e") and word[:-1] in choice.lower().split())
        ):
            continue  # "don't call me"; "Take care" is no "car park", "plane" no "plan"
        if hit and len(words[choice]) > 1 and _AMOUNT_NEXT.match(lowered, at + len(word)):
            continue  # "their quote is £5,400": a price, not the state "quote requested"
        if hit and not (len(words[choice]) == 1 and _of_another(lowered, at + len(word), profile)):
            out.append(
                Mention(
                    "enum", choice, max(at, 0), max(at, 0) + len(hit), f"word '{hit}' of '{choice}'"
                )
            )
    if not out and len(lowered.split()) <= 3:  # "comp" for "comprehensive", "econ" for "economy"
        out = [Mention("enum", c, m.start(), m.end(), f"'{m.group(0)}' short for '{c}'")
               for c in choices for m in re.finditer(r"\b[a-z]{4,5}\b", lowered)
               if any(w.startswith(m.group(0)) and len(w) >= 7 for w in c.lower().split())]  # fmt: skip
    return out if len(out) == 1 else []


def typed_mentions(sentence: str, today: datetime.date, fields: list[Profile],
                   currency: str | None, bare_money: bool = False,
                   context: Amount | None = None, counted: bool = False) -> list[Mention]:  # fmt: skip
    """Dates first, then money, then numbers, then enum choices; later kinds skip spans taken.
    ``counted``: a number was asked for, so "87k" without a currency is 87,000 of something."""
    types = {p.type for p in fields}
    out: list[Mention] = []
    taken: list[tuple[int, int]] = []
    monthly = any(day_of_month(p) for p in fields)
    if "date" in types or monthly:
        for d in dates_in(sentence, today):
            if "date" in types:
                out.append(Mention("date", d.day.isoformat(), d.start, d.end, f"date '{d.phrase}'"))
            if (
                monthly and d.kind == "ordinal"
            ):  # "the 28th" for the day of the month a debit is taken
                out.append(Mention("number", d.day.day, d.start, d.end, f"day '{d.phrase}'"))
            taken.append((d.start, d.end))
    else:
        taken += [(d.start, d.end) for d in dates_in(sentence, today)]
    day_named = bool(taken) or bool(_DAY_WORD.search(sentence))
    if "money" in types:
        for amount in money_in(sentence, currency, bare=bare_money, context=context):
            if (
                counted
                and "number" in types
                and amount.unit > 1
                and not _SIGNED.search(sentence[amount.start : amount.end])
            ):
                count = int(amount.amount) if float(amount.amount).is_integer() else amount.amount
                out.append(Mention("number", count, amount.start, amount.end, "number"))
                taken.append((amount.start, amount.end))
                continue
            if not amount.explicit and _PRICED_FOR.search(sentence[: amount.start]):
                continue  # "their quote is £5,400 for 90": how many it is for, not money
            if _EXTRA.search(sentence[: amount.start]):
                continue  # "that's an extra £31.40": by how much it changes, not how much it is
            if not _overlaps(amount.start, amount.end, taken):
                how = "money" if amount.explicit else BARE
                out.append(Mention("money", amount.value(), amount.start, amount.end, how))
                taken.append((amount.start, amount.end))
    else:
        taken += [(a.start, a.end) for a in money_in(sentence, currency) if a.explicit]
    if "number" in types:
        for match in BHK.finditer(sentence):
            if not _overlaps(match.start(), match.end(), taken):
                out.append(Mention("number", int(match.group(1)), match.start(), match.end(),
                                   "number", match.group(2).lower()))  # fmt: skip
                taken.append((match.start(), match.end()))
        for number in numbers_in(sentence):
            if _overlaps(number.start, number.end, taken) or _clock(
                sentence, number.start, number.end, day_named
            ):
                continue
            written = sentence[number.start : number.end]
            if (
                re.match(r"\W*$", sentence[: number.start])
                and sentence[number.end : number.end + 1] == ")"
            ):
                continue  # "2) Tomás is mostly bug-fixing now": a list's marker
            if re.fullmatch(r"\d{4,}", written) and names_a_code(sentence[: number.start], written):
                continue  # "consumer number is 410012345678": it names, it counts nothing
            if _CHANGED_BY.search(sentence[: number.start]) or _GONE.match(sentence, number.end):
                continue  # "I've lost 7 kilos", "Zain's side added 20": by how much, not how much
            kind = _KIND_OF.search(sentence[: number.start])
            if kind and not any(kind.group(1).lower() in p.key.split("_") for p in fields):
                continue  # "type 2 diabetes", "stage 3": which kind, not a quantity
            value: float | int = (
                int(number.value) if float(number.value).is_integer() else number.value
            )
            out.append(Mention("number", value, number.start, number.end, "number", number.after))
        if any(p.type == "number" and _TIMED.search(p.about) for p in fields):  # "days_supply"
            for match in _A_SPAN.finditer(sentence):  # "A month, yes." is one month
                if not (
                    _overlaps(match.start(), match.end(), taken)
                    or _NOT_A_SPAN.search(sentence[: match.start()])
                ):
                    out.append(Mention("number", 1, match.start(), match.end(1), "number", sentence[match.start(2) :]))  # fmt: skip
    for profile in fields:
        if profile.type == "enum":
            for mention in enum_mentions(sentence, profile):
                if mention.how.startswith("word ") and _overlaps(mention.start, mention.end, taken):
                    continue  # "Tuesday next week" is a date, not the choice "within a week"
                if not any(m.type == "enum" and m.value == mention.value for m in out):
                    out.append(mention)
    return sorted(out, key=lambda m: m.start)


_EXTRA = re.compile(r"\b(?:an?\s+)?(?:extra|additional|further)\s+(?:of\s+)?$", re.I)
_TIMED = re.compile(r"\b(?:days?|weeks?|months?|years?)\b", re.I)
_A_SPAN = re.compile(r"\b(an?)\s+((?:day|week|fortnight|month|year)\b)", re.I)
# "once a week", "in a month", "a year ago": a rate or a time, not a stretch of one
_NOT_A_SPAN = re.compile(r"\b(?:once|twice|times|per|every|each|in|within|than|half|about)\s+$"
                         r"|\b(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten)\s+(?:\w+\s+){0,2}$", re.I)  # fmt: skip
_SIGNED = re.compile(
    r"[₹$€£¥]|\b(?:rs|inr|usd|eur|gbp|sgd|aud|cad|chf|dollars?|pounds?|euros?|rupees?|bucks|"
    r"francs?|yen|lakhs?|crores?|quid)\b",
    re.I,
)


def day_of_month(profile: Profile) -> bool:
    """Whether a number field holds a day of the month ("Day of the month the debit is taken")."""
    return profile.type == "number" and bool(
        re.search(r"\bday of (?:the|each) month", profile.about, re.I)
    )


# "70, two people dropped", "two have dropped out, so it's just four": how many fewer
_GONE = re.compile(r"\s+(?:(?:people|guests|of (?:us|them|our \w+|the \w+))\s+)?(?:have\s+|has\s+)?"
                   r"(?:dropped|pulled out|left|cancelled|canceled|can't come|cannot come|won't come)\b", re.I)  # fmt: skip
_CHANGED_BY = re.compile(
    r"\b(?:lost|gained|put on|dropped|shed|added|(?:went |gone |come |came )?(?:up|down) by|"
    r"(?:increased|decreased|reduced|cut|raised|lowered) by)\s+(?:about |around |nearly |almost |"
    r"over |another |an extra )?$",
    re.I,
)
_AMOUNT_NEXT = re.compile(r"\s*(?:is|was|of|came (?:in|back) at|:)?\s*(?:about\s+)?[£$€₹¥\d]")
# An amount said with its currency, then what it is for: "£5,400 for 90", "$200 for 3".
_PRICED_FOR = re.compile(
    r"(?:[£$€₹¥]\s?\d[\d,.]*\s?(?:k|m|lakhs?|crores?)?|\d[\d,.]*\s?"
    r"(?:pounds|dollars|euros|rupees|quid|bucks))\s+for\s+(?:the\s+)?$",
    re.I,
)
_KIND_OF = re.compile(r"\b(type|stage|phase|version|series|model|gen|generation)\s*$", re.I)


# A day named in the sentence makes "8.30" a time of day ("Monday the 23rd, 8.30").
_DAY_WORD = re.compile(
    r"\b(today|tonight|tomorrow|morning|afternoon|evening|slot|appointment|"
    r"(?:mon|tues|wednes|thurs|fri|satur|sun)day)\b",
    re.I,
)
_HOUR_MINUTE = re.compile(r"(?:[01]?\d|2[0-3])[.:][0-5]\d")


def _clock(text: str, start: int, end: int, day_named: bool = False) -> bool:
    after = text[end : end + 6].lower()
    before = text[max(0, start - 14) : start].lower()
    if day_named and _HOUR_MINUTE.fullmatch(text[start:end]) and not re.match(r"\s*[a-z]", after):
        return True  # "8.30", not "8.30 kg"
    return bool(
        re.match(r"\s*(am|pm|a\.m|p\.m|o'clock|:\d)", after)
        or re.search(
            r"\b(after|before|at|till|until|by|from|since)\s(?:about\s|around\s)?$", before
        )
        or re.search(r"[#-]$", before)
    )


_JOIN = re.compile(r"[,;]|\b(?:and|but|while|whereas|plus)\b", re.I)


def lead_in(sentence: str, start: int, end: int) -> str:
    """The words before a value since the value before it, from the last "and" or comma
    between them: "£2,500 at the moment and I'd like it raised to £5,000" leads £5,000 with
    "I'd like it raised to"."""
    return sentence[_lead_start(sentence, start, end) : end]


def _lead_start(sentence: str, start: int, end: int) -> int:
    cuts = list(_JOIN.finditer(sentence, start, end))
    return cuts[-1].end() if cuts else start


def own_words(said: list[Mention], mention: Mention, clause: str, sentence: str,
              fields: list[Profile]) -> str:  # fmt: skip
    """ "Budget's 15k and I can do about 250 a month": of two values of a type in one clause
    (``said``: the sentence's values), each is read with its own words, from the value before
    it to the one after, when those name a field of the type."""
    same = [m for m in said if m.type == mention.type and m is not mention]
    if not same or clause != sentence or mention.type not in ("money", "number"):
        return clause  # dates have their lead-in words ("out on the 12th, back on the 19th")
    start = max([m.end for m in same if m.end <= mention.start], default=0)
    end = min([m.start for m in same if m.start >= mention.end], default=len(sentence))
    # the words between two values go to the one on their side of an "and" or a comma
    start = _lead_start(sentence, start, mention.start) if start else 0
    after = _JOIN.search(sentence, mention.end, end)
    end = after.start() if after and end < len(sentence) else end
    named = any(cue_score(p, sentence[start:end])[0] > 0 for p in fields if p.type == mention.type)
    return sentence[start:end] if named else clause


# "a severance of $15,000", "the deposit of £500": the thing the value is the amount of
_THING_OF = re.compile(
    r"\b(?:a|an|the|my|your|their|his|her|our)\s+([a-z]+)\s+of\s+(?:about\s+|around\s+)?\W?$"
)


def names_one(things: list[str], text: str) -> bool:
    """Whether the text names one of the things (a field's qualifiers, the people it has facts of)."""
    lowered = text.lower()
    return any(re.search(rf"\b{re.escape(q.lower())}\b", lowered) for q in things)


def its_thing(profile: Profile, before: str) -> bool:
    """Whether the value is said as the amount of a thing the field has no word for, so the
    rest of its sentence does not name the field for it (when it has no words of its own)."""
    match = _THING_OF.search(before.lower())
    return match is not None and stem(match.group(1)) not in profile.words
