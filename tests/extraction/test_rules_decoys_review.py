"""Misreads an independent review found in the first version of the ninth session's readings
(addresses, relatives' names, a name given in a sentence, dates, tens words, counter-offers,
lead-ins, emoji), each kept here as it was found: what must not be written, or what must be."""

from __future__ import annotations

import datetime
import functools
from typing import Any

import pytest

from tests.extraction.dialogue import dialogue_facts

TUE = datetime.datetime(2026, 6, 9, 11, 0, tzinfo=datetime.UTC)
_facts = functools.partial(dialogue_facts, start=TUE, user="Helen Tan", agent="Sam")


def _field(key: str, type_: str = "string", description: str = "", **more: Any) -> dict[str, Any]:
    return {"key": key, "type": type_, "description": description, "category": "profile", **more}


ADDRESS = [
    _field(
        "delivery_address",
        description="The customer's own address, where their parcels are delivered",
    )
]
PARTNER = [_field("full_name", description="Client's full name"),
           _field("partner_name", description="Name of the client's partner or spouse")]  # fmt: skip
NAME = [_field("full_name", description="Client's full name as on the passport")]
APPOINTMENT = [_field("appointment_date", "date", "Date of the next appointment")]


@pytest.mark.parametrize(
    "said",
    ["Lovely, we stayed 3 nights near Hyde Park.", "I'm 35, live near Richmond Park and love cycling.",
     "Yes, I walk my 2 dogs around Victoria Park daily.", "Order 2 more Hill Road Blend coffee bags.",
     "In 2019 Abbey Road was closed for a week.", "The wedding reception is at 14 Castle Street, Edinburgh.",
     "I'm staying with Tom at 22 Alma Road for a week."],
)  # fmt: skip
def test_no_address_of_the_users_from_a_park_a_year_a_venue_or_a_friends(said: str) -> None:
    assert _facts([("a", "Anything else?"), ("u", said)], ADDRESS) == {}


def test_an_address_field_is_one_whose_key_says_so_not_an_ip_or_a_form_of_address() -> None:
    fields = [_field("form_of_address", description="How the client wants to be addressed", examples=["Ms"]),
              _field("ip_address", description="The device IP address")]  # fmt: skip
    assert (
        _facts([("a", "Anything else?"), ("u", "Sure, I moved to 12 Oak Road last month.")], fields)
        == {}
    )


def test_of_several_addresses_the_new_one_and_each_to_its_field() -> None:
    moved = "Used to be 4 Kings Road, moved last month to 22 Queens Road, Reading RG1 4AA."
    assert _facts([("a", "What's your address?"), ("u", moved)], ADDRESS) == {
        "delivery_address": "22 Queens Road, Reading RG1 4AA"
    }
    fields = [_field("shipping_address", description="Where to ship the order"),
              _field("billing_address", description="Where to send the invoice")]  # fmt: skip
    said = [
        ("a", "Where do we ship and bill?"),
        ("u", "Ship to 5 Elm St, Boston; bill to 9 Oak Ave, Denver."),
    ]
    assert _facts(said, fields) == {
        "shipping_address": "5 Elm St, Boston",
        "billing_address": "9 Oak Ave, Denver",
    }


@pytest.mark.parametrize(
    "said",
    ["My partner is Italian, so lots of pasta please.", "My husband is British and I'm Kenyan.",
     "My wife is Muslim, so no pork.", "My wife is Dutch, her name is Anke."],
)  # fmt: skip
def test_what_a_partner_is_is_not_their_name(said: str) -> None:
    assert "partner_name" not in _facts([("a", "Anything else?"), ("u", said)], PARTNER)


def test_a_business_partner_field_and_a_possessive_are_no_relatives_name() -> None:
    firm = [_field("partner_firm", description="Name of the partner firm handling customs")]
    assert _facts([("a", "Anything else?"), ("u", "My wife Sara will sign for it.")], firm) == {}
    father = [_field("father_name", description="Name of the student's father")]
    assert (
        _facts(
            [("a", "Anything else?"), ("u", "My father is Google's lawyer, I work at Tesco.")],
            father,
        )
        == {}
    )


@pytest.mark.parametrize(
    "said",
    ["Why does the email say my name is Maria? It's Mariana Lopes.", "The hotel clerk thought my name is John, funny.",
     "my name in the system is Helen Tang but it should be Helen Tan", "Funny, the waiter insisted my name is Karen.",
     "People think my name is Irish but it's Scottish."],
)  # fmt: skip
def test_a_name_someone_else_says_or_a_wrong_record_is_not_the_users(said: str) -> None:
    assert "full_name" not in _facts(
        [("a", "Anything else?"), ("u", said)], NAME, {"full_name": "Helen Tan"}
    )


def test_dates_the_question_gave_for_something_else_or_turned_down() -> None:
    kept = [("a", "Your booking is 5 July. Shall I move it to 5 August?"), ("u", "Keep the 5th.")]
    assert _facts(kept, APPOINTMENT, {"appointment_date": "2026-07-05"}).get("appointment_date", "2026-07-05") == "2026-07-05"  # fmt: skip
    fields = [_field("departure_date", "date", "Date of the outbound flight"), _field("passport_expiry", "date", "Passport expiry date")]  # fmt: skip
    other = [
        ("a", "Your passport expires on 20 July. When do you fly out?"),
        ("u", "The 20th, I think"),
    ]
    assert _facts(other, fields).get("departure_date") == "2026-06-20"
    free = [("a", "When can you come in?"), ("u", "I'm free Thursday, the 19th is booked though.")]
    assert _facts(free, APPOINTMENT).get("appointment_date") != "2026-11-19"
    leak = [_field("leak_start", "date", "When the leak started")]
    assert _facts(
        [("a", "When did the leak start?"), ("u", "Saturday the 6th, I think.")], leak
    ) == {"leak_start": "2026-06-06"}


def test_a_tens_word_in_passing_is_not_the_count() -> None:
    said = "She's turning sixteen, so maybe 25 kids."
    fields = [_field("guest_count", "number", "Number of guests expected")]
    assert _facts([("a", "How many guests?"), ("u", said)], fields) == {"guest_count": 25}


def test_names_with_a_tens_word_stay_words() -> None:
    hotel = [_field("hotel", description="Hotel the client wants to stay at")]
    assert _facts([("a", "Which hotel?"), ("u", "The Sixty, on Thompson Street.")], hotel) == {
        "hotel": "Sixty"
    }


@pytest.mark.parametrize(
    "said", ["I'd prefer if you asked Mark first.", "I'd prefer the one Sarah recommended, can't remember the name."]
)  # fmt: skip
def test_a_preference_that_names_no_hotel_gives_none(said: str) -> None:
    hotel = [
        _field(
            "hotel", description="Hotel the client wants to stay at", examples=["Hilton Shinjuku"]
        )
    ]
    assert _facts([("a", "Shall I book the Hilton Shinjuku?"), ("u", said)], hotel) == {}


def test_a_need_is_no_destination_a_sharp_is_no_emoji_no_clue_is_no_allergy() -> None:
    dest = [
        _field("destination", description="Where the client wants to travel", examples=["Lisbon"])
    ]
    assert (
        _facts([("a", "Where would you like to go?"), ("u", "I need a holiday, honestly.")], dest)
        == {}
    )
    key = [_field("song_key", description="The key of the song", examples=["D minor"])]
    assert _facts([("a", "Which key?"), ("u", "C♯ minor")], key) == {"song_key": "C♯ minor"}
    allergy = [_field("allergies", description="Allergies of the patient", examples=["no known allergies", "penicillin"])]  # fmt: skip
    for said in ("No clue, never been tested.", "No rush, I'll check my records."):
        assert _facts([("a", "Any allergies?"), ("u", said)], allergy) == {}
    trav = [_field("num_travellers", "number", "Number of travellers in the party")]
    assert _facts([("a", "Who's going?"), ("u", "4 adults.")], trav) == {"num_travellers": 4}
