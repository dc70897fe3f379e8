"""Text values as the user means them: a brand or a title the field's examples write with the
value ("iPhone 13", "Dr Schulz"), what is avoided kept with its "no" when the examples say so,
another value put in place of the one offered ("I'd prefer Asakusa"), a wish's lead-in not part
of the value ("we want Porto"), and "yes, got it" after a question about a delivery no address."""

from __future__ import annotations

import datetime
import functools
from typing import Any

from tests.extraction.dialogue import dialogue_facts

MON = datetime.datetime(2026, 4, 6, 9, 0, tzinfo=datetime.UTC)
_facts = functools.partial(dialogue_facts, start=MON, user="Chloé Martin", agent="Ana")
TRIP: list[dict[str, Any]] = [
    {"key": "device", "description": "The phone model the subscriber uses", "category": "temporal",
     "type": "string", "examples": ["a Redmi Note 12", "iPhone 13"]},
    {"key": "preferred_doctor", "description": "The doctor the patient wants to see",
     "category": "temporal", "type": "string", "examples": ["Dr Rao"]},
    {"key": "dietary", "description": "A dietary requirement for meals", "category": "profile",
     "type": "string", "examples": ["vegetarian", "no shellfish"]},
    {"key": "hotel_area", "description": "The neighbourhood or place where the traveller wants to stay",
     "category": "temporal", "type": "string", "examples": ["near Ribeira", "Asakusa"]},
    {"key": "destination", "description": "Where the trip goes", "category": "temporal",
     "type": "string", "examples": ["going to Lisbon", "a week in Kerala"]},
]  # fmt: skip


def test_a_brand_or_a_title_the_examples_write_with_the_value() -> None:
    phone = _facts([("a", "Is the phone working now?"), ("u", "yes now iphone 13, gave the redmi to my dad")], TRIP)  # fmt: skip
    assert phone["device"] == "iPhone 13"
    doctor = _facts([("a", "Would you like to see Dr Wagner? She has a slot on Friday."), ("u", "I would rather wait for Dr Schulz, he knows my history.")], TRIP)  # fmt: skip
    assert doctor["preferred_doctor"] == "Dr Schulz"


def test_what_is_avoided_keeps_its_no_when_an_example_has_one() -> None:
    facts = _facts([("a", "Any food requirements?"), ("u", "No shellfish, I'm allergic.")], TRIP)
    assert facts["dietary"] == "no shellfish"


def test_another_value_in_place_of_the_one_offered() -> None:
    facts = _facts([("a", "For Tokyo, shall I book a hotel in Shinjuku?"), ("u", "I'd prefer Asakusa, it's quieter.")], TRIP)  # fmt: skip
    assert facts == {"hotel_area": "Asakusa"}


def test_a_wish_is_not_part_of_the_value() -> None:
    facts = _facts([("a", "I have the Lisbon hotels ready."), ("u", "Sorry, change of plan: we want Porto instead of Lisbon.")], TRIP, {"destination": "Lisbon"})  # fmt: skip
    assert facts == {"destination": "Porto"}


def test_yes_got_it_then_news_is_no_address() -> None:
    fields = [{"key": "delivery_address", "category": "profile", "type": "string",
               "description": "The customer's own address, where their parcels are delivered"}]  # fmt: skip
    turns = [("a", "Just confirming your mixer grinder was delivered on Friday?"),
             ("u", "yes, got it. but the box was damaged and the jar is cracked!")]  # fmt: skip
    assert _facts(turns, fields) == {}


def test_a_place_keeps_its_parts_after_commas() -> None:
    fields = [{"key": "office_location", "category": "temporal", "type": "string",
               "description": "Building, floor and desk where the caller sits"}]  # fmt: skip
    facts = _facts([("a", "Where do you sit?"), ("u", "Building B, 3rd floor, desk 3.14.")], fields)
    assert facts == {"office_location": "Building B, 3rd floor, desk 3.14"}
