"""A status field's choice said in other words ("it finally turned up" is *delivered*), and the
same words hoped for, negated or about something else writing nothing. Written for these tests,
not taken from any benchmark."""

from __future__ import annotations

import datetime
import functools
from typing import Any

from tests.extraction.dialogue import dialogue_facts

SHOP: list[dict[str, Any]] = [
    {"key": "order_status", "description": "Where the customer's order is", "category": "temporal",
     "type": "enum", "choices": ["placed", "shipped", "delivered", "return requested", "returned", "refunded"]},
]  # fmt: skip
CLAIMS: list[dict[str, Any]] = [
    {"key": "claim_status", "description": "Status of the insurance claim", "category": "temporal",
     "type": "enum", "choices": ["submitted", "under review", "approved", "rejected", "paid"]},
    {"key": "excess", "description": "The policy excess", "category": "profile", "type": "money"},
]  # fmt: skip
PARTY: list[dict[str, Any]] = [
    {"key": "vendor_status", "description": "Where things stand with each vendor, one fact per "
     "vendor (vendor_status:dj, vendor_status:caterer, vendor_status:venue)", "category": "temporal",
     "type": "enum", "choices": ["shortlisted", "quote requested", "booked", "deposit paid"]},
]  # fmt: skip
FRI = datetime.datetime(2026, 5, 8, 10, 0, tzinfo=datetime.UTC)
_facts = functools.partial(dialogue_facts, start=FRI, user="Ines Duarte", agent="Sam")


def test_a_status_said_in_other_words_names_its_choice() -> None:
    assert _facts([("a", "Hi Ines, anything on your order?"), ("u", "It turned up this morning, "
                   "thanks")], SHOP) == {"order_status": "delivered"}  # fmt: skip
    assert _facts([("u", "Any news on the order?"), ("a", "Yes, it left our warehouse last "
                   "night.")], SHOP)["order_status"] == "shipped"  # fmt: skip
    assert _facts([("a", "How did the claim go?"), ("u", "They turned it down, can you believe "
                   "it")], CLAIMS)["claim_status"] == "rejected"  # fmt: skip
    assert (
        _facts([("u", "The claim payout hit my account today")], CLAIMS)["claim_status"] == "paid"
    )


def test_the_last_state_a_sentence_says_is_where_it_stands() -> None:
    """ "It came but …, I'd like to send it back": a return asked for, not delivered."""
    facts = _facts([("u", "The order came on Tuesday but it's too small, I'd like to send it "
                    "back")], SHOP)  # fmt: skip
    assert facts["order_status"] == "return requested"
    facts = _facts(
        [("u", "I posted the dress back on Monday")], SHOP, {"order_status": "delivered"}
    )
    assert facts["order_status"] == "returned"


def test_a_state_of_one_of_several_things_goes_to_that_thing() -> None:
    facts = _facts([("u", "We hired the DJ yesterday, signed and everything")], PARTY)
    assert facts == {"vendor_status:dj": "booked"}


def test_a_state_hoped_for_negated_or_to_come_writes_nothing() -> None:
    assert _facts([("u", "Fingers crossed the claim gets approved this week")], CLAIMS) == {}
    assert _facts([("u", "The refund still hasn't come through")], SHOP) == {}
    assert _facts([("u", "Where is it?"), ("a", "It'll be dispatched on Monday.")], SHOP) == {}
    assert _facts([("u", "Has my claim been accepted?")], CLAIMS) == {}


def test_the_same_words_about_something_else_write_no_status() -> None:
    """A loan declined, a job accepted, taxes filed: not the claim's status."""
    assert _facts([("u", "The bank declined our remortgage last spring")], CLAIMS) == {}
    assert _facts([("u", "I accepted the job offer in Porto")], CLAIMS) == {}
    assert _facts([("u", "I filed my tax return, so money's tight")], CLAIMS) == {}
    assert _facts([("u", "My flatmate's parcel arrived, mine didn't")], SHOP) == {}


def test_a_state_of_the_one_stored_thing_goes_to_it() -> None:
    """One ticket on file: "all sorted now" is that ticket's; the refund "on its way" is the
    money's, not a parcel shipped."""
    desk = [{"key": "ticket_status", "description": "Status of each ticket, one fact per ticket id "
             "(ticket_status:INC-1234)", "category": "temporal", "type": "enum",
             "choices": ["open", "in progress", "resolved", "closed"]}]  # fmt: skip
    facts = _facts([("a", "Is the scanner behaving now?"), ("u", "Yes, all sorted, cheers")], desk,
                   {"ticket_status:INC-3310": "in progress"})  # fmt: skip
    assert facts == {"ticket_status:INC-3310": "resolved"}
    facts = _facts([("a", "We've received your return, and the refund is on its way to you.")],
                   SHOP, {"order_status": "return requested"})  # fmt: skip
    assert facts.get("order_status") != "shipped"
