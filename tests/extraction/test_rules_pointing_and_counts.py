"""A word that points back is no value the agent offers ("Same timing, after 5?"), counts are no
text ("3 for Aarav, 2 for Myra"), and "one more" is how many are added (the total said beside
it is the value)."""

from __future__ import annotations

import datetime
import functools
from typing import Any

from tests.extraction.dialogue import dialogue_facts

MON = datetime.datetime(2026, 8, 24, 17, 0, tzinfo=datetime.UTC)
_facts = functools.partial(dialogue_facts, start=MON, user="Neha Joshi", agent="Karan")


def _f(key: str, type_: str, description: str, **extra: Any) -> dict[str, Any]:
    return {"key": key, "description": description, "category": "temporal", "type": type_, **extra}


TUTORING = [
    _f("tutor_subject", "string", "Subject(s) each child needs a tutor for, one fact per child "
       "(tutor_subject:Name)", examples=["physics for Kabir", "she needs help with French"]),
    _f("sessions_per_week", "number", "Total lessons per week the family wants"),
    _f("preferred_days", "string", "Days and times the children are free for lessons",
       examples=["Mondays and Wednesdays after 4", "weekends only"]),
]  # fmt: skip


def test_counts_said_for_each_child_are_not_their_subjects() -> None:
    known = {"tutor_subject:Aarav": "maths and science", "tutor_subject:Myra": "maths"}
    facts = _facts([("a", "How many sessions a week?"), ("u", "3 for Aarav, 2 for Myra. So 5 total.")],
                   TUTORING, known)  # fmt: skip
    assert not any(k.startswith("tutor_subject") for k in facts)
    assert facts.get("sessions_per_week") == 5


def test_one_more_is_added_and_the_total_said_with_it_is_the_value() -> None:
    turns = [("a", "Shall we add one more session for him? That'd make 6 a week in total."),
             ("u", "Yes, add one.")]  # fmt: skip
    assert _facts(turns, TUTORING, {"sessions_per_week": "5"}) == {"sessions_per_week": 6}


def test_same_points_back_and_is_no_value() -> None:
    known = {"preferred_days": "Weekdays after 5"}
    assert "preferred_days" not in _facts(
        [("a", "Noted. Same timing, after 5?"), ("u", "Yes, after 5.")], TUTORING, known
    )


def test_extras_counted_numbered_text_and_capitals_are_still_values() -> None:
    """Found by a review of the first version of these rules."""
    bags = [_f("extra_bags", "number", "Extra bags on the booking")]
    assert _facts([("a", "Shall I add 2 extra bags to the booking?"), ("u", "Yes.")], bags) == {
        "extra_bags": 2
    }
    pizzas = [_f("pizza_count", "number", "Pizzas ordered")]
    assert _facts([("a", "So 3 extra-large pizzas, right?"), ("u", "Yes.")], pizzas) == {
        "pizza_count": 3
    }
    lockers = [_f("locker_number", "string", "Locker of each child (locker_number:Name)",
                  examples=["214 for Kabir", "Kabir's locker is 12"])]  # fmt: skip
    known = {"locker_number:Aarav": "1", "locker_number:Myra": "2"}
    facts = _facts([("a", "Which lockers?"), ("u", "214 for Aarav, 215 for Myra.")], lockers, known)
    assert facts == {"locker_number:Aarav": "214", "locker_number:Myra": "215"}
    department = [_f("department", "string", "The department", examples=["Finance", "HR"])]
    turns = [("a", "Shall I move you to the IT department?"), ("u", "Yes please.")]
    assert _facts(turns, department, {"department": "Finance"}) == {"department": "IT"}
