"""The summary rule on its own: a sentence the facts speak for goes, someone else's stays."""

from __future__ import annotations

import datetime

from extraction.stages.summary import Version, summary_consistent

MARCH = datetime.datetime(2026, 3, 9, tzinfo=datetime.UTC)
APRIL = datetime.datetime(2026, 4, 2, tzinfo=datetime.UTC)
FIELDS = [
    {"key": "medication", "type": "string", "description": "each medicine and its dose"},
    {"key": "city", "type": "string", "description": "city the user lives in"},
]


def _versions() -> list[Version]:
    return [
        Version("medication:lisinopril", "medication", "20 mg", "20 mg", True, APRIL),
        Version("city", "city", "Austin", "Austin", False, MARCH, APRIL),
        Version("city", "city", "Seattle", "Seattle", True, APRIL),
    ]


def test_a_sentence_naming_a_thing_the_facts_keep_goes_even_with_a_value_never_written() -> None:
    text = ("On 9 March 2026, Grace said: Lisinopril, 10 mg every morning. "
            "On 9 March 2026, Grace said she walks every day.")  # fmt: skip
    kept = summary_consistent(text, FIELDS, _versions(), max_tokens=200)
    assert "10 mg" not in kept  # the medication's fact (20 mg now) speaks for lisinopril
    assert "walks every day" in kept


def test_someone_the_user_names_by_relation_keeps_their_own_value() -> None:
    text = ("On 2 April 2026, Grace Thompson's old roommate still lives in Austin. "
            "On 9 March 2026, Grace Thompson lives in Austin.")  # fmt: skip
    kept = summary_consistent(text, FIELDS, _versions(), max_tokens=200)
    assert "roommate still lives in Austin" in kept  # the roommate's, not hers
    assert "Grace Thompson lives in Austin" not in kept  # hers, and no longer true
    assert "City: Austin until 2 April 2026; Seattle since." in kept


def test_a_relative_named_after_the_value_does_not_own_it() -> None:
    fields = [*FIELDS, {"key": "fee_budget", "type": "money", "description": "yearly fee cap"}]
    text = ("On 9 March 2026, David said: Probably up to £18,000 a year, he would have to talk "
            "it over with David's wife. On 9 March 2026, David's cousin paid £30,000 a year.")  # fmt: skip
    kept = summary_consistent(text, fields, _versions(), max_tokens=200)
    assert "£18,000" not in kept  # his own budget: the facts speak for it
    assert "cousin paid £30,000" in kept  # the cousin's
