from __future__ import annotations

import datetime
from typing import Any

import numpy as np
import pytest

from extraction.extractors import Usage, WindowTurn
from extraction.extractors.rules import RulesExtractor
from extraction.extractors.rules.dates import dates_in
from extraction.stages.compress import KeptUnits, atomicity_problems, is_duplicate
from extraction.text import absolutise, find_date, resolve_pronouns
from extraction.values import find_money, value_signature
from memory.embedding import embed
from schemas.defaults import PROPERTY_ADVISOR

DAY = datetime.datetime(2023, 5, 8, 13, 56, tzinfo=datetime.UTC)


def _turn(i: int, role: str, text: str, when: datetime.datetime = DAY) -> WindowTurn:
    me, you = ("Priya", "the assistant") if role == "user" else ("the assistant", "Priya")
    return WindowTurn(i, "s", i, role, text, when, me, you)


def _facts(*turns: WindowTurn) -> list[tuple[str, Any, str]]:
    return [
        (f.key, f.value, f.source)
        for f in RulesExtractor().extract_facts(list(turns), PROPERTY_ADVISOR, Usage())
    ]


@pytest.mark.parametrize(
    ("phrase", "expected"),
    [
        ("yesterday", "on 7 May 2023"),
        ("tonight", "on 8 May 2023"),
        ("next Friday", "on 12 May 2023"),
        ("last Friday", "on 5 May 2023"),
        ("in two days", "around 10 May 2023"),
        ("two weeks ago", "around 24 April 2023"),
        ("a few weeks ago", "around 17 April 2023"),
        ("a couple of months ago", "around March 2023"),
        ("a few years ago", "around 2020"),
        ("in several months", "around August 2023"),
        ("last week", "the week of 1 May 2023"),
        ("next month", "in June 2023"),
        ("recently", "shortly before 8 May 2023"),
    ],
)
def test_relative_dates_become_absolute(phrase: str, expected: str) -> None:
    assert absolutise(f"We met {phrase}.", DAY.date()) == f"We met {expected}."


def test_pronouns_resolve_to_names_with_agreement() -> None:
    text = resolve_pronouns(
        "I have a dog and my dog loves you. We are moving.", speaker="Priya", listener="Sam"
    )
    assert text == "Priya has a dog and Priya's dog loves Sam. Priya and others are moving."


@pytest.mark.parametrize(
    ("text", "amount", "currency"),
    [("my budget is 80 lakhs", 8_000_000, "INR"), ("up to ₹1.2 crore", 12_000_000, "INR"),
     ("rent is $1,800", 1800, "USD"), ("Rs. 45,000 a month", 45000, "INR"), ("about 2 million euros", 2_000_000, "EUR")],
)  # fmt: skip
def test_money_with_indian_units(text: str, amount: int, currency: str) -> None:
    assert [m.value() for m in find_money(text)] == [{"amount": amount, "currency": currency}]


def test_bare_numbers_are_not_money() -> None:
    assert find_money("I have 3 kids and walk 5 km") == []


def test_dates_in_sentences() -> None:
    assert find_date("we move in on 15 June", DAY.date()) == datetime.date(2023, 6, 15)
    assert find_date("the visit is next Friday", DAY.date()) == datetime.date(2023, 5, 12)


def test_facts_by_type_hedge_and_question() -> None:
    facts = _facts(
        _turn(
            1, "user", "Hi, I am Priya. My budget is 50 lakhs and I want a 3BHK apartment in Pune."
        ),
        _turn(2, "user", "I think we move in June."),
        _turn(3, "user", "Is a villa cheaper than 40 lakhs?"),
        _turn(4, "user", "I do not have a pre-approved loan yet."),
    )
    assert sorted(facts, key=str) == sorted([
        ("name", "Priya", "explicit"),
        ("city", "Pune", "explicit"),
        ("budget", {"amount": 5_000_000, "currency": "INR"}, "explicit"),
        ("bedrooms", 3, "explicit"),
        ("property_type", "apartment", "explicit"),
        ("move_in_date", "2023-06-01", "inferred"),
        ("loan_preapproved", False, "explicit"),
    ], key=str)  # fmt: skip


def test_a_yes_after_the_agent_proposes_confirms_its_value() -> None:
    facts = _facts(
        _turn(1, "assistant", "So your budget is 80 lakhs, right?"),
        _turn(2, "user", "Yes, that's right."),
    )
    assert facts == [("budget", {"amount": 8_000_000, "currency": "INR"}, "confirmed")]


def test_the_agents_own_statements_are_not_user_facts() -> None:
    assert _facts(_turn(1, "assistant", "My budget for this search is 90 lakhs.")) == []


SENTENCES = [
    "I went to a LGBTQ support group yesterday and it was so powerful.",
    "We are moving next Friday, my budget is 80 lakhs.",
    "You told me your sister lives in Delhi.",
    "Recently I started painting again, it helps me relax.",
    "Last week we adopted a puppy named Oscar!",
    "It was fun.",
    "I'll call you in two days about the flat.",
    "Our kids love the new school; they started two weeks ago.",
    "Talk to you soon!",
    "As soon as I start, all my worries vanish.",
    "Currently I am reading a lot, lately mostly poetry.",
]


def test_rules_units_always_pass_the_atomicity_check() -> None:
    turns = [_turn(i, "user" if i % 2 else "assistant", s) for i, s in enumerate(SENTENCES)]
    units = RulesExtractor().compress(turns, Usage())
    assert len(units) == len(SENTENCES)
    for unit in units:
        assert atomicity_problems(unit.text, ["Priya", "the assistant"]) == [], unit.text
    assert units[1].text == (
        "On 8 May 2023, Priya and others are moving on 12 May 2023, Priya's budget is 80 lakhs."
    )


@pytest.mark.parametrize(
    ("text", "problem"),
    [("I love it.", "unresolved pronoun"), ("Priya met them yesterday.", "relative time"),
     ("it was fun and relaxing.", "no subject"), ("Priya will call you soon.", "unresolved pronoun")],
)  # fmt: skip
def test_atomicity_check_catches_each_problem(text: str, problem: str) -> None:
    assert any(problem in p for p in atomicity_problems(text, ["Priya"]))


@pytest.mark.parametrize(
    ("a", "b"),
    [("rent is $1,800", "rent is $2,100"),
     ("The user has a dentist appointment on 2023-05-08.", "The user has a dentist appointment on 2023-05-15."),
     ("Priya's budget is 50 lakhs.", "Priya's budget is 80 lakhs.")],
)  # fmt: skip
def test_value_changes_are_never_deduplicated(a: str, b: str) -> None:
    va, vb = embed([a, b])
    assert float(va @ vb) > 0.8  # close enough that cosine alone would call them duplicates
    assert value_signature(a) != value_signature(b)
    assert not is_duplicate(b, vb, [(a, va)], threshold=0.8)


def test_true_repeats_are_deduplicated() -> None:
    a, b = "Priya adopted a puppy named Oscar.", "Priya adopted a puppy named Oscar!"
    va, vb = embed([a, b])
    assert is_duplicate(b, vb, [(a, va)], threshold=0.95)


def test_emails_phones_and_enum_choices_by_field() -> None:
    fields: list[dict[str, Any]] = [
        {"key": "email", "description": "The user's email address", "category": "profile", "type": "string"},
        {"key": "phone", "description": "The user's phone number", "category": "profile", "type": "string"},
        {"key": "diet", "description": "What the user eats", "category": "profile", "type": "enum",
         "choices": ["vegetarian", "vegan", "omnivore"]},
    ]  # fmt: skip
    turn = _turn(
        1, "user", "Mail me at priya@example.com or call +91 98765 43210. I am vegetarian."
    )
    facts = [(f.key, f.value) for f in RulesExtractor().extract_facts([turn], fields, Usage())]
    assert facts == [
        ("email", "priya@example.com"),
        ("phone", "+91 98765 43210"),
        ("diet", "vegetarian"),
    ]


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("The network team changed the timeout on Friday night.", "2026-06-19"),
        ("The plumber came Monday.", "2026-06-22"),
        ("I have moved it to Friday.", "2026-06-26"),
        ("I've booked you on Friday.", "2026-06-26"),
        ("Can you come on Friday?", "2026-06-26"),
    ],
)
def test_a_weekday_told_of_in_the_past_is_the_one_gone_by(text: str, day: str) -> None:
    tuesday = datetime.date(2026, 6, 23)
    assert [str(d.day) for d in dates_in(text, tuesday)] == [day]


def test_kept_units_answer_as_the_pairwise_check_does() -> None:
    texts = ["rent is $1,800", "rent is $2,100", "Priya adopted a puppy named Oscar.",
             "Priya adopted a puppy named Oscar!", "Priya's budget is 50 lakhs.",
             "Priya's budget is 80 lakhs.", "Priya's budget is 50 lakhs!", "rent is $1,800."]  # fmt: skip
    vectors = embed(texts)
    for threshold in (0.8, 0.95):
        kept = KeptUnits(len(texts), vectors.shape[1])
        pairs: list[tuple[str, np.ndarray]] = []
        answers = []
        for text, vector in zip(texts, vectors, strict=True):
            expected = is_duplicate(text, vector, pairs, threshold)
            assert kept.duplicate(value_signature(text), vector, threshold) == expected
            answers.append(expected)
            if not expected:
                kept.add(value_signature(text), vector)
                pairs.append((text, vector))
        assert any(answers) and not all(answers)
