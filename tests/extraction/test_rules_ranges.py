"""A stretch of days said as a range gives its first day to the schema's start field and its
last to the end field ("from the 3rd to the 10th of April", "14-18 May", the agent's "So Tuesday
21 April to Tuesday 5 May"); before, both went to the date field the sentence named best."""

from __future__ import annotations

import datetime
import functools
from typing import Any

from tests.extraction.dialogue import dialogue_facts

MON = datetime.datetime(2026, 3, 2, 10, 0, tzinfo=datetime.UTC)
_facts = functools.partial(dialogue_facts, start=MON, user="Priya Shah", agent="Tom")


def _f(key: str, type_: str, description: str) -> dict[str, Any]:
    return {"key": key, "description": description, "category": "temporal", "type": type_}


CAR = [
    _f("pickup_date", "date", "Day the customer collects the hire car"),
    _f("return_date", "date", "Day the customer returns the hire car"),
    _f("daily_rate", "money", "Daily hire rate"),
    _f("damage_waiver", "boolean", "Whether the customer takes the damage waiver"),
]


def test_the_users_range_gives_both_days() -> None:
    said = [("u", "I need a car from the 3rd to the 10th of April.")]
    assert _facts(said, CAR) == {"pickup_date": "2026-04-03", "return_date": "2026-04-10"}
    bare = [("a", "When do you need it?"), ("u", "14-18 May")]
    assert _facts(bare, CAR) == {"pickup_date": "2026-05-14", "return_date": "2026-05-18"}


def test_the_agents_range_is_accepted_whole_or_stands_beside_a_declined_extra() -> None:
    offered = [("a", "So Tuesday 21 April to Tuesday 5 May, at £42 a day. Shall I book it?"),
               ("u", "yes please")]  # fmt: skip
    facts = _facts(offered, CAR)
    assert (facts["pickup_date"], facts["return_date"]) == ("2026-04-21", "2026-05-05")
    declined = [("a", "So Tuesday 21 April to Tuesday 5 May. Do you want the waiver?"),
                ("u", "No waiver.")]  # fmt: skip
    facts = _facts(declined, CAR)
    assert (facts["pickup_date"], facts["return_date"]) == ("2026-04-21", "2026-05-05")
    assert facts["damage_waiver"] is False


def test_someone_elses_range_and_the_shops_are_not_the_users() -> None:
    sister = [("u", "My sister had one from the 3rd to the 10th of April.")]
    assert not {"pickup_date", "return_date"} & set(_facts(sister, CAR))
    closed = [("a", "We're closed from 24 to 26 December, sorry."), ("u", "ok")]
    assert not {"pickup_date", "return_date"} & set(_facts(closed, CAR))
    offer = [("a", "Our offer runs 1-15 April. Want it?"), ("u", "Yes")]
    assert not {"pickup_date", "return_date"} & set(_facts(offer, CAR))


def test_a_range_reads_check_in_and_check_out_fields() -> None:
    stay = [_f("check_in", "date", "Arrival day"), _f("check_out", "date", "Departure day")]
    assert _facts([("u", "Friday 10 April until Monday 13 April please")], stay) == {
        "check_in": "2026-04-10", "check_out": "2026-04-13"}  # fmt: skip
