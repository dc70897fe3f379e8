"""Things that go by a code (orders, tickets, bookings): a code said alone counts nothing; a
count said with its field's noun is that field's, whatever the agent's turn asked; a count the
agent reads out for a second thing fills that thing's field even when the first thing's is
already held; a long number before a name is a label, not a count. Phone, account and policy
numbers shaped as the codes stay what they are (a review's regressions)."""

from __future__ import annotations

import datetime
import functools
from typing import Any

import pytest

from tests.extraction.dialogue import dialogue_facts

MON = datetime.datetime(2026, 5, 4, 9, 0, tzinfo=datetime.UTC)
_facts = functools.partial(dialogue_facts, start=MON, user="Mei Lin", agent="Oskar")


def _f(key: str, type_: str, description: str, **more: Any) -> dict[str, Any]:
    return {"key": key, "type": type_, "description": description, "category": "temporal", **more}


DESK = [
    _f("order_state", "enum", "State of each order, one fact per order, by its 8-digit order "
       "number (order_state:50213377)", choices=["processing", "shipped", "delayed", "delivered"]),
    _f("parcels", "number", "How many parcels each order ships in, one fact per order number"),
    _f("hold_days", "number", "Days each order is held at the depot, one fact per order number"),
    _f("phone", "string", "Phone number for the courier's delivery texts", category="profile"),
]  # fmt: skip


def test_a_code_said_alone_counts_nothing() -> None:
    said = [("a", "Which orders are we looking at?"),
            ("u", "First one is order 50213377."),
            ("a", "That one is shipped, two parcels, held 3 days at the depot."),
            ("u", "Ok. Then 50219904."),
            ("a", "Delayed, in four parcels."),
            ("u", "Right.")]  # fmt: skip
    facts = _facts(said, DESK)
    assert facts["order_state:50213377"] == "shipped"
    assert facts["order_state:50219904"] == "delayed"
    assert facts["parcels:50213377"] == 2
    # The second order's count: the agent gives it by the field's noun; the first order's count
    # being held already does not stop it, and the code "50219904" counts nothing.
    assert facts["parcels:50219904"] == 4
    assert 50219904 not in facts.values()


def test_a_real_phone_number_still_lands_beside_the_codes() -> None:
    said = [("u", "Order 50213377 please."),
            ("a", "Shipped. Anything else?"),
            ("u", "Yes, texts should go to 07700 900461 now.")]  # fmt: skip
    facts = _facts(said, DESK)
    assert facts["phone"] == "07700 900461"
    assert facts["order_state:50213377"] == "shipped"


def test_numbers_shaped_as_the_codes_stay_what_they_are() -> None:
    said = [
        ("u", "Order 50213377."),
        ("a", "Shipped. Mobile for the texts?"),
        ("u", "07700900461."),
    ]
    assert _facts(said, DESK)["phone"] == "07700900461"


def test_an_order_number_field_keeps_its_own_number() -> None:
    fields = [_f("order_number", "string", "The customer's order number", category="profile"),
              *DESK[:2]]  # fmt: skip
    facts = _facts([("u", "My order number is 50213377.")], fields)
    assert facts.get("order_number") == "50213377"


ROOMS = [_f("guests", "number", "How many guests stay"),
         _f("nights", "number", "How many nights the stay lasts")]  # fmt: skip


def test_a_count_said_with_its_noun_is_that_fields_and_a_long_number_before_a_name_none() -> None:
    said = [("u", "We'd like the Riverside suite."),
            ("a", "You are booked into the 1204 Riverside suite, 2 guests. How many nights?"),
            ("u", "Three.")]  # fmt: skip
    facts = _facts(said, ROOMS)
    assert facts == {"guests": 2, "nights": 3}


@pytest.mark.parametrize(
    ("said", "phone"),
    [
        ([("a", "Which order is it?"), ("u", "50213377.")], None),
        ([("a", "Can I have your order number?"), ("u", "It's 50213377, thanks.")], None),
        ([("u", "You can reach me on 9845012345.")], "9845012345"),
        ([("u", "My mobile is 9845012345, order 50213377.")], "9845012345"),
        ([("a", "Best number to text you on?"), ("u", "9845012345")], "9845012345"),
        ([("u", "Texts to 07911 223344 please.")], "07911 223344"),
        ([("u", "Put 07911223344 on the order.")], "07911223344"),
        ([("u", "It's 98450123 if you need me.")], "98450123"),  # unasked: a phone's
        ([("a", "Which order is it?"), ("u", "5021337790")], None),  # asked for another field
        ([("u", "Order 50213377 is late, the driver keeps calling 9845012345.")], "9845012345"),
    ],
)
def test_digits_are_a_phone_number_when_asked_said_or_written_as_one(
    said: list[tuple[str, str]], phone: str | None
) -> None:
    assert _facts(said, DESK).get("phone") == phone


def test_digits_alone_answer_a_question_about_the_things_code() -> None:
    said = [("a", "Give me the order reference please."), ("u", "50213377."),
            ("a", "That one is shipped, in two parcels."), ("u", "Ok.")]  # fmt: skip
    facts = _facts(said, DESK)
    assert facts == {"order_state:50213377": "shipped", "parcels:50213377": 2}
    # "number" alone asks no code: a phone asked for stays a phone
    asked = [("a", "What number can the courier text?"), ("u", "9845012345")]
    assert _facts(asked, DESK) == {"phone": "9845012345"}


RACE = [_f("race_date", "date", "Date of the customer's next race"),
        _f("coaching_fee", "money", "Monthly coaching fee agreed")]  # fmt: skip


@pytest.mark.parametrize(
    ("said", "facts"),
    [
        # A year names no day: "last year" / "next year" is no date for a date field.
        (
            [
                ("u", "My friend paid S$280."),
                ("a", "That was a promotion last year. S$300?"),
                ("u", "OK, 300 is fine."),
            ],
            {"coaching_fee": {"amount": 300, "currency": "SGD"}},
        ),
        ([("a", "When is your next race?"), ("u", "Next year, not sure when.")], {}),
        (
            [("a", "When is your next race?"), ("u", "The 3rd of March next year.")],
            {"race_date": "2027-03-03"},
        ),
    ],
)
def test_a_year_alone_is_no_date(said: list[tuple[str, str]], facts: dict[str, Any]) -> None:
    assert _facts(said, RACE) == facts


def test_the_fields_own_noun_is_no_thing_named_with_another() -> None:
    said = [("u", "Both orders please."),
            ("a", "50213377: 2 parcels, and 50219904: 3 parcels.")]  # fmt: skip
    facts = _facts(said, DESK, known={"parcels:50213377": "2"})
    assert facts == {"parcels:50219904": 3}  # not "parcels:parcels"
