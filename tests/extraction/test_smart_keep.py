import datetime

from extraction.extractors import WindowTurn
from extraction.stages.smart_keep import smart_keep

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
                          "Great, thanks!", "Bye!"]  # fmt: skip
    turns = [WindowTurn(i + 1, "s", i + 1, r, t, DAY, "Priya", "Asha")
             for i, (r, t) in enumerate(zip(roles, texts, strict=True))]  # fmt: skip
    assert smart_keep(turns, min_kept=2, window=8) == {9, 10}
    # Still open (nobody else has spoken since): kept.
    open_ = [*turns[:8], WindowTurn(9, "s", 9, "user", "Can you find villas near Baner?", DAY, "Priya", "Asha"),
             WindowTurn(10, "s", 10, "user", "ok", DAY, "Priya", "Asha")]  # fmt: skip
    assert 9 in smart_keep(open_, min_kept=1, window=8)
