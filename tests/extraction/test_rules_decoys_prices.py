"""Sentences the seventh session's rules first misread, found by an independent review of the
diff (each run before and after): a price not agreed to, "Do you know when …?", "Oh right",
"no worries", two prices, switches said as rules, a place after a name, names of bookings,
"any other …", statuses of other things, a yes beside a promise, someone else's answer to a
reference field. Each must hold after any later change."""

from __future__ import annotations

import datetime
import functools
from typing import Any

from tests.extraction.dialogue import dialogue_facts


def _f(key: str, type_: str, description: str, **extra: Any) -> dict[str, Any]:
    return {"key": key, "description": description, "category": "temporal", "type": type_, **extra}


TUE = datetime.datetime(2026, 11, 17, 9, 0, tzinfo=datetime.UTC)
_facts = functools.partial(dialogue_facts, start=TUE, user="Sam Reid", agent="Kit")
COST = [_f("repair_cost", "money", "Cost of the repair the customer agreed to")]
PLAN = [_f("plan", "enum", "The plan", choices=["Basic", "Premium"]),
        _f("monthly_price", "money", "Monthly price of the plan")]  # fmt: skip


def test_a_price_is_not_agreed_by_talking_it_over_or_by_yes_to_something_else() -> None:
    assert _facts([("a", "That's £145 for the screen."),
                   ("u", "Okay, I'll talk it over with my husband and call back.")], COST) == {}  # fmt: skip
    assert _facts([("a", "That'll be £145 for the screen."), ("u", "Right. That's quite a lot.")],
                  COST) == {}  # fmt: skip
    assert _facts([("a", "That would be £145. Would you like me to email you the details?"),
                   ("u", "Yes please.")], COST) == {}  # fmt: skip


def test_two_prices_the_one_picked_or_none() -> None:
    assert "monthly_price" not in _facts(
        [("a", "Basic is £20 a month and Premium's £54.99 a month."), ("u", "Ok, I'll go with Basic.")],
        PLAN,
    )  # fmt: skip
    models = [_f("price", "money", "Price of the part the customer chose")]
    facts = _facts([("a", "That's $118 for the C5, or $95 for the C3."), ("u", "I'll take the C3.")],
                   models)  # fmt: skip
    assert facts == {"price": {"amount": 95, "currency": "USD"}}


def test_do_you_know_when_asks_when() -> None:
    fields = [_f("in_contract", "boolean", "Whether the customer is still in contract")]
    turns = [("a", "Do you know when your contract ends?"), ("u", "No, sorry, no idea.")]
    assert _facts(turns, fields) == {}


def test_oh_right_is_no_yes_and_no_worries_is_no_no() -> None:
    cover = [_f("breakdown_cover", "boolean", "Whether breakdown cover is added")]
    asked = [("a", "Would you like us to add breakdown cover for £7 a month?"),
             ("u", "Oh right, what does that cover exactly?")]  # fmt: skip
    assert _facts(asked, cover) == {}
    slot = [_f("appointment_date", "date", "Date of the appointment")]
    turns = [("a", "I can do Friday at 3pm. Does that work?"),
             ("u", "Oh no worries, Friday at 3 works for me.")]  # fmt: skip
    assert _facts(turns, slot) == {"appointment_date": "2026-11-20"}


def test_a_switch_said_as_a_rule_or_two_switches_is_no_report() -> None:
    fields = [_f("roaming", "boolean", "Whether roaming is switched on"),
              _f("direct_debit", "boolean", "Whether the customer pays by direct debit")]  # fmt: skip
    assert _facts([("a", "Roaming is off on your plan by default, but I can turn it on. Would you "
                         "like that?"), ("u", "Yes please.")], fields).get("roaming") is not False  # fmt: skip
    swap = [("a", "I've cancelled the old direct debit and set up the new one."), ("u", "Great.")]
    assert _facts(swap, fields) == {}


def test_no_team_or_company_but_a_place_or_a_problem() -> None:
    fields = [
        _f("name", "string", "Caller's name"),
        _f("company", "string", "The customer's company"),
    ]
    for said in ("Hi, this is Sam Reid from Leeds, I'm calling about my boiler.",
                 "Morning, Sam Reid here, VPN is down again.", "Sam Reid, 14 Hill Street."):  # fmt: skip
        assert "company" not in _facts([("a", "How can I help?"), ("u", said)], fields)


def test_a_booking_name_is_the_users() -> None:
    fields = [_f("booking_name", "string", "Name the booking is under")]
    turns = [("a", "What name is the booking under?"), ("u", "Sam Reid.")]
    assert _facts(turns, fields) == {"booking_name": "Sam Reid"}


def test_none_of_some_is_no_count() -> None:
    fields = [_f("driver_count", "number", "Number of drivers on the policy")]
    assert (
        _facts([("a", "Are there any other drivers on the policy?"), ("u", "No, none.")], fields)
        == {}
    )


def test_other_things_states_are_not_the_fields() -> None:
    status = [_f("policy_status", "enum", "Where the policy stands",
                 choices=["active", "lapsed", "cancelled"])]  # fmt: skip
    card = [("a", "I see the last payment on your policy failed."),
            ("u", "Yes, my card expired, that's why. Can I give you the new one?")]  # fmt: skip
    assert _facts(card, status) == {}
    app = [_f("application_status", "enum", "Where the mortgage application stands",
              choices=["submitted", "approved", "declined"])]  # fmt: skip
    report = [
        ("a", "Any update?"),
        ("u", "The valuation report came through yesterday but no decision."),
    ]
    assert _facts(report, app) == {}


def test_a_yes_beside_a_promise_holds() -> None:
    fields = [_f("smoker", "boolean", "Whether the user smokes")]
    assert _facts([("a", "Okay, noted."), ("u", "I'm a smoker, I'll be honest with you.")], fields) == {
        "smoker": True
    }  # fmt: skip


def test_someone_elses_answer_to_a_reference_field_is_none() -> None:
    fields = [_f("booking_reference", "string", "The booking reference")]
    turns = [("a", "Can I take your booking reference?"),
             ("u", "My wife's got the reference, she booked it.")]  # fmt: skip
    assert _facts(turns, fields) == {}
