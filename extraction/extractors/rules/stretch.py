"""A price put to the user above the most they said they would pay: once they accept it, that
price is the most they will pay.

"Up to 700 an hour" … "Mr Deshpande charges 750 per hour. Is that okay?" — "Fine": the ceiling
is 750 now (confirmed). Only for a field that holds a ceiling per period (the most one will pay
an hour, a month, a night; not a price the agent quotes: ``amounts.priced``), only for a rate of
that period ("750 per hour"; "He charges £42" when no period is said), never a fee, a deposit, a
total or the price of one thing ("£90 for a double lesson"), only when memory holds a lower
value of it in the same currency (or none written), and only when the agent asks whether the
price is all right. A price at or under the ceiling changes nothing; one the user turns down
("800 is above our budget") is never accepted, so it writes nothing either.
"""

from __future__ import annotations

import re

from core.text import sentences
from extraction.extractors.rules.amounts import money_in, priced
from extraction.extractors.rules.fields import Profile
from extraction.extractors.rules.mentions import Mention
from extraction.extractors.rules.prompts import Prompt

_CEILING = re.compile(
    r"\b(?:budget|ceiling|max|maximum|limit|afford|up to|at most|most(?! recent| common| likely|"
    r" often| popular| used))\b"
)
# "charges 750 per hour", "the rate is £50": the price of a thing, not a ceiling put to the user
_PRICE_OF = re.compile(r"\b(?:charges?|costs?|rate|fee|comes? to|priced at)\b", re.I)
_RATE = re.compile(r"\b(?:charges?|rate)\b", re.I)  # a person's or a service's rate
_PERIODS = ("hour", "month", "night", "week", "day", "year", "session", "lesson")
_PERIOD = re.compile(
    rf"\b(?:per|an?|each|every)\s+({'|'.join(_PERIODS)})\b|\b(hourly|monthly|nightly|weekly|daily|yearly)\b",
    re.I,
)
_PER_WORD = {"hourly": "hour", "monthly": "month", "nightly": "night", "weekly": "week",
             "daily": "day", "yearly": "year"}  # fmt: skip
# A fee, a deposit, a total, the price of one thing: not a rate to hold a ceiling against
_NOT_A_RATE = re.compile(
    r"\b(?:fee|deposit|registration|entry|books?|total|altogether|alone|in all|all in|for (?:a|the|an|two|three|ten)\b)",
    re.I,
)
_OVER_LIMIT = re.compile(
    r"\s*(?:(?:an hour|a month|a week|a night|per \w+)\s+)?(?:is|'s|are|was)\s+(?:(?:a bit|a little|"
    r"way|far|much|well|just)\s+)?(?:above|over|beyond|outside|out of|more than)\s+(?:our|my|the)\s+"
    r"(?:budget|range|price range|limit|max|maximum)",
    re.I,
)
_BY_HOW_MUCH = re.compile(
    r"\s+(?:more|less|higher|lower)\s+than\s+(?:i|we|what i|what we|you)\s+(?:said|asked|wanted|told|budgeted)\b",
    re.I,
)
# The agent asks whether the price will do ("Is that okay?", "OK?", "Shall I book him?")
_WILL_DO = re.compile(
    r"\b(?:ok|okay|alright|all right|fine|good|work|suit|go ahead|book|proceed|confirm)\b",
    re.I,
)


def ceiling(profile: Profile) -> bool:
    """A money field that holds the most the user will pay (not a price put to them)."""
    text = profile.about.lower()
    return (
        profile.type == "money"
        and not profile.qualified
        and bool(_CEILING.search(text))
        and not priced(profile.key, profile.about)
    )


def over_limit(sentence: str, end: int) -> bool:
    """Whether the value ending at ``end`` is said to be over the budget ("800 is above our
    budget") or is how far over it a price is ("Is 2 more than I said"): whatever else it is,
    it is not the budget."""
    return bool(_OVER_LIMIT.match(sentence, end) or _BY_HOW_MUCH.match(sentence, end))


def _period(text: str) -> str | None:
    match = _PERIOD.search(text)
    if match is None:
        return None
    word = (match.group(1) or match.group(2)).lower()
    return _PER_WORD.get(word, word)


def stretch(
    prompt: Prompt, fields: list[Profile], current: dict[str, str], currency: str | None
) -> None:
    """A rate of something the agent's turn puts to the user proposes a ceiling field only as
    a stretch: the one rate it asks about, above what memory holds for that field. (A price
    that is the ceiling put to the user — "Could you go to £1,600 a month?", "So £1,500 a
    month, right?" — stays a proposal as it was read.)"""
    prompt.proposals = [
        (p, m, c) for p, m, c in prompt.proposals
        if not (ceiling(p) and m.type == "money" and _PRICE_OF.search(m.sentence or "")
                and not _CEILING.search((m.sentence or "").lower()))
    ]  # fmt: skip
    said = sentences(prompt.turn.text)
    if not said or not _WILL_DO.search(said[-1]) or "?" not in said[-1]:
        return
    priced_in = [s for s in said if _PRICE_OF.search(s)]
    amounts = [a for s in priced_in for a in money_in(s, currency, bare=True)]
    if len(priced_in) != 1 or len({(a.amount, a.currency) for a in amounts}) != 1:
        return  # no price, or several: which one is agreed to is not said
    quote, sentence = amounts[0], priced_in[0]
    if _NOT_A_RATE.search(sentence):
        return
    taken = {p.key for p, _, _ in prompt.proposals}
    for profile in fields:
        held = current.get(profile.key)
        if not held or not ceiling(profile) or profile.key in taken:
            continue
        per = _period(profile.about) or ("hour" if "hourly" in profile.key else None)
        said_per = _period(sentence)
        if per is None or (said_per or ("" if _RATE.search(sentence) else None)) not in (per, ""):
            continue  # a ceiling with no period; or a price of another period, or of one thing
        known = [a for a in money_in(held, currency) if a.currency in (None, quote.currency)
                 or quote.currency is None]  # fmt: skip
        if not known or len({a.currency for a in known}) > 1:
            continue
        limit = max(known, key=lambda a: a.amount)  # "£1,300-£1,400": the top of it
        if quote.amount <= limit.amount or quote.amount > 3 * limit.amount:
            continue  # under the ceiling; or not a price of the same thing
        value = {**quote.value(), "currency": quote.currency or limit.currency}
        mention = Mention("money", value, quote.start, quote.end, "a price above the ceiling",
                          sentence=sentence)  # fmt: skip
        prompt.proposals.append((profile, mention, "a price above the most they said, put to them"))
