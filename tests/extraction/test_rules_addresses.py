"""A street address for the field that keeps one (rules/addresses.py), and three small readings
beside it: a reply that gives a name is not also the answer to another field the question
named ("your full name as on your passport?"), emoji are no part of a value, and "my wife is
Adaeze, she is 33" is Adaeze's age."""

from __future__ import annotations

import datetime
import functools
from typing import Any

import pytest

from extraction.extractors.rules.addresses import street_address
from tests.extraction.dialogue import dialogue_facts

TUE = datetime.datetime(2026, 3, 3, 10, 0, tzinfo=datetime.UTC)
_facts = functools.partial(dialogue_facts, start=TUE, user="Rachel Moss", agent="Sam")
PARCELS = [
    {"key": "delivery_address", "category": "profile", "type": "string",
     "description": "The customer's own address, where their parcels are delivered"},
    {"key": "zip_code", "description": "The ZIP code of the service address",
     "category": "profile", "type": "string"},
    {"key": "colour", "description": "Colour the customer wants", "category": "profile",
     "type": "string"},
]  # fmt: skip


@pytest.mark.parametrize(
    ("said", "address"),
    [
        ("22 alma rd, sheffield S11", "22 alma rd, sheffield S11"),
        ("Flat 2, 19 Beechwood Road, Harrogate. HG2 0PA.", "Flat 2, 19 Beechwood Road, Harrogate, HG2 0PA"),
        ("we're going to Cardiff, 3 Ffordd Pengam, CF3 2AE. Keys on the 30th", "3 Ffordd Pengam, CF3 2AE"),
        ("my new place. 780 Clarkson Street, apartment 3B.", "780 Clarkson Street, apartment 3B"),
        ("Unit 6, Grange Business Park, Lucan. Delivery tomorrow?", "Unit 6, Grange Business Park, Lucan"),
        ("It's 1600 Pennsylvania Avenue NW, Washington, DC 20500", "1600 Pennsylvania Avenue NW, Washington, DC 20500"),
    ],
)  # fmt: skip
def test_a_street_address_and_what_follows_it(said: str, address: str) -> None:
    found = street_address(said)
    assert found is not None and found[0] == address


@pytest.mark.parametrize(
    "said", ["I walked 5 km down the road", "I have 2 dogs in the park", "We are on the 3rd floor",
             "Take Main Street, it's faster"],
)  # fmt: skip
def test_no_address_without_a_number_and_a_street(said: str) -> None:
    assert street_address(said) is None


def test_the_address_given_whole_and_confirmed_and_not_someone_elses() -> None:
    said = _facts([("a", "And your address?"), ("u", "22 alma rd, sheffield S11")], PARCELS)
    assert said == {"delivery_address": "22 alma rd, sheffield S11"}
    moved = _facts(
        [("a", "Should they still go to 1450 Grant Street?"),
         ("u", "No, the other two need to go to my new place. 780 Clarkson Street, apartment 3B.")],
        PARCELS,
    )  # fmt: skip
    assert moved == {"delivery_address": "780 Clarkson Street, apartment 3B"}
    confirmed = _facts(
        [("a", "Can I confirm your address is Flat 402, Sunshine Apartments, Lokhandwala?"),
         ("u", "Yes, that's right.")],
        PARCELS,
    )  # fmt: skip
    assert confirmed == {"delivery_address": "Flat 402, Sunshine Apartments, Lokhandwala"}
    theirs = [("a", "Anything else?"), ("u", "My mum lives at 5 Oak Road, Leeds, she may collect.")]
    assert "delivery_address" not in _facts(theirs, PARCELS)


def test_emoji_are_no_part_of_a_text_value() -> None:
    facts = _facts([("a", "Which colour would you like?"), ("u", "Sage green 😍👍🏽")], PARCELS)
    assert facts == {"colour": "Sage green"}


def test_a_name_given_is_not_also_the_answer_to_another_field_the_question_named() -> None:
    fields: list[dict[str, Any]] = [
        {"key": "full_name", "description": "Applicant's full name exactly as on the passport",
         "category": "profile", "type": "string"},
        {"key": "nationality", "description": "Passport nationality of the applicant",
         "category": "profile", "type": "string", "examples": ["Nigerian", "I'm from Brazil"]},
    ]  # fmt: skip
    facts = _facts(
        [("a", "Good morning, I'm Hannah, one of the advisers."), ("u", "Good morning Hannah."),
         ("a", "Could I take your full name as it appears on your passport?"),
         ("u", "It is Olusegun Adewale Bankole."), ("a", "And your nationality?"), ("u", "Nigerian.")],
        fields,
    )  # fmt: skip
    assert facts == {"full_name": "Olusegun Adewale Bankole", "nationality": "Nigerian"}


def test_she_after_a_relative_named_is_that_relative() -> None:
    fields: list[dict[str, Any]] = [{"key": "dependant_age", "category": "temporal", "type": "number",
               "description": "Age of each dependant, one fact per person keyed by first name "
                              "(dependant_age:<first name>)"}]  # fmt: skip
    facts = _facts(
        [("a", "Who would come with you?"), ("u", "My wife is Adaeze, she is 33. Our son Tobi is six.")],
        fields,
    )  # fmt: skip
    assert facts == {"dependant_age:Adaeze": 33, "dependant_age:Tobi": 6}


@pytest.mark.parametrize(
    ("said", "phone"),
    [("Best number is 0438 207 611, that's me", "0438 207 611"),
     ("ring me on 07700 914 238 after 5", "07700 914 238"),
     ("mi extensión... no, mi móvil: 612 48 93 70", "612 48 93 70"),
     ("+44 7700 900123 works", "+44 7700 900123"),
     ("PNR 4521879001 is the booking, my mobile is 98401 22763", "98401 22763")],
)  # fmt: skip
def test_a_phone_number_in_its_groups_not_a_booking_number(said: str, phone: str) -> None:
    fields: list[dict[str, Any]] = [{"key": "contact_phone", "category": "profile", "type": "string",
                                     "description": "Phone number to reach the customer"}]  # fmt: skip
    assert _facts([("a", "How do we reach you?"), ("u", said)], fields) == {"contact_phone": phone}
