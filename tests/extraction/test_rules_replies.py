"""Short replies a letting agent and a phone shop hear: an amount with "max" after someone
else's, a yes/no question answered with one of its kind, an employer whose name has an "'s",
and "go on then" to an offer. Written for these tests, not taken from any benchmark."""

from __future__ import annotations

import datetime
import functools
from typing import Any

from extraction.extractors import Usage, WindowTurn
from extraction.extractors.rules import RulesExtractor
from tests.extraction.dialogue import dialogue_facts

LETTING: list[dict[str, Any]] = [
    {"key": "monthly_rent_budget", "description": "Most the tenant will pay in rent each month",
     "category": "temporal", "type": "money"},
    {"key": "bedrooms", "description": "Number of bedrooms wanted", "category": "temporal", "type": "number"},
    {"key": "has_pets", "description": "Does the tenant have pets?", "category": "profile", "type": "boolean"},
    {"key": "employer", "description": "Where the tenant works", "category": "profile", "type": "string"},
]  # fmt: skip
PHONES: list[dict[str, Any]] = [
    {"key": "plan", "description": "Mobile plan the customer is on", "category": "temporal", "type": "enum",
     "choices": ["basic 10GB", "plus 50GB", "unlimited"]},
]  # fmt: skip
TUE = datetime.datetime(2026, 4, 14, 9, 0, tzinfo=datetime.UTC)


_facts = functools.partial(dialogue_facts, start=TUE, user="Priya Shah", agent="Tom")


def test_a_bare_amount_with_max_is_the_users_budget_not_the_sisters() -> None:
    facts = _facts([("u", "My sister pays £2,400 for a one-bed in Hackney, crazy"),
                    ("a", "Prices are wild. What's yours?"), ("u", "1,650 max")], LETTING)  # fmt: skip
    assert facts == {"monthly_rent_budget": {"amount": 1650, "currency": "GBP"}}


def test_a_yes_no_question_answered_with_one_of_its_kind() -> None:
    """ "Any pets?" — "just a cat" is a yes; "my landlord doesn't allow pets" is not."""
    assert (
        _facts([("a", "Any pets?"), ("u", "just a cat, she's very quiet")], LETTING)["has_pets"]
        is True
    )
    assert "has_pets" not in _facts(
        [("a", "Any pets?"), ("u", "my landlord won't allow pets")], LETTING
    )
    assert _facts([("a", "Any pets?"), ("u", "nope")], LETTING)["has_pets"] is False


def test_a_name_with_an_apostrophe_s_is_a_name_not_someone_elses() -> None:
    facts = _facts(
        [("a", "Who's your employer?"), ("u", "I'm a nurse at King's College Hospital")], LETTING
    )
    assert facts["employer"] == "King's College Hospital"


def test_go_on_then_accepts_an_offer() -> None:
    facts = _facts([("a", "You're on basic 10GB. I can move you to plus 50GB for £18 a month. Want that?"),
                    ("u", "go on then")], PHONES)  # fmt: skip
    assert facts["plan"] == "plus 50GB"


TRIP: list[dict[str, Any]] = [
    {"key": "depart_date", "description": "Outbound flight date", "category": "temporal", "type": "date"},
    {"key": "return_date", "description": "Return flight date", "category": "temporal", "type": "date"},
    {"key": "travellers", "description": "How many people are travelling", "category": "temporal",
     "type": "number"},
    {"key": "cabin", "description": "Cabin class", "category": "temporal", "type": "enum",
     "choices": ["economy", "premium economy", "business"]},
    {"key": "seat_pref", "description": "Seat preference", "category": "profile", "type": "enum",
     "choices": ["window", "aisle", "no preference"]},
]  # fmt: skip


def test_two_dates_in_one_sentence_go_to_the_fields_their_words_name() -> None:
    facts = _facts([("a", "What dates?"), ("u", "out on the 12th of May, back on the 19th")], TRIP)
    assert (facts["depart_date"], facts["return_date"]) == ("2026-05-12", "2026-05-19")


def test_a_bare_day_moves_a_held_date_within_its_month() -> None:
    window = [WindowTurn(0, "s", 0, "assistant", "When do you fly out?", TUE, "Tom", "Priya Shah"),
              WindowTurn(1, "s", 1, "user", "the 13th", TUE, "Priya Shah", "Tom")]  # fmt: skip
    facts = RulesExtractor().extract_facts(window, TRIP, Usage(), {"depart_date": "2026-06-12"})
    assert {f.key: f.value for f in facts}["depart_date"] == "2026-06-13"


def test_the_longest_choice_named_and_a_reply_that_does_not_mind() -> None:
    corrected = _facts(
        [("u", "Economy is fine. Actually, make it premium economy, it's a long flight.")], TRIP
    )
    assert corrected["cabin"] == "premium economy"
    assert (
        _facts([("a", "Window or aisle?"), ("u", "don't mind really")], TRIP)["seat_pref"]
        == "no preference"
    )


def test_a_party_listed_is_counted() -> None:
    """ "How many travelling?" — "me, my wife and our two kids" is 4, not the 2 it says."""
    facts = _facts([("a", "How many travelling?"), ("u", "me, my wife and our two kids")], TRIP)
    assert facts["travellers"] == 4
    assert _facts([("a", "How many travelling?"), ("u", "4 of us")], TRIP)["travellers"] == 4


PHARMACY: list[dict[str, Any]] = [
    {"key": "gp_name", "description": "Name of the patient's GP", "category": "profile", "type": "string"},
    {"key": "delivery", "description": "Pick up at the pharmacy or home delivery", "category": "temporal",
     "type": "enum", "choices": ["pick up", "home delivery"]},
    {"key": "weekly_units", "description": "Alcohol units a week", "category": "temporal", "type": "number"},
]  # fmt: skip


def test_a_gp_is_not_the_patient_and_and_you_asks_what_someone_else_was_asked() -> None:
    """ "Who's your GP?" — "Dr Okafor": the GP's name, not the user's; "my wife drinks about 14
    units" — "And yourself?" — "6 or so": the user's 6, hedged."""
    assert _facts([("a", "Who's your GP?"), ("u", "Dr Okafor at Mill Lane surgery")], PHARMACY) == {
        "gp_name": "Dr Okafor"
    }
    facts = _facts([("u", "my wife drinks more than me, about 14 units"), ("a", "And yourself?"),
                    ("u", "6 or so")], PHARMACY)  # fmt: skip
    assert facts == {"weekly_units": 6}


def test_what_the_agent_says_last_stands_and_its_own_budget_is_not_the_users() -> None:
    """A window that ends on the agent's "Yes, home delivery it is." keeps it (inferred: nobody
    objected); "My budget for this search is 90 lakhs" is the agent's own."""
    facts = _facts([("u", "I usually pick up but can you deliver this time? My knee's bad"),
                    ("a", "Yes, home delivery it is.")], PHARMACY)  # fmt: skip
    assert facts == {"delivery": "home delivery"}
    own = _facts([("a", "My budget for this search is 90 lakhs."), ("u", "ok")], LETTING)
    assert "monthly_rent_budget" not in own


SCHOOL: list[dict[str, Any]] = [
    {"key": "course_fee", "description": "Total fee the student has agreed to pay", "category": "temporal",
     "type": "money"},
    {"key": "hours_per_week", "description": "Lesson hours a week", "category": "temporal", "type": "number"},
]  # fmt: skip


def test_a_total_the_agent_works_out_and_revises_is_the_fee() -> None:
    """ "… comes to €1,500. Shall I book it?" — "yes book it"; then "the total is €1,350 instead
    of €1,500" replaces it (a revised value is not held back by the one stored)."""
    facts = _facts([("a", "Ten weeks at €150 a week comes to €1,500. Shall I book it?"), ("u", "yes book it")],
                   SCHOOL)  # fmt: skip
    assert facts["course_fee"] == {"amount": 1500, "currency": "EUR"}
    window = [WindowTurn(0, "s", 0, "assistant", "With the early-bird discount the total is €1,350 instead of "
                         "€1,500.", TUE, "Tom", "Priya Shah"),
              WindowTurn(1, "s", 1, "user", "brilliant, thanks", TUE, "Priya Shah", "Tom")]  # fmt: skip
    revised = RulesExtractor().extract_facts(window, SCHOOL, Usage(), {"course_fee": "€1,500"})
    assert {f.key: f.value for f in revised}["course_fee"] == {"amount": 1350, "currency": "EUR"}


def test_the_value_a_question_offers_instead_of_another_is_the_one_taken_up() -> None:
    facts = _facts([("u", "Could I drop to 10 hours a week instead of 15?"), ("a", "Sure, 10 hours from next week.")],
                   SCHOOL)  # fmt: skip
    assert facts["hours_per_week"] == 10


def test_the_users_own_words_after_someone_elses_take_the_value() -> None:
    """ "my wife agrees, we'll go up to £1,900": the user's budget; "my brother earns 90k, I
    think" stays the brother's."""
    facts = _facts([("a", "Did you talk the rent over at home?"),
                    ("u", "Yes, my wife agrees, we'll go up to £1,900 a month")], LETTING)  # fmt: skip
    assert facts["monthly_rent_budget"] == {"amount": 1900, "currency": "GBP"}
    facts = _facts([("u", "My brother pays £2,300 a month, I think, for his place")], LETTING)
    assert "monthly_rent_budget" not in facts


GYM: list[dict[str, Any]] = [
    {"key": "has_injury", "description": "Does the member have an injury?", "category": "temporal", "type": "boolean"},
    {"key": "has_debts", "description": "Whether the applicant has other debts", "category": "temporal", "type": "boolean"},
]  # fmt: skip


def test_any_x_answered_with_one_named_or_with_nothing() -> None:
    """ "Any injuries?" — "Bit of a dodgy shoulder from rugby" is a yes; "Nothing at the
    moment" a no; "Why do you ask?" neither."""
    assert _facts([("a", "Any injuries we should know about?"),
                   ("u", "Bit of a dodgy shoulder from rugby")], GYM) == {"has_injury": True}  # fmt: skip
    assert _facts([("a", "Any other debts?"), ("u", "Nothing, thankfully")], GYM) == {
        "has_debts": False
    }
    assert (
        _facts([("a", "Any injuries we should know about?"), ("u", "Why do you ask?")], GYM) == {}
    )
