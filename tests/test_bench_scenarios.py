"""The scenario suite's data and scoring (bench/scenarios_run): typed comparison, finding values
in rendered text, the contradiction check, the per-conversation checks, and the suite itself."""

from __future__ import annotations

import datetime
import json
import re
from pathlib import Path
from typing import Any

import pytest

from bench.scenarios_run import data
from bench.scenarios_run.compare import norm_key, value_equal, value_matches, value_spans
from bench.scenarios_run.report import aggregate
from bench.scenarios_run.scoring import Reads, contradictions, fact_lines, score

INR = "INR"


def lakh(n: float) -> dict[str, Any]:
    return {"amount": int(n * 100_000), "currency": INR}


# --- typed comparison ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("type_", "actual", "expected", "equal"),
    [
        ("money", lakh(50), lakh(50), True),
        ("money", {"amount": 5_000_000.0, "currency": INR}, lakh(50), True),
        ("money", {"amount": 5_000_000, "currency": "USD"}, lakh(50), False),
        ("money", {"amount": 5_000_000, "currency": None}, lakh(50), False),
        ("money", lakh(50.5), lakh(50), False),
        ("number", 3.0, 3, True),
        ("number", True, 1, False),
        ("number", "3", 3, False),
        ("date", "2026-03-11", "2026-03-11", True),
        ("date", "2026-03-12", "2026-03-11", False),
        ("string", "  Kothrud. ", "kothrud", True),
        ("string", "Kothrud West", "Kothrud", False),
        ("enum", "CBSE", "CBSE", True),
        ("enum", "cbse", "CBSE", False),
        ("boolean", False, False, True),
        ("boolean", 0, False, False),
    ],
)
def test_value_equal_compares_by_type(type_: str, actual: Any, expected: Any, equal: bool) -> None:
    assert value_equal(type_, actual, expected) is equal


def test_value_matches_takes_the_accepted_alternatives() -> None:
    item = {"value": "Bangalore", "accept": ["Bengaluru"]}
    assert value_matches("string", "bengaluru", item)
    assert not value_matches("string", "Mysore", item)


def test_qualified_keys_compare_case_and_space_insensitively() -> None:
    assert norm_key("child_age: Aditi ") == norm_key("child_age:aditi")
    assert norm_key("child_age:Aditi") != norm_key("child_age:Vihaan")
    assert norm_key("budget") == "budget"


# --- values in rendered text --------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "₹50 lakh",
        "50 lakhs",
        "budget of 50,00,000",
        "Rs 5000000",
        "0.5 crore",
        "Rs. 50 L",
        "50 lac",
    ],
)
def test_an_indian_amount_is_found_in_every_way_it_is_written(text: str) -> None:
    assert value_spans("money", lakh(50), text)


@pytest.mark.parametrize("text", ["₹80 lakh", "₹50 crore", "$5,000,000", "PB-4471", "5000"])
def test_other_amounts_or_currencies_are_not_the_value(text: str) -> None:
    assert not value_spans("money", lakh(50), text)


def test_western_amounts_need_their_currency_or_none() -> None:
    usd = {"amount": 2100, "currency": "USD"}
    assert value_spans("money", usd, "rent is $2,100 now")
    assert value_spans("money", usd, "about 2.1k a month")
    assert not value_spans("money", usd, "rent is €2,100 now")


@pytest.mark.parametrize(
    ("text", "found"),
    [("on 2026-03-11", True), ("on 11 March", True), ("March 11th, 2026", True),
     ("the 11th of Mar", True), ("11 March 2025", False), ("12 March", False)],
)  # fmt: skip
def test_dates_are_found_in_iso_and_written_forms(text: str, found: bool) -> None:
    assert bool(value_spans("date", "2026-03-11", text)) is found


def test_strings_match_whole_words_only() -> None:
    assert value_spans("string", "Baner", "a flat in Baner last month")
    assert not value_spans("string", "Baner", "Banerjee called")


# --- the contradiction check --------------------------------------------------------------

TYPES = {"budget": "money", "bedrooms": "number", "localities": "string", "child_age": "number"}
STALE = [{"key": "budget", "value": lakh(50), "kind": "superseded", "tags": ["supersession"]}]


def block(facts: list[str] = (), summary: str = "", recent: list[str] = ()) -> str:  # type: ignore[assignment]
    parts = ["# Memory of this user (from Handover)", ""]
    if facts:
        parts += ["## Current facts (assert these)", *facts, ""]
    if summary:
        parts += ["## Summary of earlier conversations", summary, ""]
    if recent:
        parts += ["## Recent conversation", *recent]
    return "\n".join(parts) + "\n"


def test_a_stale_value_on_its_fact_line_is_a_contradiction() -> None:
    found = contradictions(block(["- budget: ₹50 lakh (as of 2026-03-02)"]), STALE, TYPES)
    assert [f["where"] for f in found] == ["Current facts"]


def test_the_current_value_on_the_fact_line_is_none() -> None:
    assert contradictions(block(["- budget: ₹80 lakh (as of 2026-03-14)"]), STALE, TYPES) == []


def test_a_summary_stating_the_old_budget_contradicts() -> None:
    text = block(["- budget: ₹80 lakh (as of 2026-03-14)"],
                 "Priya's budget is 50 lakhs. She wants a 3BHK.")  # fmt: skip
    found = contradictions(text, STALE, TYPES)
    assert [(f["where"], f["text"]) for f in found] == [
        ("Summary of earlier conversations", "Priya's budget is 50 lakhs.")
    ]


@pytest.mark.parametrize(
    "summary",
    ["Budget ₹50 lakh until 9 March, ₹80 lakh since.",
     "She raised the budget from ₹50,00,000 to ₹80 lakh.",
     "Her budget was previously 50 lakhs."],
)  # fmt: skip
def test_a_stale_value_marked_as_history_is_no_contradiction(summary: str) -> None:
    assert contradictions(block(summary=summary), STALE, TYPES) == []


def test_recent_turns_quote_history_and_are_not_checked() -> None:
    text = block(recent=["[2026-03-02 10:04] user: Our budget is 50 lakhs max."])
    assert contradictions(text, STALE, TYPES) == []


def test_someone_elses_value_counts_on_a_fact_line_but_not_in_the_summary() -> None:
    cousin = [{"key": "budget", "value": {"amount": 11_000_000, "currency": INR},
               "kind": "foreign", "tags": ["distractor"]}]  # fmt: skip
    summary = block(summary="Her cousin paid 1.1 crore for a flat in Baner.")
    assert contradictions(summary, cousin, TYPES) == []
    line = block(["- budget: ₹1.1 crore (as of 2026-03-14)"])
    assert len(contradictions(line, cousin, TYPES)) == 1


def test_a_small_number_needs_its_field_named_in_the_sentence() -> None:
    stale = [{"key": "bedrooms", "value": 2, "kind": "superseded", "tags": ["supersession"]}]
    assert contradictions(block(summary="They have 2 cars."), stale, TYPES) == []
    assert len(contradictions(block(summary="They want 2 bedrooms."), stale, TYPES)) == 1


def test_a_stale_value_equal_to_a_current_one_is_not_looked_for_in_prose() -> None:
    text = block(summary="The token amount is 50 lakhs.")
    assert contradictions(text, STALE, TYPES, keep=[("token", "money", lakh(50))]) == []


def test_a_stale_area_inside_the_current_list_of_areas_is_not_looked_for() -> None:
    stale = [
        {"key": "localities", "value": "Bandra West", "kind": "superseded", "tags": ["correction"]}
    ]
    text = block(summary="Ritu will look for flats in Bandra West and Khar West.")
    keep = [("localities", "string", "Bandra West and Khar West")]
    assert contradictions(text, stale, TYPES, keep=keep) == []
    assert len(contradictions(text, stale, TYPES)) == 1


def test_the_date_of_a_summary_sentence_and_a_negated_value_are_not_stated_values() -> None:
    types = {**TYPES, "appointment_date": "date", "notice_period_days": "number"}
    stale: list[dict[str, Any]] = [{"key": "appointment_date", "value": "2026-03-03", "kind": "superseded", "tags": ["supersession"]},
             {"key": "notice_period_days", "value": 60, "kind": "superseded", "tags": ["correction"]}]  # fmt: skip
    text = block(summary="On 3 March 2026, Anil said: almost pain free. "
                 "On 22 January 2026, Nikhil said: the notice period is actually 90 days, not 60.")  # fmt: skip
    assert contradictions(text, stale, types) == []
    moved = block(summary="On 1 March 2026, Anil said: the appointment is on 3 March.")
    assert len(contradictions(moved, stale, types)) == 1


def test_fact_lines_carry_their_qualifier_as_the_key() -> None:
    text = (
        "## Profile\n- child_age (Aditi): 7 (as of 2026-06-01)\n- name: Kavya (as of 2026-06-01)\n"
    )
    assert fact_lines(text) == [("Profile", "child_age:aditi", "7"), ("Profile", "name", "Kavya")]


# --- the checks of one conversation -------------------------------------------------------


def scenario(expect: dict[str, list[dict[str, Any]]]) -> data.Scenario:
    fields = [
        {"key": "budget", "description": "budget", "category": "temporal", "type": "money"},
        {"key": "child_age", "description": "age", "category": "profile", "type": "number"},
        {"key": "visit", "description": "today", "category": "ephemeral", "type": "string"},
    ]
    start = datetime.datetime(2026, 3, 2, 10, tzinfo=datetime.UTC)
    step = datetime.timedelta(seconds=40)
    turns = [data.Turn(1, i + 1, "user", f"turn {i}", start + i * step) for i in range(3)]
    return data.Scenario("t1", "test", "t", [], {"user": "U"}, fields, [turns],
                         {c: expect.get(c, []) for c in data.CHECKS})  # fmt: skip


def entity(key: str, value: Any, source: str = "explicit", turns: Any = ()) -> dict[str, Any]:
    return {"key": key, "value": value, "value_text": str(value), "source": source,
            "source_turns": list(turns)}  # fmt: skip


def reads(current: list[dict[str, Any]], timeline: list[dict[str, Any]] = ()) -> Reads:  # type: ignore[assignment]
    return Reads(sessions={1: "uuid-1"}, current=current, timeline=list(timeline) or current,
                 as_of={}, known_at={}, start={"facts": current}, blocks={})  # fmt: skip


def test_score_checks_values_sources_no_write_turns_and_expiry() -> None:
    s = scenario({
        "current": [{"key": "budget", "value": lakh(80), "tags": ["supersession"]},
                    {"key": "child_age:Aditi", "value": 7, "tags": ["qualifier"]}],
        "source": [{"key": "budget", "source": "confirmed", "tags": ["confirmation"]}],
        "no_write": [{"turn": "s1:2", "tags": ["small_talk"]}, {"turn": "s1:3", "tags": ["small_talk"]}],
        "expired": [{"key": "visit", "tags": ["ephemeral"]}],
    })  # fmt: skip
    current = [entity("budget", lakh(80), turns=[{"session": "uuid-1", "seq": 1}]),
               entity("child_age:aditi", 6, turns=[{"session": "uuid-1", "seq": 3}])]  # fmt: skip
    records = {(r["check"], r["key"]): r for r in score(s, reads(current))}
    assert records[("current", "budget")]["ok"]
    assert not records[("current", "child_age:Aditi")]["ok"]  # the value is wrong, the key right
    assert not records[("source", "budget")]["ok"]
    assert records[("no_write", "s1:2")]["ok"]
    assert records[("no_write", "s1:3")]["facts"] == 1
    assert (records[("expired", "visit")]["ok"], records[("expired", "visit")]["written"]) == (
        True,
        False,
    )


def test_an_expired_key_without_qualifier_stands_for_all_of_its_field() -> None:
    s = scenario({"expired": [{"key": "visit", "tags": ["ephemeral"]}]})
    (record,) = score(s, reads([entity("visit:evening", "after 4")]))
    assert not record["ok"]


def test_aggregate_counts_superseded_values_shown_and_per_phenomenon() -> None:
    s = scenario({
        "current": [{"key": "budget", "value": lakh(80), "tags": ["supersession"]}],
        "not_current": [{"key": "budget", "value": lakh(50), "kind": "superseded", "tags": ["supersession"]}],
    })  # fmt: skip
    summary = aggregate(score(s, reads([entity("budget", lakh(50))])))
    assert summary["figures"]["superseded_shown_as_current"] == 1
    assert summary["figures"]["current_right_pct"] == 0.0
    assert summary["per_phenomenon"]["supersession"]["n"] == 2
    assert summary["targets_met"]["superseded_shown_as_current"] is False


# --- the suite's data ---------------------------------------------------------------------


def test_validate_names_every_problem() -> None:
    s = scenario({
        "current": [{"key": "budgett", "value": 1, "tags": ["plain"]},
                    {"key": "budget", "value": "fifty", "tags": ["plain"]},
                    {"key": "child_age:Aditi", "value": 7, "tags": ["made_up"]}],
        "no_write": [{"turn": "s2:1", "tags": ["small_talk"]}],
        "expired": [{"key": "budget", "tags": ["ephemeral"]}],
    })  # fmt: skip
    problems = data.validate(s)
    assert len(problems) == 5, problems
    future = datetime.datetime.now(datetime.UTC) + datetime.timedelta(days=1)
    s.sessions = [[data.Turn(1, 1, "user", "hi", future)]]
    assert any("in the past" in p for p in data.validate(s))


HOLDOUT = data.DIRECTORY.parent / "scenarios_holdout"
DEV2 = data.DIRECTORY.parent / "scenarios_dev2"
DEV3 = data.DIRECTORY.parent / "scenarios_dev3"
HOLDOUT2 = data.DIRECTORY.parent / "scenarios_holdout2"
DEV4 = data.DIRECTORY.parent / "scenarios_dev4"


def conversations_per_tag(scenarios: list[data.Scenario]) -> dict[str, int]:
    return {
        tag: sum(1 for s in scenarios if any(tag in i["tags"] for items in s.expect.values() for i in items))
        for tag in data.PHENOMENA
    }  # fmt: skip


def test_the_suite_covers_what_issue_15_asks_for() -> None:
    scenarios = data.load()
    assert len(scenarios) >= 40
    assert len({s.domain for s in scenarios}) >= 6
    assert max(len(s.turns) for s in scenarios) >= 100
    per_tag = conversations_per_tag(scenarios)
    assert min(per_tag.values()) >= 1, per_tag
    several = {t: n for t, n in per_tag.items() if t != "long_session"}
    assert min(several.values()) >= 3, several
    assert len({json.dumps(s.fields, sort_keys=True) for s in scenarios}) >= 12  # schemas vary


def test_the_holdout_suite_is_valid_and_covers_every_phenomenon() -> None:
    """bench/scenarios_holdout/ (not for tuning: its README): valid, in domains of its own."""
    scenarios = data.load(HOLDOUT)
    assert len(scenarios) >= 24
    domains = {s.domain for s in scenarios}
    assert len(domains) >= 6
    assert not domains & {s.domain for s in data.load()}
    assert all(2 <= len(s.sessions) <= 5 for s in scenarios)
    assert max(len(session) for s in scenarios for session in s.sessions) >= 60
    several = {t: n for t, n in conversations_per_tag(scenarios).items() if t != "long_session"}
    assert min(several.values()) >= 3, several
    assert len({json.dumps(s.fields, sort_keys=True) for s in scenarios}) >= len(domains)


def test_the_second_development_suite_is_valid_and_covers_every_phenomenon() -> None:
    """bench/scenarios_dev2/ (a development set, its README): valid, in domains of neither other suite."""
    scenarios = data.load(DEV2)
    assert len(scenarios) >= 30
    domains = {s.domain for s in scenarios}
    assert len(domains) >= 6
    assert not domains & {s.domain for s in [*data.load(), *data.load(HOLDOUT)]}
    assert all(2 <= len(s.sessions) <= 4 for s in scenarios)
    assert max(len(session) for s in scenarios for session in s.sessions) >= 60
    several = {t: n for t, n in conversations_per_tag(scenarios).items() if t != "long_session"}
    assert min(several.values()) >= 4, several
    assert len({json.dumps(s.fields, sort_keys=True) for s in scenarios}) >= len(domains)


def test_the_third_development_suite_holds_several_things_under_one_key() -> None:
    """bench/scenarios_dev3/ (a development set of qualified keys, its README): valid, in
    domains of no other suite, qualifiers of every shape (codes, names, roles, body parts)."""
    scenarios = data.load(DEV3)
    assert len(scenarios) >= 12
    domains = {s.domain for s in scenarios}
    assert len(domains) >= 6
    assert not domains & {s.domain for s in [*data.load(), *data.load(HOLDOUT), *data.load(DEV2)]}
    keys = [i["key"] for s in scenarios for i in s.expect["current"] if ":" in i["key"]]
    qualifiers = [k.partition(":")[2] for k in keys]
    assert any(re.search(r"\d", q) for q in qualifiers)  # codes
    assert any(q[:1].isupper() and q.isalpha() for q in qualifiers)  # people by name
    assert any(q.islower() for q in qualifiers)  # roles, body parts
    several = {t: n for t, n in conversations_per_tag(scenarios).items() if t != "long_session"}
    assert min(several.values()) >= 5, several


def test_the_second_holdout_suite_is_valid_and_in_domains_of_its_own() -> None:
    """bench/scenarios_holdout2/ (written blind to the extractor, its README): valid, every
    conversation in a domain no other suite has, with a value kept per thing in each domain."""
    scenarios = data.load(HOLDOUT2)
    assert len(scenarios) >= 9
    domains = {s.domain for s in scenarios}
    assert len(domains) >= 3
    others = [*data.load(), *data.load(HOLDOUT), *data.load(DEV2), *data.load(DEV3)]
    assert not domains & {s.domain for s in others}
    for domain in domains:
        assert any(
            ":" in i["key"] for s in scenarios if s.domain == domain for i in s.expect["current"]
        )


def test_the_fourth_development_suite_is_valid_and_in_domains_of_its_own() -> None:
    """bench/scenarios_dev4/ (written blind to the extractor, then worked on: its README): valid,
    in domains of no other suite, every phenomenon but the long session in two conversations."""
    scenarios = data.load(DEV4)
    assert len(scenarios) >= 9
    domains = {s.domain for s in scenarios}
    assert len(domains) >= 3
    others = [
        *data.load(),
        *data.load(HOLDOUT),
        *data.load(DEV2),
        *data.load(DEV3),
        *data.load(HOLDOUT2),
    ]
    assert not domains & {s.domain for s in others}
    several = {t: n for t, n in conversations_per_tag(scenarios).items() if t != "long_session"}
    assert min(several.values()) >= 2, several


@pytest.mark.parametrize(
    "directory",
    [data.DIRECTORY, HOLDOUT, DEV2, DEV3, HOLDOUT2, DEV4],
    ids=["scenarios", "holdout", "dev2", "dev3", "holdout2", "dev4"],
)
def test_the_files_are_in_the_canonical_layout(directory: Path) -> None:
    paths = sorted(directory.glob("*.json"))
    assert paths
    for path in paths:
        assert data.dump(json.loads(path.read_text())) == path.read_text(), path.name
