"""Sentences the new rules must leave alone (found by an independent review of the rules for
statuses, choices, slots, amounts and answers): each once wrote a wrong fact."""

from __future__ import annotations

import datetime
import functools
from typing import Any

from tests.extraction.dialogue import dialogue_facts

T = datetime.datetime(2026, 4, 14, 9, 0, tzinfo=datetime.UTC)
_facts = functools.partial(dialogue_facts, start=T, user="Priya Shah", agent="Tom")


def _field(key: str, type_: str, description: str, **more: Any) -> dict[str, Any]:
    return {"key": key, "description": description, "category": "temporal", "type": type_, **more}


ORDER = [
    _field("order_status", "enum", "Where the order is", choices=["shipped", "delivered", "lost"])
]
CLAIM = [
    _field(
        "claim_status", "enum", "Status of the claim", choices=["submitted", "approved", "rejected"]
    )
]
RATE = [_field("rate_type", "enum", "Fixed or variable rate", choices=["fixed", "variable"])]
COFFEE = [_field("size", "enum", "Drink size", choices=["small", "medium", "large"])]
HEALTH = [_field("has_allergies", "boolean", "Does the patient have allergies?"),
          _field("has_injury", "boolean", "Does the member have an injury?")]  # fmt: skip
MOBILE = [_field("network", "string", "Mobile network the customer is with"),
          _field("name", "string", "The customer's name")]  # fmt: skip
RENT = [_field("current_rent", "money", "What the tenant pays in rent now")]
TRIP = [_field("return_date", "date", "Date the traveller comes back")]
VISIT = [_field("next_appointment", "date", "Next check-up, booked at the end of the last visit")]


def test_ordinary_sentences_set_no_status() -> None:
    assert _facts([("a", "What's the order number?"), ("u", "I can't find the order number, sorry.")],
                  ORDER, {"order_status": "shipped"}) == {}  # fmt: skip
    assert _facts([("u", "Sorry, I didn't get your email with the form.")], CLAIM,
                  {"claim_status": "submitted"}) == {}  # fmt: skip


def test_an_ordinal_that_starts_a_thought_picks_nothing() -> None:
    assert _facts([("a", "Would you prefer fixed or variable?"),
                   ("u", "Well, first I need to check with my wife.")], RATE) == {}  # fmt: skip


def test_a_choice_said_before_its_noun_is_still_the_choice() -> None:
    assert _facts([("a", "What can I get you?"), ("u", "A large flat white please")], COFFEE) == {
        "size": "large"
    }


def test_thinking_aloud_and_nothing_serious_are_no_answers_of_no() -> None:
    assert "has_injury" not in _facts([("a", "Any injuries I should know about?"),
                                       ("u", "Hmm let me think")], HEALTH)  # fmt: skip
    assert _facts([("a", "Any allergies I should note?"),
                   ("u", "Nothing serious, just a mild nut allergy.")], HEALTH).get("has_allergies") is not False  # fmt: skip


def test_whom_someone_lives_with_and_a_network_left_are_no_network() -> None:
    assert "network" not in _facts([("a", "Who is your son staying with?"), ("u", "Grandma Rose.")],
                                   MOBILE)  # fmt: skip
    assert "network" not in _facts([("u", "I'm not with Vodafone any more, I switched last year.")],
                                   MOBILE)  # fmt: skip


def test_someone_here_for_a_relatives_appointment_still_gives_their_name() -> None:
    facts = _facts([("u", "Hi, I'm Priya Shah, here for my son's appointment.")], MOBILE)
    assert facts.get("name") == "Priya Shah"


def test_too_much_about_ones_own_value_still_states_it() -> None:
    facts = _facts([("a", "What do you pay in rent now?"),
                    ("u", "£1,200 a month is too much, that's why I'm moving.")], RENT)  # fmt: skip
    assert facts == {"current_rent": {"amount": 1200, "currency": "GBP"}}


def test_back_in_a_month_ahead_and_a_last_visit_in_a_description() -> None:
    assert _facts([("u", "I'll be back in June.")], TRIP) == {"return_date": "2026-06-01"}
    assert _facts([("a", "When would you like to come in?"), ("u", "Friday the 24th of April please")],
                  VISIT) == {"next_appointment": "2026-04-24"}  # fmt: skip
