"""A field's word inside a title or a name is no lead-in ("We love "Home Alone"", "a job at Home
Depot"), nor the value of an answer that opens with it ("Home is Leeds now"); where a thing was
got is not where someone lives; "£5,400 for 90" is a price for ninety, and "their quote is
£5,400" names a price, not the state "quote requested". Found on LoCoMo's dev conversations (a
city "Alone", then "Harry Potter") and the third development suite."""

from __future__ import annotations

import datetime
import functools
from typing import Any

from schemas.defaults import GENERAL_ASSISTANT
from tests.extraction.dialogue import dialogue_facts

THU = datetime.datetime(2026, 3, 12, 16, 0, tzinfo=datetime.UTC)
_facts = functools.partial(dialogue_facts, start=THU, user="Tim", agent="John")


def _f(key: str, type_: str, description: str, **extra: Any) -> dict[str, Any]:
    return {"key": key, "description": description, "category": "temporal", "type": type_, **extra}


WEDDING = [
    _f("guest_count", "number", "Number of guests expected", minimum=1),
    _f("supplier", "string", "The supplier chosen for each role, one fact per role in lower case "
       "(supplier:caterer, supplier:photographer)", examples=["Petal & Pine"]),
    _f("supplier_status", "enum", "Where things stand with the supplier for each role, one fact "
       "per role as in supplier (supplier_status:florist)",
       choices=["shortlisted", "quote requested", "booked", "deposit paid", "cancelled"]),
    _f("supplier_quote", "money", "Total price quoted by the supplier for each role, one fact per "
       "role as in supplier (supplier_quote:caterer)"),
]  # fmt: skip


def test_a_home_in_a_films_title_is_no_city() -> None:
    turns = [("a", "Do you have any favorite movies you watch together?"),
             ("u", 'During Thanksgiving we usually watch a few movies. We love "Home Alone" - it '
                   "always brings lots of laughs!")]  # fmt: skip
    assert "city" not in _facts(turns, GENERAL_ASSISTANT)
    work = [("a", "What have you been up to?"), ("u", "I started a new job at Home Depot.")]
    assert "city" not in _facts(work, GENERAL_ASSISTANT)


def test_home_said_as_a_word_still_leads_to_the_city() -> None:
    told = [("a", "How have you been?"), ("u", "Busy! We moved, so home is Leeds now.")]
    assert _facts(told, GENERAL_ASSISTANT).get("city") == "Leeds"
    answered = [("a", "Where are you based these days?"), ("u", "Home is Leeds now, since March.")]
    assert _facts(answered, GENERAL_ASSISTANT).get("city") == "Leeds"  # not "Home"


def test_where_a_thing_was_got_is_not_where_they_live() -> None:
    turns = [("a", "That looks awesome! Where did you get this tree?"),
             ("u", "I decorated this tree myself, going all out with a Harry Potter theme!")]  # fmt: skip
    assert "city" not in _facts(turns, GENERAL_ASSISTANT)


def test_an_amount_for_a_headcount_is_the_price_not_the_count_as_money() -> None:
    turns = [("a", "Harelaw has two approved caterers, Thistle & Fork and Bramble Kitchen. Thistle "
                   "& Fork charged another couple of mine £62 a head last month."),
             ("u", "We had a tasting with Bramble Kitchen already. Their quote is £5,400 for 90.")]  # fmt: skip
    facts = _facts(turns, WEDDING)
    assert facts.get("supplier_quote:caterer") == {"amount": 5400, "currency": "GBP"}
    assert "supplier_status:caterer" not in facts  # a quote given, not one requested


def test_a_quote_asked_for_is_still_the_state() -> None:
    turns = [("a", "Wild Stem in Leith does that style. Shall I ask the florist for a quote?"),
             ("u", "Yes, please request a quote from Wild Stem.")]  # fmt: skip
    assert _facts(turns, WEDDING).get("supplier_status:florist") == "quote requested"


HIRE = [
    _f("weekly_rate", "money", "Weekly hire rate of each contract, one fact per contract number "
       "(weekly_rate:EH-2291)"),
    _f("hire_end_date", "date", "Last day of each hire, one fact per contract number "
       "(hire_end_date:EH-2291)"),
    _f("damage_waiver", "boolean", "Whether the customer takes the damage waiver on their hires"),
]  # fmt: skip


def test_no_to_the_question_leaves_what_the_turn_told_and_an_add_ons_price_is_not_the_rate() -> (
    None
):
    turns = [("a", "So Tuesday 21 April to Tuesday 5 May. It's €420 a week; the damage waiver is "
                   "€38 a week on top. Do you want the waiver?"),
             ("u", "no waiver. we've our own cover"),
             ("a", "OK. That's contract EH-2291. Site address?")]  # fmt: skip
    facts = _facts(turns, HIRE)
    assert facts["damage_waiver"] is False
    assert facts.get("weekly_rate:EH-2291") == {"amount": 420, "currency": "EUR"}
    assert facts.get("hire_end_date:EH-2291") in (None, "2026-05-05")  # never the start


def test_no_to_an_offer_still_turns_the_offer_down() -> None:
    turns = [("a", "I can do the 3 tonne instead at €520 a week. Shall I switch you to it?"),
             ("u", "no, keep the small one")]  # fmt: skip
    assert "weekly_rate" not in " ".join(
        _facts(turns, HIRE, {"weekly_rate:EH-2291": '{"amount": 420}'})
    )


def test_no_to_the_question_keeps_no_price_for_a_budget_nor_a_state_or_count() -> None:
    """Found by the suites: the school's fee is no budget; the refund's word is no state."""
    school = [_f("annual_fee_budget", "money", "Most the parent will pay in fees a year"),
              _f("transport_needed", "boolean", "Whether the child needs the school bus")]  # fmt: skip
    turns = [("a", "What sort of fees are you comfortable with?"),
             ("u", "Probably up to £18,000 a year."),
             ("a", "Our fees are £16,500. Would he need the bus?"),
             ("u", "No, we live around the corner.")]  # fmt: skip
    assert _facts(turns, school)["annual_fee_budget"] == {"amount": 18000, "currency": "GBP"}
    shop = [_f("order_status", "enum", "Status of each order, one fact per order number "
               "(order_status:OD4412)", choices=["shipped", "return requested", "refunded"]),
            _f("refund_amount", "money", "Refund for each order (refund_amount:OD4412)"),
            _f("refund_method", "enum", "How the customer wants refunds paid",
               choices=["original payment method", "wallet credit"])]  # fmt: skip
    turns = [("u", "phone received but the screen has dead pixels. want to return OD4412"),
             ("a", "I've raised a return request for OD4412. The refund is Rs 23,999. "
                   "Would you like it as wallet credit?"),
             ("u", "No, back to my credit card please")]  # fmt: skip
    facts = _facts(turns, shop)
    assert facts.get("order_status:OD4412") == "return requested"
    assert facts.get("refund_amount:OD4412") == {"amount": 23999, "currency": "INR"}
