"""Short replies a letting agent and a phone shop hear: an amount with "max" after someone
else's, a yes/no question answered with one of its kind, an employer whose name has an "'s",
and "go on then" to an offer. Written for these tests, not taken from any benchmark."""

from __future__ import annotations

import datetime
from typing import Any

from extraction.extractors import Usage, WindowTurn
from extraction.extractors.rules import RulesExtractor

LETTING: list[dict[str, Any]] = [
    {"key": "monthly_rent_budget", "description": "Most the tenant will pay in rent each month",
     "category": "temporal", "type": "money"},
    {"key": "bedrooms", "description": "Number of bedrooms wanted", "category": "temporal", "type": "number"},
    {"key": "has_pets", "description": "Does the tenant have pets?", "category": "profile", "type": "boolean"},
    {"key": "employer", "description": "Where the tenant works", "category": "profile", "type": "string"},
]  # fmt: skip
PHONES: list[dict[str, Any]] = [
    {"key": "plan", "description": "Mobile plan the customer is on", "category": "temporal", "type": "enum",
     "choices": ["basic 10GB", "plus 50GB", "unlimited"]},
]  # fmt: skip
TUE = datetime.datetime(2026, 4, 14, 9, 0, tzinfo=datetime.UTC)


def _facts(turns: list[tuple[str, str]], fields: list[dict[str, Any]]) -> dict[str, Any]:
    window = [
        WindowTurn(i, "s", i, "user" if r == "u" else "assistant", t, TUE + datetime.timedelta(minutes=i),
                   "Priya Shah" if r == "u" else "Tom", "Tom" if r == "u" else "Priya Shah")
        for i, (r, t) in enumerate(turns)
    ]  # fmt: skip
    return {f.key: f.value for f in RulesExtractor().extract_facts(window, fields, Usage(), None)}


def test_a_bare_amount_with_max_is_the_users_budget_not_the_sisters() -> None:
    facts = _facts([("u", "My sister pays £2,400 for a one-bed in Hackney, crazy"),
                    ("a", "Prices are wild. What's yours?"), ("u", "1,650 max")], LETTING)  # fmt: skip
    assert facts == {"monthly_rent_budget": {"amount": 1650, "currency": "GBP"}}


def test_a_yes_no_question_answered_with_one_of_its_kind() -> None:
    """ "Any pets?" — "just a cat" is a yes; "my landlord doesn't allow pets" is not."""
    assert (
        _facts([("a", "Any pets?"), ("u", "just a cat, she's very quiet")], LETTING)["has_pets"]
        is True
    )
    assert "has_pets" not in _facts(
        [("a", "Any pets?"), ("u", "my landlord won't allow pets")], LETTING
    )
    assert _facts([("a", "Any pets?"), ("u", "nope")], LETTING)["has_pets"] is False


def test_a_name_with_an_apostrophe_s_is_a_name_not_someone_elses() -> None:
    facts = _facts(
        [("a", "Who's your employer?"), ("u", "I'm a nurse at King's College Hospital")], LETTING
    )
    assert facts["employer"] == "King's College Hospital"


def test_go_on_then_accepts_an_offer() -> None:
    facts = _facts([("a", "You're on basic 10GB. I can move you to plus 50GB for £18 a month. Want that?"),
                    ("u", "go on then")], PHONES)  # fmt: skip
    assert facts["plan"] == "plus 50GB"
