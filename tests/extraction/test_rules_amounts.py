"""Amounts in one breath: two values of a type each read with their own words, a value said as
the new one after the old ("was 5k but they raised it to 8k"), a bare number beside a money
field's name, a field's word with "'s" that is no one's possessive, a relative the field keeps
facts per. Written for these tests, not taken from any benchmark."""

from __future__ import annotations

import datetime
import functools
from typing import Any

from tests.extraction.dialogue import dialogue_facts

CAR: list[dict[str, Any]] = [
    {"key": "budget", "description": "Most the buyer will spend on the van", "category": "temporal", "type": "money"},
    {"key": "monthly_payment", "description": "What the buyer pays each month on finance", "category": "temporal", "type": "money"},
    {"key": "overdraft_limit", "description": "Agreed overdraft on the account", "category": "temporal", "type": "money"},
    {"key": "excess", "description": "Excess the buyer pays on an insurance claim", "category": "temporal", "type": "money"},
]  # fmt: skip
FAMILY: list[dict[str, Any]] = [
    {"key": "member_age", "description": "Age of each person on the policy, one fact per person "
     "(member_age:mother)", "category": "profile", "type": "number"},
]  # fmt: skip
THU = datetime.datetime(2026, 9, 10, 14, 0, tzinfo=datetime.UTC)
_facts = functools.partial(dialogue_facts, start=THU, user="Kwame Asante", agent="Jo")


def test_two_amounts_in_one_sentence_each_go_to_the_field_their_words_name() -> None:
    facts = _facts([("u", "Budget's £12k and I could manage £220 a month")], CAR)
    assert facts == {"budget": {"amount": 12000, "currency": "GBP"},
                     "monthly_payment": {"amount": 220, "currency": "GBP"}}  # fmt: skip


def test_the_value_said_as_the_new_one_wins() -> None:
    facts = _facts([("u", "My overdraft was £500 but they bumped it up to £750 in May")], CAR)
    assert facts == {"overdraft_limit": {"amount": 750, "currency": "GBP"}}


def test_a_bare_number_beside_a_money_fields_name_is_money() -> None:
    facts = _facts(
        [("u", "They took 100 off the excess, so it's 150 now")], CAR, {"excess": "£250"}
    )
    assert facts == {"excess": {"amount": 150, "currency": "GBP"}}


def test_relatives_the_field_keeps_facts_per_are_not_someone_elses() -> None:
    facts = _facts([("a", "And their ages?"), ("u", "My mother is 71 and my father is 74.")],
                   FAMILY)  # fmt: skip
    assert facts == {"member_age:mother": 71, "member_age:father": 74}
