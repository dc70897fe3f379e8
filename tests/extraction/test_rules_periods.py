""" "A year" in "What do you each make a year?" is a rate, not a count of years: it names no
loan term; and a count of years or months cannot be thousands ("I make 68 thousand" is no loan
term of 68,000 years) — while a year itself ("built in 1998") still is a value."""

from __future__ import annotations

import datetime
import functools
from typing import Any

from tests.extraction.dialogue import dialogue_facts

THU = datetime.datetime(2026, 5, 28, 15, 0, tzinfo=datetime.UTC)
_facts = functools.partial(dialogue_facts, start=THU, user="Maria Delgado", agent="Derek")


def _f(key: str, type_: str, description: str) -> dict[str, Any]:
    return {"key": key, "description": description, "category": "temporal", "type": type_}


LOAN = [
    _f("applicant_income", "money", "Gross yearly income of each applicant on the loan, one fact "
       "per applicant (applicant_income:Name)"),
    _f("loan_term_years", "number", "Loan term the client wants, in years"),
]  # fmt: skip
HOUSE = [*LOAN, _f("year_built", "number", "Year the house was built")]


def test_what_they_make_a_year_is_income_not_a_loan_term() -> None:
    facts = _facts([("a", "What do you each make a year, before taxes?"),
                    ("u", "I make 68 thousand.")], LOAN)  # fmt: skip
    assert "loan_term_years" not in facts
    assert facts.get("applicant_income:Maria", {}).get("amount") == 68000


def test_a_term_in_years_is_still_read_and_a_year_is_no_count() -> None:
    assert _facts([("a", "And a 30 year loan?"), ("u", "Yes, 30.")], LOAN) == {
        "loan_term_years": 30
    }
    built = _facts([("a", "When was the house built?"), ("u", "It was built in 1998.")], HOUSE)
    assert built.get("year_built") == 1998
    made = _facts([("a", "What do you each make a year?"), ("u", "I make 68 thousand.")], HOUSE)
    assert "year_built" not in made and "loan_term_years" not in made
