"""Text answers as people give them: "It's a …" and "There's a key …" say "is", not whose; the company someone is "with"; a relative's occasion as the answer to "What's the
occasion?". Written for these tests, not taken from any benchmark."""

from __future__ import annotations

import datetime
import functools
from typing import Any

from tests.extraction.dialogue import dialogue_facts

HOUSE: list[dict[str, Any]] = [
    {"key": "appliance", "description": "Make and model of the washing machine", "category": "profile", "type": "string"},
    {"key": "entry_notes", "description": "How the engineer gets in", "category": "temporal", "type": "string"},
    {"key": "insurer", "description": "Home insurer the customer is with", "category": "temporal", "type": "string"},
]  # fmt: skip
PARTY: list[dict[str, Any]] = [
    {"key": "occasion", "description": "What the party is for", "category": "temporal", "type": "string"},
    {"key": "job", "description": "What the customer does for work", "category": "profile", "type": "string"},
]  # fmt: skip
SAT = datetime.datetime(2026, 7, 4, 11, 0, tzinfo=datetime.UTC)
_facts = functools.partial(dialogue_facts, start=SAT, user="Ana Reyes", agent="Bo")


def test_its_and_a_things_is_said_as_is_not_as_someone_elses() -> None:
    facts = _facts([("a", "Which washing machine is it?"), ("u", "It's a Bosch Serie 6")], HOUSE)
    assert facts == {"appliance": "Bosch Serie 6"}
    facts = _facts([("a", "How will the engineer get in?"),
                    ("u", "Spare key under the blue pot by the door")], HOUSE)  # fmt: skip
    assert "entry_notes" in facts
    # "Michael's on metformin": a name's "'s" at the start is still someone else's


def test_the_company_someone_is_with() -> None:
    assert _facts([("a", "Who are you insured with at the moment?"), ("u", "We're with Aviva")],
                  HOUSE) == {"insurer": "Aviva"}  # fmt: skip
    facts = _facts([("u", "I'm with Direct Line but the renewal went up a lot")], HOUSE)
    assert facts == {"insurer": "Direct Line"}


def test_a_relatives_occasion_answers_but_their_job_does_not() -> None:
    facts = _facts([("a", "What's the occasion?"), ("u", "My dad's retirement")], PARTY)
    assert facts == {"occasion": "dad's retirement"}
    assert _facts([("a", "What do you do for work?"), ("u", "My wife's a vet, I'm between jobs")],
                  PARTY) == {}  # fmt: skip
