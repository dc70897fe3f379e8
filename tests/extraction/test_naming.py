"""Whose name a turn gives (extraction/extractors/rules/naming.py): introductions as callers
make them, and the chit-chat that only looks like one."""

from __future__ import annotations

import datetime
import functools
from typing import Any

import pytest

from extraction.extractors.rules.naming import person_name
from tests.extraction.dialogue import dialogue_facts

MON = datetime.datetime(2026, 3, 2, 9, 0, tzinfo=datetime.UTC)


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("hi raj, kylie brennan here", "Kylie Brennan"),
        ("hi, im kylie brennan", "Kylie Brennan"),
        ("this is nadia brooks", "Nadia Brooks"),
        ("I'm Priyanka Jain", "Priyanka Jain"),
        ("Mira here, calling about the boiler", "Mira"),
        ("Raj Malhotra speaking.", "Raj Malhotra"),
        ("it's under the name Roy Ko", "Roy Ko"),
    ],
)
def test_introductions(text: str, name: str) -> None:
    found = person_name(text, asked=False)
    assert found is not None and found[0] == name


@pytest.mark.parametrize(
    "text",
    [
        "Thanks! I'm staying positive and pushing forward.",  # a state after "I'm"
        "Thanks! I'm feeling confident and won't give up.",
        "Yeah, good flooring's crucial. I'm after Marley flooring, which studios use.",
        "Sure! I'm lactose intolerant, so I'll need the dairy-free recipe.",  # no greeting
        "Yeah, Gina! It's been tough, but I'm living my true self.",
        "Same here! So have you been up to anything?",  # "X here" of a common word
        "Anytime Nate! I'm here for you every step of the way.",
        "No worries. Always here to help!",
        "So sorry to hear about your loss, Maria. I'm here for you.",  # a sentence apart
        "Thanks, Melanie. Here's one I painted last week.",
    ],
)
def test_chit_chat_names_nobody(text: str) -> None:
    assert person_name(text, asked=False) is None


def test_a_lower_case_name_after_the_opening_line_counts_when_the_agent_greets_it() -> None:
    said = "morning. declan murphy, murphy and sons. need a mini digger"
    assert person_name(said, asked=False, opening=True, reply="Morning Declan. Which one?") == (
        "Declan Murphy",
        "introduction",
    )
    assert person_name(said, asked=False, opening=True, reply="Morning! Which one?") is None
    # The agent's greeting confirms a name, not any two words before a comma.
    text = "hi. need help, my router is down"
    assert person_name(text, asked=False, opening=True, reply="Sorry to hear that.") is None
    # Words the reply happens to say are no greeting: "that's awesome, …" — "That's great!"
    chat = "hey! that's awesome, congrats on the job"
    assert person_name(chat, asked=False, opening=True, reply="That's great! Thanks.") is None


HOLDER: list[dict[str, Any]] = [
    {"key": "account_holder", "description": "Name of the person the water account is in",
     "category": "profile", "type": "string"},
    {"key": "pet_name", "description": "The dog's name", "category": "profile", "type": "string"},
]  # fmt: skip


def test_a_field_that_holds_the_users_name_under_another_word() -> None:
    """ "account_holder", described as the person the account is in, takes the caller's name;
    a pet's name field does not; someone calling for a relative gives no holder's name."""
    say = functools.partial(dialogue_facts, start=MON, user="Ruth Obi", agent="Lee")
    assert say([("a", "Aqualine, Lee speaking."), ("u", "Hi Lee, I'm Ruth Obi, there's a leak "
                "by my meter")], HOLDER) == {"account_holder": "Ruth Obi"}  # fmt: skip
    assert say([("a", "Whose name is the account under?"), ("u", "It's in my name, Ruth Obi")],
               HOLDER) == {"account_holder": "Ruth Obi"}  # fmt: skip
    assert say([("u", "Hello, I'm Tunde Obi, calling for my mum, the account's in her name")],
               HOLDER) == {}  # fmt: skip


def test_the_owner_is_introduces_only_for_a_holders_name() -> None:
    """ "The owner is Marco Bellini." names the user for a field that holds an owner's or an
    account holder's name; otherwise it may be a landlord."""
    assert person_name("Yes. The owner is Marco Bellini.", asked=False, holder=True) == (
        "Marco Bellini",
        "introduction",
    )
    assert person_name("I rent on Mill Road. The owner is Marco Bellini.", asked=False) is None
