"""The anaphora benchmark's summary, for any probe file's splits (the blind sets have one)."""

from __future__ import annotations

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
