"""Where a conversation is, from the places it names (extraction/extractors/rules/places.py)."""

from __future__ import annotations

import pytest

from extraction.extractors.rules.places import place_currency, places_named


@pytest.mark.parametrize(
    ("text", "countries"),
    [
        ("We are moving to Sydney next month.", {"AU": 1}),
        ("a villa near Gachibowli, Hyderabad", {"IN": 1}),
        ("drop-off at Salt Lake City airport", {"US": 1}),
        ("300 Singapore dollars", {"SG": 2}),
        ("in the UK", {"GB": 1}),
        # people, companies and days are not places
        ("Hi Megan, Tyler from Greenway here.", {}),
        ("Good morning, Praxis am Park, Sofia speaking.", {}),
        ("I worked at Sunrise Clinic and at Tata Steel.", {}),
        ("My friend Charlotte lives with Austin.", {}),
        ("It's due in March, on Independence Day.", {}),
        ("dropping the SUV in Salt Lake", {}),
    ],
)
def test_places_named_after_a_locative_word_as_a_whole(
    text: str, countries: dict[str, int]
) -> None:
    assert dict(places_named([text])) == countries


def test_a_currency_leads_only_with_two_mentions_and_twice_any_other() -> None:
    assert place_currency(["I live in Auckland.", "The office in Auckland is closed."]) == "NZD"
    assert place_currency(["My cousin in Toronto."]) is None  # one mention: a relative's city
    assert place_currency(["in Pune", "in Pune", "in London", "in London"]) is None
    assert place_currency(["We fly from Delhi."], values=["Mumbai"]) == "INR"  # a stored place
