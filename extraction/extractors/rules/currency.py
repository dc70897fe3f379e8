"""What currency an amount is in when the turn does not say: the one the conversation names,
the one the user's stored amounts are in, the place's ("$" in Sydney is the Australian dollar),
the user's clock's (a UTC offset kept by one currency's country), or the schema's examples'."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from core.text import utc_offset_minutes
from extraction.extractors.base import WindowTurn
from extraction.extractors.rules.amounts import money_in
from extraction.extractors.rules.places import (
    DOLLARS,
    US_DOLLAR_SAID,
    place_currencies,
    place_currency,
)

if TYPE_CHECKING:
    from extraction.extractors.rules.reader import Claim


# UTC offsets (minutes east) that, standard or summer time, most of those keeping them pay in
# one currency: India, Nepal, Australia's zones, New Zealand; the United States' where they are
# most of those keeping it (not -6:00: Mexico and Central America; Canada shares the others,
# and a Canadian city named says CAD). Not +0:00, +1:00 or +8:00 (many currencies). A place
# the conversation names in another currency silences the clock (``_clock``).
_ZONES = {330: "INR", 345: "NPR", 570: "AUD", 600: "AUD", 630: "AUD", 660: "AUD", 720: "NZD",
          780: "NZD", -240: "USD", -300: "USD", -420: "USD", -480: "USD", -540: "USD",
          -600: "USD"}  # fmt: skip


def clock_currency(turns: list[WindowTurn]) -> str | None:
    """The currency of the clock the user's turns were given on (their UTC offset, which the
    service keeps), if only one currency keeps it, and unless the conversation names a place
    that pays in another ("I live in Calgary" at -5:00): a place said once is not outvoted by
    the clock. The last thing asked, after what is said."""
    offsets = Counter(
        offset
        for t in turns
        if t.role == "user" and (offset := utc_offset_minutes(t.occurred_at)) is not None
    )
    zone = _ZONES.get(offsets.most_common(1)[0][0]) if offsets else None
    return zone if zone and place_currencies(t.text for t in turns) <= {zone} else None


def local_currency(
    turns: list[WindowTurn], current: Mapping[str, str], clock: str | None
) -> str | None:
    """The currency of where the conversation is: of the places it names and the user's stored
    place values, else of the user's clock (``clock_currency``)."""
    return place_currency([t.text for t in turns], current.values()) or clock


def currencies_named(turns: list[WindowTurn], dollar: str | None) -> set[str]:
    named = {a.currency for t in turns for a in money_in(t.text) if a.explicit and a.currency}
    return {dollar if dollar and code == "USD" else code for code in named}


def dollar_meant(
    turns: list[WindowTurn], current: Mapping[str, str], local: str | None
) -> str | None:
    """The dollar a "$" is where the conversation is (places.py), or the one the user's stored
    amounts are in; None (the US dollar) when someone says "USD" or "US dollars"."""
    if any(US_DOLLAR_SAID.search(t.text) for t in turns):
        return None
    if local in DOLLARS:
        return local
    stored = {a.currency for v in current.values() for a in money_in(v) if a.currency}
    return next(iter(stored & DOLLARS), None) if len(stored & DOLLARS) == 1 else None


def fill_currency(claims: list[Claim], named: set[str], current: Mapping[str, str],
                   dollar: str | None, local: str | None) -> None:  # fmt: skip
    """An amount said before any currency was ("Four hundred and twenty-five thousand", then
    "ninety-five thousand pounds") is in the one currency the conversation uses, if it uses one,
    else in the currency of the place it is about (``local``); "$" is ``dollar`` there."""
    said = named | {a.currency for v in current.values() for a in money_in(v) if a.currency}
    code = said.pop() if len(said) == 1 else None if said else local
    for claim in claims:
        if not isinstance(claim.value, dict) or "currency" not in claim.value:
            continue
        if dollar and claim.value["currency"] == "USD":
            claim.value = {**claim.value, "currency": dollar}
        elif code and not claim.value["currency"]:
            claim.value = {**claim.value, "currency": code}


def default_currency(
    current: Mapping[str, str], fields: list[dict[str, Any]], named: set[str], clock: str | None
) -> str | None:
    """What an amount said without a currency is in, until one is said: the one currency the
    turns name (``named``: anyone's, "₹1,150" after "it cost 1,150"), else the currency of the
    user's stored money facts, else of the user's clock (``clock_currency``), else of the
    schema's money examples (an operator's teaching, which may have been written for another
    country than this user's)."""
    if len(named) == 1:
        return next(iter(named))
    for text in current.values():
        for amount in money_in(text):
            if amount.currency:
                return amount.currency
    if clock:
        return clock
    examples = [str(e) for f in fields if f["type"] == "money" for e in f.get("examples") or []]
    currencies = {a.currency for e in examples for a in money_in(e) if a.explicit} or {None}
    return currencies.pop() if len(currencies) == 1 else None
