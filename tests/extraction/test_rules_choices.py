"""An enum choice said in everyday words ("over Teams" for *online*), and one picked by its
place in the agent's "this or that?" ("the latter"). Written for these tests, not taken from
any benchmark."""

from __future__ import annotations

import datetime
import functools
from typing import Any

from tests.extraction.dialogue import dialogue_facts

TUTORING: list[dict[str, Any]] = [
    {"key": "session_format", "description": "How the tutoring sessions happen", "category": "temporal",
     "type": "enum", "choices": ["in person", "online"]},
    {"key": "reminder_channel", "description": "How reminders reach the parent", "category": "profile",
     "type": "enum", "choices": ["phone call", "text message", "email"]},
]  # fmt: skip
CATERING: list[dict[str, Any]] = [
    {"key": "menu", "description": "Menu for the guest", "category": "profile", "type": "enum",
     "choices": ["standard", "vegetarian", "vegan"]},
    {"key": "payment_method", "description": "How the invoice is paid", "category": "profile",
     "type": "enum", "choices": ["card", "bank transfer", "cash"]},
]  # fmt: skip
WED = datetime.datetime(2026, 6, 3, 15, 0, tzinfo=datetime.UTC)
_facts = functools.partial(dialogue_facts, start=WED, user="Olu Bakare", agent="Kim")


def test_a_choice_said_in_everyday_words_answers_its_question() -> None:
    facts = _facts([("a", "How would you like the sessions run?"),
                    ("u", "Over Teams works best, we live quite far out")], TUTORING)  # fmt: skip
    assert facts == {"session_format": "online"}
    facts = _facts([("a", "And how should we send reminders?"),
                    ("u", "Drop me a text, I don't really read my emails")], TUTORING)  # fmt: skip
    assert facts == {"reminder_channel": "text message"}
    facts = _facts([("a", "How will you be paying the invoice?"),
                    ("u", "I'll pay by card on the day")], CATERING)  # fmt: skip
    assert facts == {"payment_method": "card"}


def test_a_name_after_call_me_is_no_channel() -> None:
    facts = _facts(
        [("a", "Hi, who am I speaking with?"), ("u", "Call me Olu, everyone does")], TUTORING
    )
    assert "reminder_channel" not in facts


def test_an_offer_turned_down_for_the_other_choice_in_other_words() -> None:
    facts = _facts([("a", "We can do it online if that saves you the drive?"),
                    ("u", "No, we'd rather come in, he focuses better")], TUTORING)  # fmt: skip
    assert facts["session_format"] == "in person"


def test_a_choice_picked_by_its_place() -> None:
    facts = _facts([("a", "Standard or vegetarian for your guest?"), ("u", "The latter please")],
                   CATERING)  # fmt: skip
    assert facts == {"menu": "vegetarian"}
    facts = _facts([("a", "Card, bank transfer or cash?"), ("u", "the first one")], CATERING)
    assert facts == {"payment_method": "card"}
    assert _facts([("a", "Card or cash?"), ("u", "The first time I paid cash")],
                  CATERING).get("payment_method") == "cash"  # fmt: skip


GARAGE: list[dict[str, Any]] = [
    {"key": "hire_car", "description": "Category of the courtesy car", "category": "temporal",
     "type": "enum", "choices": ["small", "estate", "van"]},
    {"key": "service_level", "description": "Service package booked", "category": "temporal",
     "type": "enum", "choices": ["basic", "standard", "full"]},
]  # fmt: skip


def test_a_choice_not_to_be_had_is_not_the_one_offered() -> None:
    """ "We've no estates left, I can give you a van": the van is offered, and taken."""
    facts = _facts([("a", "We've no more estates today, but I can give you a van instead."),
                    ("u", "Lovely, thanks")], GARAGE)  # fmt: skip
    assert facts["hire_car"] == "van"


def test_a_choice_word_before_another_things_noun_is_no_choice() -> None:
    assert _facts([("u", "Is it standard practice to keep the car overnight?"),
                   ("a", "Yes, usually.")], GARAGE) == {}  # fmt: skip
    assert _facts([("u", "I want the full service this time")], GARAGE) == {"service_level": "full"}


def test_a_choice_turned_down_by_what_follows_it() -> None:
    """ "Online or in person?" — "Home lessons please, online didn't work for us": in person."""
    facts = _facts([("a", "Online or in person?"),
                    ("u", "Home lessons please, online didn't work for us last year")], TUTORING)  # fmt: skip
    assert facts["session_format"] == "in person"
