"""The scenario benchmark end to end on two conversations: its own server and worker on a
fresh embedded stack (bench.latency.start_server), ingestion and extraction through the API,
and scores that are computed, complete and within their ranges."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.scenarios_run import cli, data
from bench.scenarios_run.report import VALUE_CHECKS

pytestmark = pytest.mark.slow
ONLY = ["re03-meera-hyd", "bk01-ramesh-two-accounts"]


def test_the_runner_scores_two_conversations(tmp_path: Path) -> None:
    out = tmp_path / "scenarios.json"
    assert cli.main(["--only", ",".join(ONLY), "--out", str(out), "--workers", "1"]) == 0
    summary = json.loads(out.read_text())
    scenarios = data.load(only=set(ONLY))
    expected = {check: sum(len(s.expect[check]) for s in scenarios) for check in VALUE_CHECKS}

    assert summary["run_failures"] == []
    assert summary["conversations"] == 2
    assert summary["turns"] == sum(len(s.turns) for s in scenarios)
    assert {c: t["n"] for c, t in summary["figures"]["checks"].items()} == expected
    figures = summary["figures"]
    assert figures["blocks"] == 4  # a session-start block and a context pack each
    for name in ("current_right_pct", "as_of_right_pct", "known_at_right_pct", "source_right_pct",
                 "no_write_turns_clean_pct", "contradiction_blocks_pct"):  # fmt: skip
        assert 0 <= figures[name] <= 100, name
    assert 0 <= figures["superseded_shown_as_current"] <= figures["not_current_shown_as_current"]
    assert figures["not_current_shown_as_current"] <= expected["not_current"]
    tags = {t for s in scenarios for items in s.expect.values() for i in items for t in i["tags"]}
    assert set(summary["per_phenomenon"]) == tags
    assert set(summary["per_domain"]) == {"real_estate", "bank_support"}
    # Something was extracted: the rules extractor gets the plain answers of re03 right.
    assert figures["checks"]["current"]["right"] > 0
    failed = summary["failed_checks"]
    assert all(not r["ok"] for r in failed)
    assert len(failed) == sum(t["n"] - t["right"] for t in figures["checks"].values()) + sum(
        1 for r in failed if r["check"] in ("block", "block_current")
    )
