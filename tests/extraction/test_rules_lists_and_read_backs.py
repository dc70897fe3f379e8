"""Several things in one breath, "same as" another thing, counts said as "ten of us", names said
again in full, weekdays typed in a hurry, rates and changes of money, read-backs of another
field's value, bounds, pronouns and places that are no one's name (issue 15: qualifiers,
references, corrections, distractors, answers). Written from the fourteenth session's blind
probe sets and scenario suite (bench/dialogue_probes/fresh_l.json, fresh_m.json,
bench/scenarios_dev4/), in other words than theirs."""

from __future__ import annotations

import datetime
import functools
from typing import Any

from tests.extraction.dialogue import dialogue_facts

T = datetime.datetime(2027, 4, 14, 10, 0, tzinfo=datetime.UTC)  # a Wednesday
_facts = functools.partial(dialogue_facts, start=T, user="Ruth Adler", agent="Sam")


def _field(key: str, type_: str, description: str, **more: Any) -> dict[str, Any]:
    return {"key": key, "description": description, "category": "temporal", "type": type_, **more}


WEIGHTS = [
    _field("weight_kg", "number", "Weight in kg of a dog, one fact per dog (weight_kg:bella)")
]
AREAS = [
    _field(
        "area_sqm",
        "number",
        "Size in square metres of a part of the garden, one fact per area (area_sqm:back)",
    )
]
GRADES = [
    _field(
        "predicted_grade",
        "enum",
        "Predicted grade, one fact per subject (predicted_grade:chemistry)",
        choices=["A*", "A", "B", "C"],
    )
]
PARTY = [_field("party_size", "number", "Number of people in the party")]
NAME = [_field("customer_name", "string", "Name of the customer the quote is for")]
WALKS = [
    _field(
        "walk_day",
        "enum",
        "Weekday of the regular walk",
        choices=["monday", "tuesday", "wednesday", "thursday", "friday"],
    )
]
FREELANCE = [
    _field("hourly_rate_cap", "money", "The most the client will pay a freelancer per hour"),
    _field("team_size", "number", "How many freelancers the client wants to hire"),
    _field(
        "weekly_hours",
        "number",
        "Hours a week agreed with one freelancer, qualified by the freelancer's first name (weekly_hours:Sam)",
    ),
    _field("service_fee_percent", "number", "The marketplace's service fee, in percent"),
]
MOTOR = [
    _field(
        "annual_mileage",
        "number",
        "How far the car is driven in a year",
        examples=["about 8,000 miles a year"],
    ),
    _field(
        "voluntary_excess", "money", "The excess the customer chooses to pay towards each claim"
    ),
    _field(
        "quoted_premium",
        "money",
        "The annual premium the insurer quotes for the customer's cover",
        examples=["£412 a year"],
    ),
    _field(
        "cover_level", "enum", "The level of cover", choices=["comprehensive", "third party only"]
    ),
    _field("cover_start_date", "date", "The date the policy's cover starts"),
    _field(
        "driver_age",
        "number",
        "The age of a driver, qualified by the driver's first name (driver_age:Sam)",
        minimum=16,
        maximum=110,
    ),
]


def test_several_things_each_with_its_value() -> None:
    said = [
        ("a", "Roughly how heavy are they?"),
        ("u", "Otto's about 9 kilos and Bruno's a big lad, 34 at the vet"),
    ]
    assert _facts(said, WEIGHTS) == {"weight_kg:otto": 9, "weight_kg:bruno": 34}
    said = [("a", "How big are the areas?"), ("u", "side's narrow, maybe 8 m2. back is about 50")]
    assert _facts(said, AREAS) == {"area_sqm:side": 8, "area_sqm:back": 50}


def test_same_as_another_thing_copies_its_value() -> None:
    said = [("a", "And Nell, what does she weigh?"), ("u", "Same as Otto, they're littermates.")]
    assert _facts(said, WEIGHTS, {"weight_kg:otto": "11"}) == {"weight_kg:nell": 11}
    said = [("a", "And what's the prediction for history?"), ("u", "Same as physics.")]
    assert _facts(said, GRADES, {"predicted_grade:physics": "B"}) == {
        "predicted_grade:history": "B"
    }


def test_a_one_letter_choice_is_read_as_written() -> None:
    said = [
        ("a", "What are your predicted grades?"),
        ("u", "chemistry A, and biology's predicted a B"),
    ]
    assert _facts(said, GRADES) == {
        "predicted_grade:chemistry": "A",
        "predicted_grade:biology": "B",
    }


def test_people_counted_in_words() -> None:
    said = [("a", "How many will you be?"), ("u", "six — sorry, nine of us, forgot my cousins")]
    assert _facts(said, PARTY) == {"party_size": 9}
    said = [
        ("a", "Hello, how can I help?"),
        ("u", "I've a table for eight on Friday, two can't come, so it's just six of us now."),
    ]
    assert _facts(said, PARTY) == {"party_size": 6}


def test_a_name_said_again_in_full() -> None:
    assert _facts(
        [("a", "Name for the quote?"), ("u", "Ruth Adler only. My husband Leo will be in.")], NAME
    ) == {"customer_name": "Ruth Adler"}
    assert _facts(
        [("a", "What name shall I put?"), ("u", "Ruth. Surname Adler, A-D-L-E-R.")], NAME
    ) == {"customer_name": "Ruth Adler"}
    assert _facts(
        [
            ("a", "Hello, how can I help?"),
            ("u", "Hiya, I'm Ruth, Ruth Adler, calling about a quote."),
        ],
        NAME,
    ) == {"customer_name": "Ruth Adler"}
    assert _facts([("a", "Have a good day!"), ("u", "Bye Leo, love you!")], NAME) == {}


def test_a_weekday_typed_in_a_hurry() -> None:
    said = [
        ("a", "Anything to change?"),
        ("u", "can we move it to wednsdays? mondays dont work any more"),
    ]
    assert _facts(said, WALKS, {"walk_day": "monday"}) == {"walk_day": "wednesday"}


def test_an_hourly_rate_is_money_and_a_percent_is_not() -> None:
    said = [("a", "Budget is $20,000. And the most you'd pay per hour?"), ("u", "Seventy an hour.")]
    assert _facts(said, FREELANCE)["hourly_rate_cap"] == {"amount": 70, "currency": "USD"}
    said = [("a", "On Starter you pay a 7% service fee on each payment."), ("u", "ok")]
    assert "hourly_rate_cap" not in _facts(said, FREELANCE)


def test_a_read_back_of_another_fields_value() -> None:
    said = [
        ("a", "Just one developer, or a designer too?"),
        ("u", "both. 2 people"),
        ("a", "Noted, two freelancers. I'll shortlist some developers."),
    ]
    assert _facts(said, FREELANCE) == {"team_size": 2}


def test_money_changes_and_others_prices() -> None:
    said = [
        (
            "a",
            "With the new car your annual premium becomes £502.10. For the rest of the year that's an extra £28.40.",
        ),
        ("u", "That's fine. Go ahead."),
    ]
    assert _facts(said, MOTOR, {"quoted_premium": "£470"})["quoted_premium"] == {
        "amount": 502.1,
        "currency": "GBP",
    }
    said = [
        ("a", "Anything else?"),
        ("u", "My granddaughter Ella pays £2,300 for her Fiesta, mind you."),
    ]
    assert _facts(said, MOTOR) == {}
    said = [
        ("u", "cheaper with a higher excess?"),
        ("a", "Yes — with a £750 excess it drops to £455 a year."),
        ("u", "ok do that"),
    ]
    assert _facts(said, MOTOR)["voluntary_excess"] == {"amount": 750, "currency": "GBP"}


def test_readings_in_words_and_taken_back() -> None:
    said = [
        ("a", "What would you estimate now?"),
        ("u", "My son worked it out. Nine and a half thousand a year, he says."),
        ("a", "9,500 miles. I'll update that."),
    ]
    assert _facts(said, MOTOR)["annual_mileage"] == 9500
    said = [
        ("a", "Still about 9,500 miles a year?"),
        ("u", "Less. Put eight thou— no, I tell a lie. Six thousand."),
    ]
    assert _facts(said, MOTOR)["annual_mileage"] == 6000
    said = [
        ("a", "Still about 9,500 miles a year?"),
        ("u", "Yes, I think so. I'll know better after a few months."),
    ]
    assert _facts(said, MOTOR, {"annual_mileage": "9,500"}).get("annual_mileage") in (None, 9500)


def test_bounds_short_forms_and_a_day_that_is_no_answer() -> None:
    said = [
        ("a", "Comprehensive, street parked, two drivers aged 31 and 33: £980 a year."),
        ("u", "ok"),
    ]
    assert not any(k.startswith("driver_age") and v < 16 for k, v in _facts(said, MOTOR).items())
    assert _facts([("a", "Comprehensive or third party only?"), ("u", "comp")], MOTOR) == {
        "cover_level": "comprehensive"
    }
    said = [
        ("a", "Want to lock it in for 1 May?"),
        ("u", "yeh. but pls dont ring me today, text only"),
    ]
    assert _facts(said, MOTOR).get("cover_start_date") != T.date().isoformat()


def test_the_one_a_pronoun_or_a_correction_points_back_to() -> None:
    said = [
        ("a", "And who will drive it?"),
        ("u", "Me and my wife Ola. I am 44. She is 40 — no, sorry, 41."),
    ]
    assert _facts(said, MOTOR) == {"driver_age:Ruth": 44, "driver_age:Ola": 41}


def test_a_list_marker_and_a_place_are_no_values() -> None:
    said = [
        ("a", "Morning! How are Tomás and Amara getting on?"),
        ("u", "2) Tomás is only bug-fixing now, so drop him to 20 hours a week."),
    ]
    assert _facts(said, FREELANCE) == {"weekly_hours:Tomás": 20}


CLINIC = [
    _field(
        "specialty",
        "enum",
        "Which department the patient is booked into",
        choices=["cardiology", "dermatology", "orthopaedics", "ent"],
    )
]


def test_a_choice_said_in_other_words_is_the_closest_by_meaning() -> None:
    asked = "Which department is the appointment for?"
    said = [("a", asked), ("u", "My skin has come up in a nasty rash since Friday.")]
    assert _facts(said, CLINIC) == {"specialty": "dermatology"}
    assert _facts([("a", asked), ("u", "What would you suggest?")], CLINIC) == {}
    assert _facts([("a", asked), ("u", "Not sure, sorry, I'll ask the GP.")], CLINIC) == {}
    said = [("a", asked), ("u", "Not the ENT one, my knee's the problem this time.")]
    assert _facts(said, CLINIC) == {}  # a choice named is for the readers of words
