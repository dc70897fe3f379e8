"""The summary rule on its own: a sentence the facts speak for goes, someone else's stays."""

from __future__ import annotations

import datetime

from extraction.stages.summary import Version, summary_consistent, summary_fold
from memory.tokens import count_tokens

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


def test_a_value_no_longer_held_is_said_only_as_history_whoever_the_sentence_is_about() -> None:
    text = ("On 2 April 2026, Grace Thompson's old roommate still lives in Austin. "
            "On 9 March 2026, Grace Thompson lives in Austin. "
            "On 2 April 2026, Grace Thompson's roommate moved to Denver.")  # fmt: skip
    kept = summary_consistent(text, FIELDS, _versions(), max_tokens=200)
    assert "Grace Thompson lives in Austin" not in kept  # hers, and no longer true
    assert "roommate still lives in Austin" not in kept  # the roommate's, but Austin was hers
    assert "roommate moved to Denver" in kept  # a value memory never held for her stays
    assert "City: Austin until 2 April 2026; Seattle since." in kept


def test_a_relative_named_after_the_value_does_not_own_it() -> None:
    fields = [*FIELDS, {"key": "fee_budget", "type": "money", "description": "yearly fee cap"}]
    text = ("On 9 March 2026, David said: Probably up to £18,000 a year, he would have to talk "
            "it over with David's wife. On 9 March 2026, David's cousin paid £30,000 a year.")  # fmt: skip
    kept = summary_consistent(text, fields, _versions(), max_tokens=200)
    assert "£18,000" not in kept  # his own budget: the facts speak for it
    assert "cousin paid £30,000" in kept  # the cousin's


def test_a_mood_that_changed_is_no_history_line() -> None:
    fields = [*FIELDS, {"key": "mood", "type": "string", "category": "ephemeral",
                        "description": "how the user feels right now"}]  # fmt: skip
    versions = [*_versions(), Version("mood", "mood", "tired", "tired", False, MARCH, APRIL),
                Version("mood", "mood", "relieved", "relieved", True, APRIL)]  # fmt: skip
    kept = summary_consistent("", fields, versions, max_tokens=200)
    assert "City: Austin until 2 April 2026; Seattle since." in kept
    assert "Mood" not in kept and "tired" not in kept


def test_the_summary_keeps_what_was_said_over_who_said_it_and_when() -> None:
    # The two people talking are named in every sentence, and every sentence is dated: neither
    # makes one sentence worth more than another. What is left decides.
    said = [f"On {day} March 2026, Grace said: {text}" for day, text in [
        (2, "See Tom on 9 March 2026!"), (3, "Great talking to you, Tom!"),
        (4, "Grace finished reading Becoming Nicole by Amy Ellis Nutt."),
        (5, "Thanks so much, Tom."), (6, "Grace adopted a beagle called Biscuit from Hope Rescue."),
        (7, "Bye Tom, talk soon!")]]  # fmt: skip
    summary = summary_fold("", said, max_tokens=count_tokens(" ".join(said[2:5:2])) + 2)
    assert "Becoming Nicole" in summary and "Biscuit" in summary, summary
    assert "See Tom" not in summary


def test_with_a_number_field_in_the_schema_no_sentence_states_a_number() -> None:
    # The facts speak for the count; whether this 150 is the guests' count (since changed) or
    # something else, a sentence cannot say which without repeating or contradicting them.
    fields = [*FIELDS, {"key": "headcount", "type": "number", "description": "how many attend"}]
    text = ("On 9 March 2026, Farhan said: It's 15 waiters for 150 guests. "
            "On 9 March 2026, Farhan said the hall has a garden.")  # fmt: skip
    kept = summary_consistent(text, fields, _versions(), max_tokens=200)
    assert "150" not in kept and "hall has a garden" in kept
    labels = "On 9 March 2026, Farhan said: Day 3 went well, flat number 5 in Baner was ready."
    assert "flat number 5" in summary_consistent(labels, fields, _versions(), max_tokens=200)


def test_a_thing_kept_per_item_is_named_in_the_singular_too() -> None:
    fields = [*FIELDS, {"key": "size", "type": "string", "description": "clothing and shoe sizes"}]
    versions = [*_versions(), Version("size:shoes", "size", "39", "39", False, MARCH, APRIL),
                Version("size:shoes", "size", "40", "40", True, APRIL)]  # fmt: skip
    text = "On 9 March 2026, Joana said: For future, my shoe size is 39. Joana likes red."
    kept = summary_consistent(text, fields, versions, max_tokens=200)
    assert "shoe size is 39" not in kept and "likes red" in kept


def test_what_a_transcript_brackets_is_not_said_and_takes_no_room() -> None:
    units = ["On 9 March 2026, Grace said: We walked the whole coast path. [shares an image: a "
             "photo of a cliff with the sea below and two people walking along the edge]",
             "On 9 March 2026, Grace said: [laughs]",
             "On 2 April 2026, Grace started pottery classes on Thursdays."]  # fmt: skip
    folded = summary_fold("", units, max_tokens=200)
    assert "[" not in folded and "laughs" not in folded and "photo" not in folded
    assert "We walked the whole coast path." in folded and "pottery classes" in folded
    # Room the asides took goes to what was said: a cap that fits the two sentences only
    # without the caption still keeps both.
    tight = count_tokens("On 9 March 2026, Grace said: We walked the whole coast path. On 2 "
                         "April 2026, Grace started pottery classes on Thursdays.")  # fmt: skip
    assert summary_fold("", units, max_tokens=tight).count("2026") == 2


def test_a_day_is_written_once_and_a_later_fold_keeps_its_sentences_dated() -> None:
    units = ["On 9 March 2026, Grace said: Grace adopted a beagle called Biscuit.",
             "On 9 March 2026, Grace is as of 9 March 2026 reading Dune by Frank Herbert.",
             "On 2 April 2026, Grace said: the pottery class moved to Thursdays."]  # fmt: skip
    folded = summary_fold("", units, max_tokens=200)
    # One frame for the day; "Grace said:" goes where the sentence names Grace anyway, and an
    # "as of" that repeats the day; a sentence in lower case keeps its frame.
    assert folded == ("On 9 March 2026, Grace adopted a beagle called Biscuit. Grace is reading "
                      "Dune by Frank Herbert. On 2 April 2026, Grace said: the pottery class "
                      "moved to Thursdays.")  # fmt: skip
    assert count_tokens(folded) < count_tokens(" ".join(units))
    # Folded again with something newer, the sentence without a frame is still of 9 March: it
    # is neither lost nor moved, and the cap still holds.
    again = summary_fold(folded, ["On 5 May 2026, Grace started a new job at Kew Gardens."],
                         max_tokens=200)  # fmt: skip
    assert again.startswith("On 9 March 2026, Grace adopted") and "Grace is reading Dune" in again
    assert again.index("Dune") < again.index("On 2 April") < again.index("Kew Gardens")
    tight = summary_fold(folded, ["On 5 May 2026, Grace started a new job at Kew Gardens."],
                         max_tokens=30)  # fmt: skip
    assert 0 < count_tokens(tight) <= 30


def test_a_reply_opens_without_its_particles_and_one_that_points_back_weighs_less() -> None:
    # "Yeah, here's one I did" says nothing without the turn it answers; "Oh wow," before a
    # sentence takes room and says nothing either.
    said = ["On 3 March 2026, Grace said: Yeah, here's one Grace painted at the lake in March 2026.",
            "On 4 March 2026, Grace said: Oh wow, Tom's sister Ana opened a bakery in Leeds.",
            "On 5 March 2026, Grace said: It was Matt, the painter from Leeds, last weekend."]  # fmt: skip
    folded = summary_fold("", said, max_tokens=200)
    assert "Oh wow" not in folded and "Tom's sister Ana opened a bakery" in folded
    assert "Yeah," not in folded and "Here's one" in folded
    # Room for one of two alike: the sentence that stands alone wins over the one that points back.
    alike = ["On 4 March 2026, Grace said: It was Matt Patterson, he is so talented!",
             "On 4 March 2026, Grace said: Ana Patterson won, she is so talented!"]  # fmt: skip
    one = summary_fold("", alike, max_tokens=count_tokens(alike[1]))
    assert "Ana" in one and "Matt" not in one, one
