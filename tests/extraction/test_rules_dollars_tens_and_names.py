"""Which dollar a prefixed sign says ("S$15,000", "NZ$180"), a tens word said alone ("Sixty."),
and a full name given later in a sentence ("sorry, my name in the passport is Maria Fernanda de
Souza")."""

from __future__ import annotations

import datetime
import functools
from typing import Any

import pytest

from extraction.extractors.rules.amounts import money_in
from extraction.extractors.rules.spelled import spell_out
from tests.extraction.dialogue import dialogue_facts

TUE = datetime.datetime(2026, 6, 9, 11, 0, tzinfo=datetime.UTC)
_facts = functools.partial(dialogue_facts, start=TUE, user="Helen Tan", agent="Wei Ling")
PARTY: list[dict[str, Any]] = [
    {"key": "full_name", "description": "Client's full name as on the passport",
     "category": "profile", "type": "string"},
    {"key": "guest_count", "description": "Number of guests expected", "category": "temporal",
     "type": "number", "minimum": 1},
    {"key": "total_budget", "description": "The client's overall budget for the event",
     "category": "temporal", "type": "money"},
]  # fmt: skip


@pytest.mark.parametrize(
    ("said", "currency"),
    [("S$15,000", "SGD"), ("A$500", "AUD"), ("NZ$180", "NZD"), ("C$450", "CAD"),
     ("HK$300", "HKD"), ("US$20", "USD"), ("R$ 50", "BRL"), ("$20", "USD"), ("85 nzd", "NZD")],
)  # fmt: skip
def test_a_prefixed_dollar_sign_says_which_dollar(said: str, currency: str) -> None:
    assert [a.currency for a in money_in(said)] == [currency]


def test_the_budget_in_singapore_dollars_and_the_guests_in_a_word() -> None:
    facts = _facts(
        [("a", "How many guests?"), ("u", "Sixty."),
         ("a", "And a total budget you'd like us to keep to?"), ("u", "S$15,000, including your fee.")],
        PARTY,
    )  # fmt: skip
    assert facts == {"guest_count": 60, "total_budget": {"amount": 15000, "currency": "SGD"}}


@pytest.mark.parametrize(
    ("said", "digits"),
    [("Sixty.", "60."), ("about eighty people", "about 80 people"), ("fifteen minutes", "15 minutes"),
     ("two kids", "two kids"), ("one of them", "one of them"), ("in my twenties", "in my twenties")],
)  # fmt: skip
def test_a_tens_or_teens_word_alone_is_a_number_one_to_twelve_stay_words(said: str, digits: str) -> None:  # fmt: skip
    assert spell_out(said) == digits


def test_a_full_name_given_later_in_a_sentence_corrects_the_one_held() -> None:
    said = "thanks! ah and sorry, my name in the passport is Maria Fernanda de Souza, with the de"
    facts = _facts([("a", "I'll send you the list."), ("u", said)], PARTY,
                   {"full_name": "Maria Fernanda Souza"})  # fmt: skip
    assert facts == {"full_name": "Maria Fernanda de Souza"}
