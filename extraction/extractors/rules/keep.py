"""Which of a turn's claims are kept: one value per fact and turn."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

from extraction.extractors.base import WindowTurn
from extraction.extractors.rules.acts import ASKED_FOR, WISHED, takes_back
from extraction.extractors.rules.fields import TIME_UNITS, Profile
from extraction.extractors.rules.mentions import Mention, day_of_month
from extraction.extractors.rules.plausible import a_fraction_of_a_count, a_street_for_a_town
from extraction.extractors.rules.reader import Claim, same_value

if TYPE_CHECKING:
    from extraction.extractors.rules.prompts import Prompt
from extraction.values import names_a_code
from schemas.validation import ValidationFailed, fact_value_validate

# A total after its parts: the value the field holds is the sum, not the last part.
_TOTAL = re.compile(
    r"\b(?:together|altogether|in total|total(?:ling|ing)?|all in|all told|in all|combined|"
    r"that makes|makes it|comes to|adds up to|overall)\b",
    re.I,
)


# "was 5k but they raised it to 8k", "went up to", "now": the value after is the new one.
_CHANGED = re.compile(
    r"\b(?:(?:rais|increas|lower|reduc|drop|cut|bump|chang|upp|mov|extend|shorten)(?:ed|e|s)?|"
    r"went (?:up|down)|gone (?:up|down)|come down|came down)\b[^.;!?]{0,25}\bto\s+(?:about\s+)?$"
    r"|\bnow\s+(?:it's\s+|its\s+|is\s+)?$"
    r"|\b(?:so|which makes|making|bringing|taking|leaving)\s+(?:it|that|the \w+|us)?\s*"
    r"(?:'s|is|at|to|down to|up to)?\s*$",
    re.I,
)


_PART = re.compile(r"\s+of (?:them|those|these|which)\b", re.I)
_WISHED = re.compile(r"\b(?:like|want|wants|wish|hope|hoping|need|could|can|would|please|ask|"
                     r"asking|asked)\b|'d\b", re.I)  # fmt: skip


def changed(between: str) -> bool:
    """Whether the words between two values say the second replaced the first: done ("they
    raised it to"), not wished for ("I'd like it raised to")."""
    return bool(_CHANGED.search(between)) and not _WISHED.search(between)


# Emoji and pictographs (and the joiners and selectors they are written with)
_PICTOGRAPHS = re.compile(
    r"\s*[\U0001F000-\U0001FAFF\u2700-\u27BF\u2B50\u2600\u2615\u263A\u26A1\u26BD\uFE0F\u200D]+"
)  # not the other symbols of U+2600 to U+26FF ("C♯ minor")


def keep_last_per_field(claims: list[Claim], text: str, current: dict[str, str]) -> list[Claim]:
    """One value per fact and turn: a correction ("actually", "sorry, I meant", "not X") keeps
    the later one, and so does a total after its parts ("45 euro. So together 425"); a value
    that differs from what memory holds beats the one it holds (the old value is said beside
    the new: "CBSE after all, IB fees are too much"); otherwise the better-supported one, the
    later one on a near tie."""
    by_key: dict[str, list[Claim]] = {}
    for claim in claims:
        if isinstance(claim.value, str):  # "Sage green and gold 😍": the colours, not the mood
            claim.value = _PICTOGRAPHS.sub("", claim.value).strip() or claim.value
        by_key.setdefault(claim.key, []).append(claim)
    out = []
    for group in by_key.values():
        if len(group) == 1:
            out.append(group[0])
            continue
        group.sort(key=lambda c: c.order)
        mine = [c for c in group if not c.why.get("agent")] or group
        between = text[mine[0].span[1] : mine[-1].span[0]] if len(mine) > 1 else ""
        # What memory holds, or what the agent just offered: the user's other value is the news
        # ("Three's a lot with her volleyball. Two.").
        held = [current[group[0].key]] if group[0].key in current else []
        held += [str(c.value) for c in group if c.why.get("repeats proposal") or c.why.get("agent")]
        news = [c for c in mine if not any(same_value(str(c.value), h) for h in held)]
        if len(mine) > 1 and takes_back(between):
            chosen = mine[-1]
            chosen.why["corrects"] = str(mine[0].value)
        elif len(mine) > 1 and changed(text[mine[-2].span[1] : mine[-1].span[0]]):
            chosen = mine[-1]  # "my limit was 5k but they raised it to 8k": the new one
            chosen.why["changed"] = str(mine[-2].value)
        elif len(mine) > 1 and WISHED.search(text[mine[-2].span[1] : mine[-1].span[0]]) \
                and ASKED_FOR.search(group[0].profile.about):  # fmt: skip
            chosen = mine[-1]  # "I pay £95 a month and I'd like to drop it to £80": the one wanted
        elif len(mine) > 1 and _PART.match(text, mine[-1].span[1]):
            chosen = mine[-2]  # "Eight in total, five of them in fintech": the whole, not a part
        elif len(mine) > 1 and _TOTAL.search(text[mine[-2].span[1] : mine[-1].span[0]]):
            chosen = mine[-1]  # "…, 45 euro. So together 425.": the sum of what was said
            chosen.why["total"] = True
        elif held and 0 < len(news) < len(group):
            chosen = news[-1]
        else:
            top = max(c.why.get("points", 0) for c in group)
            chosen = [c for c in group if c.why.get("points", 0) >= top - 0.5][-1]
        out.append(chosen)
    out = [c for c in out if not _shortened(c, current)]
    names = {str(c.value).lower() for c in out if c.profile.person_name}
    out = [c for c in out if c.profile.person_name or c.profile.type != "string"
           or str(c.value).lower() not in names]  # fmt: skip  # the name, not also the answer
    return sorted(out, key=lambda c: c.order)


def _shortened(claim: Claim, current: dict[str, str]) -> bool:
    """The agent naming what memory holds by part of it ("the HR role" for "HR business
    partner"): the same thing, not a new value."""
    held = current.get(claim.key)
    if not (claim.why.get("agent") or claim.profile.person_name) or claim.profile.type != "string" \
            or held is None:  # fmt: skip
        return False  # "Sudha" again after "Sudha Krishnan": the same person, not a new name
    said, whole = set(str(claim.value).lower().split()), set(held.lower().split())
    return bool(said) and said < whole


def implausible(claim: Claim) -> bool:
    """A value the field cannot hold, whatever cue found it: a speaker's name for a field that
    does not hold names, a value without a digit where every example has one."""
    return (
        _a_speakers_name(claim)
        or _unlike_examples(claim)
        or _a_duration(claim)
        or _beyond_a_lifetime(claim)
        or _not_a_day_of_the_month(claim)
        or _its_own_thing(claim)
        or _outside_its_range(claim)
        or a_fraction_of_a_count(claim)
        or a_street_for_a_town(claim)
    )


def _outside_its_range(claim: Claim) -> bool:
    """A number the schema's bounds rule out ("two drivers aged 24 and 26": no driver is 2)."""
    amount = _amount(claim)
    if isinstance(amount, bool) or not isinstance(amount, int | float):
        return False
    low, high = claim.profile.field.get("minimum"), claim.profile.field.get("maximum")
    scale = _SCALE.search(claim.profile.field.get("description", ""))
    if scale and claim.profile.type == "number":  # "pain on a scale of 0 to 10": not 20 (mg)
        low = float(scale.group(1)) if low is None else low
        high = float(scale.group(2)) if high is None else high
    about = f"{claim.profile.key.replace('_', ' ')} {claim.profile.field.get('description', '')}"
    per = _PER.search(about) if claim.profile.type == "number" else None
    most = _MOST.get((per.group(1).lower().rstrip("s"), per.group(2).lower())) if per else None
    if most is not None:  # "about ten a day" (cigarettes) is no count of days a week
        high = most if high is None else min(high, most)
    return (low is not None and amount < low) or (high is not None and amount > high)


# A count of days in a week, hours in a day, … cannot be more than the period holds.
_PER = re.compile(
    r"\b(days?|nights?|hours?|weeks?|months?) (?:per|a|an|each|every|in a) (week|day|month|year)\b",
    re.I,
)
_MOST = {("day", "week"): 7, ("night", "week"): 7, ("hour", "day"): 24, ("hour", "week"): 168, ("day", "month"): 31,
         ("night", "month"): 31, ("week", "year"): 53, ("month", "year"): 12, ("day", "year"): 366}  # fmt: skip


_SCALE = re.compile(
    r"\b(?:scale|rated?|rating|score)\s+(?:of\s+|from\s+)?(\d+)\s*(?:to|-)\s*(\d+)\b", re.I
)


def _amount(claim: Claim) -> object:
    """A number claim's value, or a money claim's amount."""
    return claim.value.get("amount") if isinstance(claim.value, dict) else claim.value


# A count of years or months of something in a life (a loan term, an age, experience): "What do
# you each make a year?" — "I make 68 thousand" is no loan term of 68,000 years.
_IN_YEARS = re.compile(r"(?:^|[\s_])(?:years|yrs|age|aged)(?:$|[\s_.,])", re.I)  # not "year_built"
_IN_MONTHS = re.compile(r"(?:^|[\s_])months?(?:$|[\s_.,])", re.I)


def _beyond_a_lifetime(claim: Claim) -> bool:
    if claim.profile.type != "number" or not isinstance(claim.value, int | float):
        return False
    if re.search(r"(?:^|_)year(?:_|$)", claim.profile.key):  # a calendar year: "year_built"
        return not 1000 <= claim.value <= 2200
    if _IN_YEARS.search(claim.profile.about):
        return claim.value > 150
    return bool(_IN_MONTHS.search(claim.profile.about)) and claim.value > 1800


def _its_own_thing(claim: Claim) -> bool:
    """The thing's own name or code, or part of it, is not what the field says of it: "my dog,
    Bruno" (pet:Bruno = "Bruno"), "KA 03 HW 4512" (vehicle:KA03HW4512 = "HW 4512"), "PNR
    4730882214" (passengers:4730882214 = 4730882214)."""
    qualifier = re.sub(r"[\s-]", "", (claim.qualifier or "").lower())
    if claim.profile.type in ("number", "money"):  # "PNR 4730882214": no count of passengers
        amount = _amount(claim)
        digits = f"{amount:.0f}" if isinstance(amount, int | float) else ""
        return len(digits) >= 4 and digits in qualifier
    if claim.profile.type != "string":
        return False
    bare = re.sub(r"[\s-]", "", str(claim.value).strip(" .,!?").lower())
    return len(bare) >= 3 and bare in qualifier


def _not_a_day_of_the_month(claim: Claim) -> bool:
    """ "Day of the month the debit is collected": 1 to 31, not a meter reading."""
    if not day_of_month(claim.profile):
        return False
    return not (isinstance(claim.value, int | float) and 1 <= claim.value <= 31)


_DURATION = re.compile(
    r"\W*(?:\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten|a few|a couple of)\s+"
    rf"(?:{TIME_UNITS})s?\W*",
    re.I,
)
_TIME_WORDS = re.compile(rf"\b(?:{TIME_UNITS}|long|duration|period)s?\b", re.I)


def _a_duration(claim: Claim) -> bool:
    """A stretch of time ("1 week", "two nights") for a text field that says nothing of time:
    "Same site? — yes. 1 week" answers how long, not where."""
    if claim.profile.type != "string" or not _DURATION.fullmatch(str(claim.value)):
        return False
    field = claim.profile.field
    about = " ".join([field.get("key", ""), field.get("description") or "",
                      *map(str, field.get("examples") or [])]).replace("_", " ")  # fmt: skip
    return not _TIME_WORDS.search(about)


_SOMEONE = re.compile(
    r"\b(?:who|whom|contact|guardian|parent|carer|partner|spouse|doctor|name of)\b",
    re.I,
)


def _a_speakers_name(claim: Claim) -> bool:
    """A text value that is the name of one of the two speakers ("Thanks, Maria!" read as a job
    or a language): a name is only ever the value of a field that holds names."""
    if claim.profile.type != "string" or claim.profile.person_name:
        return False
    value = str(claim.value).strip(" .,!?").lower()
    if claim.profile.qualifier_kind == "name" and _SOMEONE.search(
        claim.profile.field.get("description") or ""
    ):
        return False  # a speaker's name is the value of a field that holds someone
    turn = claim.turns[-1]
    names = {
        n.lower() for who in (turn.speaker, turn.listener) for n in (who, *who.split()[:1]) if n
    }
    return value in names


# An example that is a number or a code: a seat "31C", a phone "+44 7700 900123", "ext. 3390",
# "PO 44120", "HB 663 0981" (not "metformin 500 mg twice a day").
_CODED = re.compile(r"\s*(?:[A-Za-z]{1,4}[.-]?\s*)?[+#]?\d[\d\s().-]*[A-Za-z]{0,2}\s*")


_PLACE_OR_NAME = re.compile(r"city|town|place|country|suburb|area|location|destination|name", re.I)


def _unlike_examples(claim: Claim) -> bool:
    """A text value without a digit for a field whose every example is a number or a code:
    "vegetarian" for a seat, "same po yes" for a PO number, "thats me" for a phone; a code for a
    field of names and places whose examples have no digit ("OD4412" for a city)."""
    examples = [str(e) for e in claim.profile.field.get("examples") or []]
    if claim.profile.type != "string":
        return False
    if (
        claim.profile.proper
        and _PLACE_OR_NAME.search(f"{claim.profile.key} {claim.profile.about}")
        and not any(re.search(r"\d", e) for e in examples)
        and re.fullmatch(r"[A-Za-z]{1,4}-?\d{3,}[A-Za-z\d]*", str(claim.value).strip())
    ):
        return True  # "my order OD4412" is no city, and no one's name
    if re.search(r"_(?:number|no)$", claim.profile.key) and not re.search(r"\d", str(claim.value)):
        return True  # "event" for a policy number (a booking_ref or promo_code may be letters)
    if not examples:
        return False
    coded = all(_CODED.fullmatch(e) for e in examples)
    return coded and not re.search(r"\d", str(claim.value))


def one_reading(claims: list[Claim]) -> list[Claim]:
    """ "The 28th" is a date and a day of the month: the field that fits it better takes it."""
    drop = set()
    for day in (c for c in claims if c.profile.type == "number"):
        for date in (c for c in claims if c.profile.type == "date" and c.span == day.span):
            worse = min(day, date, key=lambda c: float(c.why.get("points", 0.0)))
            drop.add(id(worse))
    return [c for c in claims if id(c) not in drop]


def holds(current: Mapping[str, str], profile: Profile, mention: Mention,
          said: list[tuple[Profile, Mention, str]]) -> bool:  # fmt: skip
    """Whether memory already holds the value the agent says for the field (as its text), and
    the agent says no other value of it beside (which would come after it)."""
    if profile.qualified or any(p is profile and m is not mention for p, m, _ in said):
        return False
    try:  # memory's text, or a value read earlier in this window (its Python text)
        text = fact_value_validate(profile.field, mention.value)[1]
    except ValidationFailed:
        return False
    return current.get(profile.key) in (text, str(mention.value))


def read_back_of_another(current: Mapping[str, str], profile: Profile, value: object) -> bool:
    """Whether a number or amount the agent says is what memory holds for another field ("Noted,
    two freelancers." after "2 people" for the team's size; "AUD 28,000, noted" for the budget)."""
    amount = value.get("amount") if isinstance(value, dict) else value
    if isinstance(amount, bool) or not isinstance(amount, int | float):
        return False
    for key, text in current.items():
        found = _HELD_AMOUNT.fullmatch(text)  # "2", "AUD 28,000", "{'amount': 28000, …}"; not "3A"
        if key.partition(":")[0] != profile.key and found and float(found.group(1).replace(",", "")) == amount:  # fmt: skip
            return True
    return False


_HELD_AMOUNT = re.compile(
    r"\s*(?:[A-Z]{3}\s?|[$€£₹¥]\s?|\{'amount': )?(\d[\d,]*(?:\.\d+)?)(?:,.*\})?\s*"
)


def said_as_a_code(claim: Claim, turns: list[WindowTurn]) -> bool:
    """An amount or a count that the window says elsewhere as a code ("is the ticket 58812" —
    "I see 58812, it's still open"): a ticket's number, not a budget."""
    if claim.profile.type not in ("number", "money"):
        return False
    amount = _amount(claim)
    if not isinstance(amount, int | float) or amount < 1000 or not float(amount).is_integer():
        return False
    digits = f"{amount:.0f}"
    if claim.clause and re.search(
        rf"[$€£₹]\s?{digits}\b|\b{digits}\s?(?:pounds|dollars|euros|rupees)", claim.clause
    ):
        return False  # "refund £1499 to the card ending 1499": said as an amount where it was read
    return any(
        names_a_code(t.text[: m.start()], digits)
        for t in turns
        for m in re.finditer(rf"(?<![\d,.]){digits}(?![\d,.]\d)", t.text)
    )


def a_things_code(claim: Claim, nouns: Mapping[str, str], codes: Mapping[str, list[str]]) -> bool:
    """A count or an amount that is one of the codes a coded field's things go by (``codes``,
    by field; ``nouns``, the coded fields): "And return, 4730882214." is no count of
    passengers (and no longer blocks the agent's "three passengers" after it). Not text
    values: an account, policy or phone number is shaped as codes are."""
    value = claim.value
    if not isinstance(value, int | float) or claim.profile.type not in ("number", "money"):
        return False  # text: a review found phone, account and policy numbers shaped as codes
    if not float(value).is_integer() or value < 1000:
        return False
    return any(f"{value:.0f}" == re.sub(r"[\s-]", "", code) for key in nouns for code in codes[key])


def fills_only(claims: list[Claim], current: Mapping[str, str]) -> list[Claim]:
    """Without the agent's values given by a field's name for a thing memory already holds a
    value of that field for (see ``_confirmations``): they fill an empty field only; and
    without what the agent says back of a thing memory holds just so ("yeah 150 now" —
    "Sertraline 150mg, noted."): the user's word stays its source."""
    out = []
    keys = [c.key for c in claims]
    for claim in claims:
        fills, repeats = claim.why.pop("fills", False), claim.why.pop("repeats", False)
        if (fills and claim.key in current) or (
            repeats and keys.count(claim.key) == 1 and _held(claim, current)
        ):  # not "I've cancelled Bramble Kitchen and booked Thistle & Fork": the last one stands
            continue
        out.append(claim)
    return out


def _held(claim: Claim, current: Mapping[str, str]) -> bool:
    try:
        return current.get(claim.key) == fact_value_validate(claim.profile.field, claim.value)[1]
    except ValidationFailed:
        return False


def cited_alone(claim: Claim, prompt: Prompt | None) -> Claim:
    """A value put in place of the one the agent proposed for the field ("Would you like to see
    Dr Wagner?" — "I'd rather wait for Dr Schulz"): the agent's turn proposed another value, so
    the fact cites the reply alone."""
    if prompt is None or claim.profile.qualified or claim.source == "confirmed":
        return claim
    proposed = [m.value for p, m, _ in prompt.proposals if p is claim.profile]
    if proposed and not any(same_value(v, claim.value) for v in proposed) and len(claim.turns) > 1:
        claim.turns = [t for t in claim.turns if t is not prompt.turn] or claim.turns
    return claim
