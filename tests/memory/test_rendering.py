from __future__ import annotations

from typing import Any

from memory.rendering import context_block_render, fact_line, pack, stable_block_render
from memory.tokens import count_tokens


def _fact(
    key: str, text: str, when: str = "2026-03-01T10:00:00+00:00", **extra: Any
) -> dict[str, Any]:
    return {"id": key, "key": key, "category": "temporal", "value": text, "value_text": text,
            "source": "explicit", "valid_from": when, "expires_at": None, "pinned": False, **extra}  # fmt: skip


def _turn(seq: int, text: str) -> dict[str, Any]:
    return {
        "session": "s",
        "seq": seq,
        "role": "user",
        "text": text,
        "occurred_at": f"2026-03-01T10:{seq:02d}:00+00:00",
    }


def test_fact_line_carries_its_as_of_date_and_expiry() -> None:
    assert fact_line(_fact("budget", "₹80 lakh")) == "- budget: ₹80 lakh (as of 2026-03-01)"
    assert fact_line(_fact("pet:Max", "dog")) == "- pet (Max): dog (as of 2026-03-01)"
    ephemeral = _fact("mood", "tired", expires_at="2026-03-02T10:00:00+00:00")
    assert fact_line(ephemeral) == "- mood: tired (as of 2026-03-01, until 2026-03-02 10:00 UTC)"


def test_stable_block_is_ordered_and_labelled() -> None:
    block = stable_block_render(
        pinned=[], profile=[_fact("name", "Priya")], facts=[_fact("city", "Pune"), _fact("budget", "₹80 lakh")],
        possibilities=[_fact("pet", "dog")], summary="Priya is looking for a flat.",
    )  # fmt: skip
    assert block.splitlines() == [
        "# Memory of this user (from Handover)",
        "",
        "## Profile",
        "- name: Priya (as of 2026-03-01)",
        "",
        "## Current facts (assert these)",
        "- budget: ₹80 lakh (as of 2026-03-01)",
        "- city: Pune (as of 2026-03-01)",
        "",
        "## Possibilities (unconfirmed: hedge, never assert)",
        "- pet: dog (as of 2026-03-01)",
        "",
        "## Summary of earlier conversations",
        "Priya is looking for a flat.",
    ]


def test_same_state_same_bytes_whatever_the_input_order() -> None:
    facts = [_fact("b", "2"), _fact("a", "1"), _fact("c", "3")]
    one = stable_block_render(pinned=[], profile=[], facts=facts, possibilities=[], summary="")
    two = stable_block_render(
        pinned=[], profile=[], facts=list(reversed(facts)), possibilities=[], summary=""
    )
    assert one == two


def test_empty_memory_says_so() -> None:
    block = stable_block_render(pinned=[], profile=[], facts=[], possibilities=[], summary="")
    assert context_block_render(block, []).endswith("(nothing remembered yet)\n")


def test_pack_fits_budget_and_drops_lowest_value_first() -> None:
    facts = [
        _fact(
            f"fact_{i:02d}", "a value of several words here", f"2026-03-{i + 1:02d}T00:00:00+00:00"
        )
        for i in range(20)
    ]
    turns = [_turn(i, "a fairly long message from the user about the flat") for i in range(10)]
    packed = pack(
        pinned=[_fact("pinned_one", "must stay")], profile=[_fact("name", "Priya")], facts=facts,
        possibilities=[_fact("maybe", "possible")], summary="One. Two. Three.", recent_turns=turns,
        budget_tokens=150,
    )  # fmt: skip
    assert packed.tokens <= 150
    assert "- pinned_one: must stay" in packed.text and "- name: Priya" in packed.text
    # Newest facts are kept; the oldest, and the possibility, are what go.
    assert "fact_19" in packed.text and "fact_00" not in packed.text
    assert packed.dropped["facts"] > 0 and packed.dropped["possibilities"] == 1
    # No fact line is ever cut.
    for line in packed.text.splitlines():
        if line.startswith("- fact_"):
            assert line.endswith(")")


def test_stable_prefix_does_not_move_when_turns_grow() -> None:
    facts = [_fact("budget", "₹80 lakh"), _fact("city", "Pune")]
    short = pack(
        pinned=[],
        profile=[],
        facts=facts,
        possibilities=[],
        summary="",
        recent_turns=[_turn(1, "hi")],
        budget_tokens=60,
    )
    many = [
        _turn(i, "a much longer message that takes a lot of room in the budget") for i in range(30)
    ]
    long = pack(
        pinned=[],
        profile=[],
        facts=facts,
        possibilities=[],
        summary="",
        recent_turns=many,
        budget_tokens=120,
    )
    stable = stable_block_render(pinned=[], profile=[], facts=facts, possibilities=[], summary="")
    assert short.text.startswith(stable) and long.text.startswith(stable)
    assert long.tokens <= 120 and 0 < long.included["recent"] < 30
    assert count_tokens(stable) == short.stable_tokens == long.stable_tokens
