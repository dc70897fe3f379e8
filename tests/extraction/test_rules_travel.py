"""Questions that do not ask what they seem to: where the user went, is headed or took a photo
answers no field about where they live (a field about going somewhere still takes it); how the
user does something answers no text field that is not itself a how."""

from __future__ import annotations

import datetime
import functools
from typing import Any

import pytest

from schemas.defaults import GENERAL_ASSISTANT
from tests.extraction.dialogue import dialogue_facts

TRIP: list[dict[str, Any]] = [
    {"key": "destination", "description": "The city the traveller is going to", "category": "temporal",
     "type": "string"},
]  # fmt: skip
MON = datetime.datetime(2026, 3, 2, 10, 0, tzinfo=datetime.UTC)


_facts = functools.partial(dialogue_facts, start=MON, user="Ola", agent="Sam")


@pytest.mark.parametrize(
    "turns",
    [
        [("a", "Wow, great pic! Where did you go on that road trip?"),
         ("u", "We explored the coast up in the Pacific Northwest and hit some national parks.")],
        [("a", "Exploring new cities is fun. Where are you headed?"), ("u", "Lisbon, I think.")],
        [("a", "Nice photo!"), ("u", "I went to Woodhaven, a small town in the Midwest.")],
        [("a", "Wow, looks great! Where did you take this picture?"),
         ("u", "At a beautiful spot called Whispering Falls.")],
        [("a", "That's gorgeous! Where did you find it?"), ("u", "In Camden, at a flea market.")],
    ],
)  # fmt: skip
def test_where_the_user_went_is_not_the_city_they_live_in(turns: list[tuple[str, str]]) -> None:
    assert "city" not in _facts(turns, GENERAL_ASSISTANT)


def test_how_someone_does_something_asks_no_text_fields_value() -> None:
    """ "How do you keep up with your goals?" asks how, not which goal; how the user feels is a
    how, and a goal asked for in so many words is still one."""
    turns = [("a", "Being organised is key. How do you keep up with your goals?"),
             ("u", "I use a whiteboard to stay on track.")]  # fmt: skip
    assert "goal" not in _facts(turns, GENERAL_ASSISTANT)
    felt = _facts([("a", "How did it feel to finish?"), ("u", "Relieved.")], GENERAL_ASSISTANT)
    assert felt["mood"] == "Relieved"
    goal = _facts(
        [("a", "What's your goal this year?"), ("u", "Run a marathon.")], GENERAL_ASSISTANT
    )
    assert goal["goal"] == "Run a marathon"


def test_where_they_live_and_where_they_go_still_land_where_asked() -> None:
    home = _facts([("a", "Where do you live these days?"), ("u", "Galway.")], GENERAL_ASSISTANT)
    assert home["city"] == "Galway"
    trip = _facts([("a", "Where are you headed?"), ("u", "Lisbon, I think.")], TRIP)
    assert trip["destination"] == "Lisbon"


@pytest.mark.parametrize(
    ("question", "reply", "key"),
    [
        ("Has this experience influenced your goals at all?",
         "Thanks, Mel! It really motivated me for sure. I'm still thinking about counseling.", "goal"),
        ("Any developments regarding your political goals?",
         "I've been keeping busy since we last talked!", "goal"),
        ("How's it going with your language studies?",
         "Learning German has been tough but worth it.", "preferred_language"),
    ],
)  # fmt: skip
def test_a_reply_that_says_something_about_the_user_is_not_a_text_value(
    question: str, reply: str, key: str
) -> None:
    """A value names a thing ("Run a marathon", "Kothrud"); a sentence with its own subject and
    verb says something else about the user. How someone feels may be said so."""
    assert key not in _facts([("a", question), ("u", reply)], GENERAL_ASSISTANT)
    felt = _facts([("a", "How are you feeling today?"), ("u", "I feel great.")], GENERAL_ASSISTANT)
    assert felt["mood"] == "I feel great"


VET: list[dict[str, Any]] = [
    {"key": "treatment_estimate", "description": "Estimate for the current treatment, once the owner has agreed to it",
     "category": "temporal", "type": "money"},
    {"key": "parcel_weight_kg", "description": "Weight of the user's parcel in kg", "category": "temporal",
     "type": "number"},
    {"key": "expected_salary", "description": "The salary the candidate expects", "category": "profile",
     "type": "money"},
]  # fmt: skip


def test_a_value_the_agent_gives_a_field_by_its_name_is_recorded() -> None:
    """ "The estimate for the cleaning is $265." — "Okay, go ahead.": the agent's value,
    acknowledged. Not a friend's, not the price list, not a refused one, not the user's own
    number said back."""
    told = _facts([("a", "The estimate for the cleaning is $265."), ("u", "Okay, go ahead.")], VET)
    assert told["treatment_estimate"] == {"amount": 265, "currency": "USD"}
    for turns in (
        [("a", "A mate of yours, Ollie, is also in the process, on a salary of $130k."), ("u", "Ha, classic Ollie.")],
        [("a", "Heads up, our rates go up in April: a 5 kg parcel will be $18.90."), ("u", "ok")],
        [("a", "The estimate came back at $410, not $265."), ("u", "hmm")],
    ):  # fmt: skip
        facts = _facts(turns, VET)
        assert "expected_salary" not in facts and "parcel_weight_kg" not in facts, facts
        assert facts.get("treatment_estimate") != {"amount": 265, "currency": "USD"}
    echoed = _facts([("u", "my sister wants to send 3 kg to Chennai"),
                     ("a", "For a 3 kg parcel to Chennai it's $29."), ("u", "ok")], VET)  # fmt: skip
    assert "parcel_weight_kg" not in echoed
