"""The anaphora benchmark's summary, for any probe file's splits (the blind sets have one)."""

from __future__ import annotations

from typing import Any

from bench.anaphora.__main__ import summarise


def _row(split: str, kind: str, handover: float) -> dict[str, object]:
    return {"split": split, "kind": kind,
            "recall": {"handover": handover, "handover_in_context": handover, "search": 0.0, "recent": 0.0}}  # fmt: skip


def test_a_file_with_one_split_of_its_own_is_summarised() -> None:
    out = summarise([_row("fresh_c", "other", 1.0), _row("fresh_c", "usual", 0.0)])
    assert list(out) == ["all", "fresh_c", "other", "usual"]
    assert out["fresh_c"] == out["all"] and out["all"]["handover"] == 0.5
    assert out["usual"]["probes"] == 1


def test_the_first_sets_splits_come_first() -> None:
    out = summarise([_row("held_out", "that", 1.0), _row("tune", "that", 0.0)])
    assert list(out)[:3] == ["all", "tune", "held_out"]


def test_a_file_with_more_fact_keys_than_one_schema_holds_is_split_across_agents() -> None:
    from bench.anaphora.__main__ import MAX_FIELDS, _agents

    def conversation(n: int) -> dict[str, Any]:
        return {"id": f"c{n}", "facts": [{"key": f"k{n}_{i}", "value": "v"} for i in range(60)]}

    small = {"fact_fields": ["a"], "conversations": [conversation(0), conversation(1)]}
    assert set(_agents(small).values()) == {"anaphora"}  # the sets so far: one agent, as before
    conversations = [conversation(n) for n in range(7)]  # 420 keys
    big = {"fact_fields": [f["key"] for c in conversations for f in c["facts"]], "conversations": conversations}  # fmt: skip
    agents = _agents(big)
    assert len(agents) == 7 and len(set(agents.values())) == 3
    for slug in set(agents.values()):
        keys = {f["key"] for c in conversations if agents[c["id"]] == slug for f in c["facts"]}
        assert len(keys) <= MAX_FIELDS
