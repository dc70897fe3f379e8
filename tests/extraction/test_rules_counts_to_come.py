"""A count said as "final numbers" or "headcount" for a guest count, a budget someone "chips in"
to raise said bare in thousands, and a value the thing will have later ("will be four in June")
that is not its value now."""

from __future__ import annotations

import datetime
import functools
from typing import Any

import pytest

from tests.extraction.dialogue import dialogue_facts

TUE = datetime.datetime(2026, 3, 24, 18, 45, tzinfo=datetime.UTC)
_facts = functools.partial(dialogue_facts, start=TUE, user="Aisha Khan", agent="Freya")
EVENT: list[dict[str, Any]] = [
    {"key": "guest_count", "description": "How many guests the client expects",
     "category": "temporal", "type": "number", "examples": ["around 150 people"]},
    {"key": "total_budget", "description": "Client's total budget for the whole event",
     "category": "temporal", "type": "money", "examples": ["£30k all in", "8 thousand max"]},
]  # fmt: skip
AGES: list[dict[str, Any]] = [
    {"key": "dependant_age", "category": "temporal", "type": "number",
     "description": "Age of each dependant, one fact per person keyed by first name "
                    "(dependant_age:<first name>)"},
]  # fmt: skip


@pytest.mark.parametrize(
    "said", ["Hi Freya, update: final numbers are 240, Zain's side added 20",
             "Quick one, the headcount is 240 now."],
)  # fmt: skip
def test_numbers_and_headcount_say_the_guest_count(said: str) -> None:
    facts = _facts([("a", "Anything new?"), ("u", said)], EVENT, {"guest_count": "220"})
    assert facts == {"guest_count": 240}


def test_a_few_people_is_no_guest_count() -> None:
    turns = [("a", "Want the burrito bar?"), ("u", "Let me check with the team, a few people are vegetarian.")]  # fmt: skip
    assert "guest_count" not in _facts(turns, EVENT, {"guest_count": "70"})


def test_an_age_to_come_is_not_the_age_now() -> None:
    said = "Our son Tobi is six, and our daughter Kemi will be four in June."
    facts = _facts([("a", "Who would come with you?"), ("u", said)], AGES)
    assert facts == {"dependant_age:Tobi": 6}
    later = _facts([("a", "Who would come with you?"), ("u", said),
                    ("a", "So Kemi is three at the moment?"), ("u", "Yes.")], AGES)  # fmt: skip
    assert later == {"dependant_age:Tobi": 6, "dependant_age:Kemi": 3}
    assert _facts(
        [("a", "How old is Kemi?"), ("u", "Kemi is four, she turned four in May.")], AGES
    ) == {"dependant_age:Kemi": 4}
