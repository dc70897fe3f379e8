import datetime

import pytest

from extraction.extractors import WindowTurn
from extraction.stages.smart_keep import smart_keep
from extraction.text import is_closing

DAY = datetime.datetime(2026, 3, 3, tzinfo=datetime.UTC)


def _turns(texts: list[str]) -> list[WindowTurn]:
    return [
        WindowTurn(i + 1, "s", i + 1, "user", t, DAY, "Priya", "Asha") for i, t in enumerate(texts)
    ]


def test_keeps_the_last_turns_and_the_dense_or_open_ones() -> None:
    texts = (
        ["ok"] * 10
        + ["My budget is 80 lakhs for a 3BHK in Pune by 15 June 2026."]
        + ["ok"] * 5
        + ["Can you find villas near Baner?"]
        + ["ok", "thanks", "fine"]
    )
    kept = smart_keep(_turns(texts), min_kept=3, window=8)
    assert {18, 19, 20} <= kept  # the last three, always
    assert 17 in kept  # an open question
    assert 11 not in kept  # dense, but outside the window of 8
    assert len(kept) <= 6


def test_never_fewer_than_the_minimum_and_zero_keeps_nothing() -> None:
    turns = _turns(["ok"] * 5)
    assert smart_keep(turns, min_kept=4, window=10) == {2, 3, 4, 5}
    assert smart_keep(turns, min_kept=0, window=10) == set()


def test_a_question_already_answered_is_not_kept_without_its_answer() -> None:
    roles = ["user", "assistant"] * 5
    texts = ["ok"] * 6 + ["Is there anywhere you recommend visiting?", "Barcelona is a must.",
                          "ok", "Sounds fun."]  # fmt: skip
    turns = [WindowTurn(i + 1, "s", i + 1, r, t, DAY, "Priya", "Asha")
             for i, (r, t) in enumerate(zip(roles, texts, strict=True))]  # fmt: skip
    assert smart_keep(turns, min_kept=2, window=8) == {9, 10}
    # Still open (nobody else has spoken since): kept.
    open_ = [*turns[:8], WindowTurn(9, "s", 9, "user", "Can you find villas near Baner?", DAY, "Priya", "Asha"),
             WindowTurn(10, "s", 10, "user", "ok", DAY, "Priya", "Asha")]  # fmt: skip
    assert 9 in smart_keep(open_, min_kept=1, window=8)


def test_the_closing_exchange_is_not_what_is_kept() -> None:
    roles = ["user", "assistant"] * 3
    texts = ["Book the Tuesday slot at 10, please.", "Done: Tuesday 10 am with Dr Rao.",
             "Perfect, thank you Asha!", "No worries, Priya. Take care!",
             "Cheers, bye!", "Bye!"]  # fmt: skip
    turns = [WindowTurn(i + 1, "s", i + 1, r, t, DAY, "Priya", "Asha")
             for i, (r, t) in enumerate(zip(roles, texts, strict=True))]  # fmt: skip
    assert 2 in smart_keep(turns, min_kept=1, window=8)  # what was agreed, not the goodbyes
    assert not {3, 4, 5, 6} & smart_keep(turns, min_kept=1, window=8)
    # Only goodbyes: they are what there is.
    assert smart_keep(turns[4:], min_kept=1, window=8) == {6}


@pytest.mark.parametrize(
    ("text", "closing"),
    [
        ("Great, thanks!", True),
        ("Yea, no worries! It was great catching up. Take it easy!", True),
        ("Cheers! I owe you one. Let me know if you need anything. Bye!", True),
        ("Thank you so much for everything, have a great weekend!", True),
        # An answer, a refusal or a figure is not a goodbye.
        ("Yes please, thanks", False),
        ("No thanks", False),
        ("Sure, thanks", False),
        ("Thanks, that works", False),
        ("Thanks, Tuesday it is", False),
        ("Thanks, the delivery is on 5 May. Bye", False),
        ("Thanks! Can you send it?", False),
        ("Thanks, I'll take the blue one. Bye", False),
        ("ok", False),
    ],
)
def test_what_counts_as_a_closing_turn(text: str, closing: bool) -> None:
    assert is_closing(text) is closing
