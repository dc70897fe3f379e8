"""Advice the user only puts off writes nothing; a pet of someone outside the household is not
the user's, one of the household's is; a brand is no pet's name; "up to date" names no date; a
name said again in full is the full name (issue 15: proposals never accepted, distractors,
qualifiers, answers)."""

from __future__ import annotations

import datetime
import functools
from typing import Any

from tests.extraction.dialogue import dialogue_facts

T = datetime.datetime(2026, 4, 15, 10, 0, tzinfo=datetime.UTC)
_facts = functools.partial(dialogue_facts, start=T, user="Arjun Kulkarni", agent="Pooja")


def _field(key: str, type_: str, description: str, **more: Any) -> dict[str, Any]:
    return {"key": key, "description": description, "category": "temporal", "type": type_, **more}


COVER = [_field("pet_insurance", "enum", "What insurance cover the owner has for their animals",
                choices=["none", "accident only", "time limited", "lifetime"])]  # fmt: skip
PLAN = [_field("plan", "enum", "Which broadband plan the customer is on",
               choices=["basic", "fibre 100", "fibre 500"])]  # fmt: skip
PETS = [
    _field("diet", "string", "Food the pet is on, one per pet (diet:<name>)"),
    _field(
        "weight_kg", "number", "Latest weight of each pet in kg, one per pet (weight_kg:<name>)"
    ),
]
AGES = [_field("age", "number", "Age of each pet in years, one per pet (age:<name>)"),
        _field("weight_kg", "number", "Weight of each pet in kg, one per pet (weight_kg:<name>)")]  # fmt: skip
NAME = [_field("name", "string", "The customer's full name")]
VISIT = [
    _field("next_appointment", "date", "Date of the next booked appointment at the clinic"),
    _field("vaccinations_current", "boolean", "Are the pet's core vaccinations up to date?"),
]
ADVICE = "For a Persian I'd consider at least accident cover. I can share a brochure."


def test_advice_put_off_writes_nothing() -> None:
    for reply in ("ok send, will see", "Ok, I'll have a think", "ok we'll see", "thanks",
                  "Hmm, I'll read it and decide"):  # fmt: skip
        assert _facts([("a", ADVICE), ("u", reply)], COVER) == {}, reply


def test_advice_taken_is_confirmed() -> None:
    assert _facts([("a", ADVICE), ("u", "ok, go on then, sign me up")], COVER) == {
        "pet_insurance": "accident only"
    }
    assert _facts([("a", "You should switch to fibre 500, it's the same price now."),
                   ("u", "Yes please, do it")], PLAN) == {"plan": "fibre 500"}  # fmt: skip


def test_advice_is_not_the_users_value_unanswered() -> None:
    assert _facts([("a", "You could upgrade to fibre 500 if the speed bothers you."),
                   ("u", "We'll see how it goes this month")], PLAN) == {}  # fmt: skip


def test_seeing_someone_is_no_deferral() -> None:
    assert _facts([("a", "Shall I put you on fibre 100 from Monday?"),
                   ("u", "Yes, great, I'll see you then")], PLAN) == {"plan": "fibre 100"}  # fmt: skip


def test_a_pet_of_someone_outside_the_household_is_not_the_users() -> None:
    said = "btw my sister's cat Simba is also on Royal Canin, he is 6 kg, should she also come?"
    assert _facts([("a", "Anything else?"), ("u", said)], PETS) == {}
    # the household's own pets are the user's
    assert _facts([("a", "Anything else?"), ("u", "my son's rabbit Coco is on Burgess pellets")],
                  PETS) == {"diet:Coco": "on Burgess pellets"}  # fmt: skip


def test_a_thing_of_the_households_is_the_users() -> None:
    assert _facts(
        [("a", "Anything else?"), ("u", "My son's rabbit Coco is 3 years old.")], AGES
    ) == {"age:Coco": 3}
    assert _facts([("a", "Anything else?"), ("u", "Our daughter's pony Bramble weighs about 300 kg.")],
                  AGES) == {"weight_kg:Bramble": 300}  # fmt: skip
    assert _facts([("a", "Anything else?"), ("u", "My cousin's pony Duke weighs about 300 kg.")],
                  AGES) == {}  # fmt: skip


def test_a_thing_value_stops_where_the_next_predicate_starts() -> None:
    facts = _facts([("a", "How is Mishti doing?"), ("u", "Mishti is on Hills Hairball and weighs 4 kg")],
                   PETS)  # fmt: skip
    # the brand after "on" is no pet's name: the weight is Mishti's
    assert facts == {"diet:Mishti": "on Hills Hairball", "weight_kg:Mishti": 4}


def test_a_name_said_again_in_full_is_the_full_name() -> None:
    assert _facts([("a", "Can I get your name?"), ("u", "Linda. Linda Hayes.")], NAME) == {
        "name": "Linda Hayes"
    }
    assert _facts([("a", "Can I get your name?"), ("u", "Linda. Hi.")], NAME) == {"name": "Linda"}


def test_up_to_date_names_no_date() -> None:
    facts = _facts([("a", "Thanks. Is her vaccination up to date?"),
                    ("u", "Yes. Both done in January")], VISIT)  # fmt: skip
    assert "next_appointment" not in facts


SUPPLY = [_field("days_supply", "number", "How many days of medication the patient wants per fill")]
TRAINING = [_field("sessions_per_week", "number", "How many sessions a week the client trains")]


def test_a_span_said_with_a_is_one_of_it() -> None:
    asked = ("a", "How much of each, a month's worth?")
    assert _facts([asked, ("u", "A month, yes.")], SUPPLY) == {"days_supply": 30}
    assert _facts([asked, ("u", "Just a fortnight this time")], SUPPLY) == {"days_supply": 14}
    # a rate is no stretch of time: "once a week", "3 sessions a week"
    assert _facts(
        [("a", "How often do you train?"), ("u", "I do 3 sessions a week")], TRAINING
    ) == {"sessions_per_week": 3}
    assert _facts([asked, ("u", "I pop in once a week anyway")], SUPPLY) == {}


DIETS = [
    _field("dietary", "string", "Dietary need of each guest, one fact per guest (dietary:<name>)")
]


def test_same_is_a_reference_and_too_is_no_part_of_a_value() -> None:
    said = "Both of them, Lucy and Tom. Lucy is vegan and Tom is vegan too."
    assert _facts([("a", "Any dietary needs for the guests?"), ("u", said)], DIETS) == {
        "dietary:Lucy": "vegan",
        "dietary:Tom": "vegan",
    }
    assert _facts([("a", "Any dietary needs for Tom?"), ("u", "Tom is the same")], DIETS) == {}


MEDS = [
    _field("medication", "string",
           "Current dose and schedule of each medication, one fact per medication (medication:metformin)"),
    _field("next_review", "date", "Date of the next review appointment"),
]  # fmt: skip


def test_a_things_value_changed_to_is_its_new_value() -> None:
    told = "Dr Mehta reviewed your report. He's increased metformin to 1000 mg twice a day."
    assert _facts(
        [("a", told), ("u", "ok thanks")], MEDS, {"medication:metformin": "500mg twice a day"}
    ) == {"medication:metformin": "1000 mg twice a day"}
    said = "Yes, the doctor changed my metformin to 1000 mg twice a day."
    assert _facts([("a", "Any changes to your medicines?"), ("u", said)], MEDS) == {
        "medication:metformin": "1000 mg twice a day"
    }
    # someone else's dose changed is not the user's (found by a review: "his", "her")
    for said in ("My husband's GP increased his metformin to 1000mg twice a day.",
                 "Mum's GP reduced her metformin to 500 mg daily, can I collect it for her?"):  # fmt: skip
        assert _facts([("a", "Anything else?"), ("u", said)], MEDS) == {}, said
    # a day moved is no thing's value
    assert "medication:metformin" not in _facts(
        [("a", "I've moved your review to Friday."), ("u", "ok")], MEDS
    )


TRIP = [
    _field("seat_preference", "enum", "Window or aisle seat", choices=["window", "aisle", "no preference"]),
    _field("dietary", "string", "A dietary requirement for meals", examples=["vegetarian", "no shellfish"]),
]  # fmt: skip
VISIT_AT = [_field("suburb", "string", "Suburb, neighbourhood or locality of the property")]


def test_a_short_answer_no_choice_of_the_first_field_takes_the_next() -> None:
    # "preference" names the seat first, "meal" the diet: "Vegetarian." is no seat
    assert _facts([("a", "Any meal preference?"), ("u", "Vegetarian.")], TRIP) == {
        "dietary": "Vegetarian"
    }
    assert _facts([("a", "Any seat preference?"), ("u", "Window please.")], TRIP) == {
        "seat_preference": "window"
    }


def test_an_area_is_a_suburb() -> None:
    assert _facts([("a", "And what area are you in?"), ("u", "uh, Ahwatukee.")], VISIT_AT) == {
        "suburb": "Ahwatukee"
    }


JOB = [
    _field("current_company", "string", "The company the candidate works for currently"),
    _field("notice_period_days", "number", "The candidate's notice period in days"),
]


def test_a_number_that_answers_nothing_does_not_block_the_text_answer() -> None:
    facts = _facts([("a", "Where are you working currently?"), ("u", "At Zenlytics, for four years now.")],
                   JOB)  # fmt: skip
    assert facts.get("current_company") == "Zenlytics"
