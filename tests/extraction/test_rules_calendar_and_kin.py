"""Dates said by their place in a month ("the last Saturday of August", "Friday the 27th", "two
weeks from tomorrow"), a bare day in a reply read as the day the question dated, and a relative's
name for the field that keeps it ("my fiancé is Ewan Douglas")."""

from __future__ import annotations

import datetime
import functools

import pytest

from extraction.extractors.rules.dates import dates_in
from tests.extraction.dialogue import dialogue_facts

SAT = datetime.datetime(2026, 1, 17, 11, 0, tzinfo=datetime.UTC)
_facts = functools.partial(dialogue_facts, start=SAT, user="Chloé Martin", agent="Fiona")
EVENT = [
    {"key": "name", "description": "Client's full name", "category": "profile", "type": "string"},
    {"key": "partner_name", "category": "profile", "type": "string",
     "description": "Full name of the client's partner or the person the event is for"},
    {"key": "event_date", "description": "Date of the wedding or party", "category": "temporal",
     "type": "date"},
]  # fmt: skip


@pytest.mark.parametrize(
    ("said", "day"),
    [
        ("the last Saturday of August", "2026-08-29"),
        ("the first Monday of March", "2026-03-02"),
        ("second Tuesday in May", "2026-05-12"),
        ("the last Friday of the month", "2026-01-30"),
        ("the first weekend of June", "2026-06-06"),
        ("Friday the 27th", "2026-02-27"),  # 27 January is a Tuesday
        ("two weeks from tomorrow", "2026-02-01"),
        ("three days after Monday", "2026-01-22"),
    ],
)
def test_a_day_by_its_place_in_a_month_or_from_another(said: str, day: str) -> None:
    assert [d.day.isoformat() for d in dates_in(said, SAT.date())] == [day]


def test_a_bare_day_after_a_day_by_its_place_is_in_that_month() -> None:
    found = dates_in("The last Saturday of August, that's the 29th.", SAT.date())
    assert [d.day.isoformat() for d in found] == ["2026-08-29", "2026-08-29"]


def test_a_weekday_that_no_such_day_falls_on_leaves_the_day_of_the_month() -> None:
    assert [d.day.isoformat() for d in dates_in("Monday the 31st", SAT.date())] == ["2026-01-31"]
    # a day gone by within two weeks: "Saturday the 10th" of a leak, said on Saturday the 17th
    assert [d.day.isoformat() for d in dates_in("Saturday the 10th", SAT.date())] == ["2026-01-10"]
    # "Thursday, the 19th is booked": a weekday, then a day of the month, not one date
    assert "2026-11-19" not in [
        d.day.isoformat() for d in dates_in("Thursday, the 19th is booked", SAT.date())
    ]
    assert [d.day.isoformat() for d in dates_in("the 3rd floor", SAT.date())] == []


def test_the_wedding_date_said_as_marry_and_the_partner_named() -> None:
    facts = _facts(
        [("a", "Shall we start with the basics?"),
         ("u", "So, I am Chloé Martin, my fiancé is Ewan Douglas, and we want to marry the last "
               "Saturday of August.")],
        EVENT,
    )  # fmt: skip
    assert facts == {"name": "Chloé Martin", "partner_name": "Ewan Douglas",
                     "event_date": "2026-08-29"}  # fmt: skip


def test_a_bare_day_in_a_reply_is_the_day_the_question_dated() -> None:
    facts = _facts(
        [("a", "When is the party?"), ("u", "A Saturday in August, the last one."),
         ("a", "The last Saturday of August, that's the 29th. Right?"),
         ("u", "Exactly, the 29th.")],
        EVENT,
    )  # fmt: skip
    assert facts["event_date"] == "2026-08-29"


@pytest.mark.parametrize(
    "said",
    [
        "My partner, Kwame Mensah, will come to the tasting.",
        "It's for my husband Kwame Mensah.",
        "My wife's name is Kwame Mensah.",
    ],
)
def test_the_partners_name_however_it_is_introduced(said: str) -> None:
    facts = _facts([("a", "Who is the party for?"), ("u", said)], EVENT)
    assert facts.get("partner_name") == "Kwame Mensah"


@pytest.mark.parametrize(
    "said",
    ["My brother is Tom Hale, he'll help.", "My partner is coming too.", "My mum, Ann, says hi."],
)
def test_another_relatives_name_or_none_is_not_the_partners(said: str) -> None:
    assert "partner_name" not in _facts([("a", "Anything else?"), ("u", said)], EVENT)


def test_a_bare_day_the_agent_offers_is_in_the_month_of_the_date_held() -> None:
    feb = functools.partial(dialogue_facts, start=datetime.datetime(2026, 2, 14, 10, 30, tzinfo=datetime.UTC),
                            user="Aisha Khan", agent="Freya")  # fmt: skip
    turns = [("a", "The photographer is free on the 12th. £2,200 for the day. Want me to book them?"),
             ("u", "Yes please!")]  # fmt: skip
    held = feb(turns, EVENT, {"event_date": "2026-09-12"})
    assert held.get("event_date", "2026-09-12") == "2026-09-12"  # not 12 March
    assert feb(turns, EVENT, {}) == {"event_date": "2026-03-12"}  # nothing held: the next 12th
