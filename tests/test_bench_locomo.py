"""The LoCoMo benchmark's scoring (bench/locomo/): metrics, budgets, fusion, baselines, diff."""

from __future__ import annotations

import datetime
import json
from pathlib import Path

import pytest

from bench.extraction import session_time
from bench.locomo import baselines, diff, report
from bench.locomo.data import answer_coverage, evidence_ids, locomo_date, tail_block, turn_lines
from bench.locomo.metrics import (
    aggregate,
    all_at,
    budget_recall,
    hit_at,
    question_scores,
    recall_at,
    rrf,
    within_budget,
)

# A unit citing two turns, then raw turns; the evidence is D1:2, D3:1 and D4:4.
RANKED = [["D1:1", "D1:2"], ["D2:5"], ["D3:1"], ["D9:9"]]
GOLD = {"D1:2", "D3:1", "D4:4"}


def test_recall_counts_the_share_of_evidence_turns_in_the_top_k() -> None:
    assert recall_at(RANKED, GOLD, 1) == pytest.approx(1 / 3)
    assert recall_at(RANKED, GOLD, 2) == pytest.approx(1 / 3)
    assert recall_at(RANKED, GOLD, 3) == pytest.approx(2 / 3)
    assert recall_at(RANKED, GOLD, 10) == pytest.approx(2 / 3)  # k past the end of the list
    assert recall_at(RANKED, GOLD, 0) == 0.0


def test_hit_needs_any_evidence_turn_and_all_needs_every_one() -> None:
    assert [hit_at(RANKED, GOLD, k) for k in (1, 3)] == [1.0, 1.0]
    assert hit_at([["D2:5"], ["D1:2"]], GOLD, 1) == 0.0
    assert all_at(RANKED, GOLD, 10) == 0.0  # D4:4 is never returned
    assert all_at(RANKED, {"D1:2", "D3:1"}, 2) == 0.0
    assert all_at(RANKED, {"D1:2", "D3:1"}, 3) == 1.0


def test_a_budget_takes_whole_results_in_rank_order_and_stops_at_the_first_that_overflows() -> None:
    assert within_budget([100, 300, 50], 400) == 2  # exactly full
    assert within_budget([100, 301, 50], 400) == 1  # no skipping to the shorter third one
    assert within_budget([500, 10], 400) == 0
    assert within_budget([10, 20], 400) == 2  # the list ran out first
    assert within_budget([], 400) == 0


def test_budget_recall_counts_only_what_fits() -> None:
    tokens = [250, 100, 60, 40]
    assert budget_recall(RANKED, tokens, GOLD, 400) == pytest.approx(1 / 3)  # 250 + 100 only
    assert budget_recall(RANKED, tokens, GOLD, 410) == pytest.approx(2 / 3)  # + D3:1 (60)
    assert budget_recall(RANKED, tokens, GOLD, 249) == 0.0


def test_question_scores_name_every_metric_and_whether_the_budget_was_filled() -> None:
    scores = question_scores(RANKED, [250, 100, 60, 40], GOLD)
    assert scores["recall@5"] == pytest.approx(2 / 3)
    assert (scores["hit@1"], scores["all@10"]) == (1.0, 0.0)
    assert (scores["results@400t"], scores["filled@400t"]) == (2.0, 1.0)
    assert (scores["results@1600t"], scores["filled@1600t"]) == (4.0, 0.0)  # 450 tokens in all
    assert len(scores) == 4 * 3 + 3 * 3


def test_aggregate_means_per_category_and_overall() -> None:
    rows = [("1", {"recall@8": 1.0}), ("1", {"recall@8": 0.5}), ("4", {"recall@8": 0.0})]
    result = aggregate(rows)
    assert result["recall@8"] == 0.5
    assert result["questions"] == 3
    assert result["by_category"] == {
        "1": {"recall@8": 0.75, "questions": 2},
        "4": {"recall@8": 0.0, "questions": 1},
    }
    assert aggregate([]) == {"questions": 0, "by_category": {}}


def test_rrf_sums_reciprocal_ranks_with_k_60() -> None:
    # a: 1/61 + 1/63; b: 1/62 + 1/61; c: 1/63 + 1/62; d: 1/64 (first list only).
    fused = rrf([["a", "b", "c", "d"], ["b", "c", "a"]])
    assert fused == ["b", "a", "c", "d"]
    # One list alone keeps its order; an item in both beats one ranked first in one only.
    assert rrf([["x", "y", "z"]]) == ["x", "y", "z"]
    assert rrf([["x", "y"], ["z", "y"]])[0] == "y"


def test_rrf_uses_k_60_exactly() -> None:
    """x first in one list; y at rank r in both: 2 / (60 + r) beats 1 / 61 only while r < 62."""

    def lists(r: int) -> list[list[str]]:
        fill = [f"a{i}" for i in range(2, r)]
        return [["x", *fill, "y"], [f"b{i}" for i in range(1, r)] + ["y"]]

    assert rrf(lists(61))[0] == "y"
    assert rrf(lists(63))[:2] == ["x", "b1"]  # x and b1 tie at 1/61: the earlier list first
    assert rrf(lists(61), k=70)[0] == "y" and rrf(lists(63), k=70)[0] == "y"


def test_rrf_breaks_ties_by_the_best_rank_then_the_earlier_list() -> None:
    assert rrf([["a", "b"], ["b", "a"]]) == ["a", "b"]  # equal sums, equal best ranks: list 1
    assert rrf([["p"], ["q"]]) == ["p", "q"]
    assert rrf([["a", "b"], []], k=1) == ["a", "b"]


def test_evidence_ids_are_normalised_as_locomo_md_says() -> None:
    assert evidence_ids(["D8:6; D9:17", "D30:05", "D:11:26", "D4:3 D4:4", "D"]) == {
        "D8:6", "D9:17", "D30:5", "D11:26", "D4:3", "D4:4",
    }  # fmt: skip
    assert evidence_ids([]) == set()


CONVERSATION = {
    "id": "conv-x",
    "sessions": [
        {"n": 1, "when": datetime.datetime(2023, 5, 8, 13, 56, tzinfo=datetime.UTC),
         "turns": [{"speaker": "Ana", "dia_id": "D1:1", "text": "I adopted a greyhound named Pixel."},
                   {"speaker": "Ben", "dia_id": "D1:2", "text": "Lovely! I started pottery classes."}]},
        {"n": 2, "when": datetime.datetime(2023, 6, 1, 9, 5, tzinfo=datetime.UTC),
         "turns": [{"speaker": "Ana", "dia_id": "D2:1", "text": "Pixel chewed my sofa today."}]},
    ],
}  # fmt: skip


def test_baseline_turns_carry_the_session_date_and_the_speaker() -> None:
    assert turn_lines(CONVERSATION)[0] == (
        "D1:1",
        "[1:56 pm on 8 May, 2023] Ana: I adopted a greyhound named Pixel.",
    )
    assert turn_lines(CONVERSATION)[2][1].startswith("[9:05 am on 1 June, 2023] Ana: ")


def test_the_date_is_written_back_exactly_as_locomo_writes_it() -> None:
    for raw in (
        "1:56 pm on 8 May, 2023",
        "12:06 am on 11 November, 2022",
        "12:30 pm on 1 June, 2023",
    ):
        assert locomo_date(session_time(raw)) == raw


def test_baselines_rank_every_turn_on_the_same_text() -> None:
    asked = [
        {"conversation": "conv-x", "index": 0, "question": "What pottery classes did Ben start?"}
    ]
    out = baselines.rankings([CONVERSATION], asked)
    key = ("conv-x", 0)
    assert out["bm25"][key]["ids"] == [["D1:2"]]  # only turns sharing a word are ranked
    assert sorted(out["dense"][key]["ids"]) == [["D1:1"], ["D1:2"], ["D2:1"]]
    assert out["recent"][key]["ids"] == [["D2:1"], ["D1:2"], ["D1:1"]]
    # In both lists, D1:2 outscores any turn dense alone ranks, even first (1/61 < 1/63 + 1/61).
    assert out["rrf"][key]["ids"][0] == ["D1:2"]
    assert sorted(out["rrf"][key]["ids"]) == sorted(out["dense"][key]["ids"])
    assert out["dense"][key]["tokens"][0] > 5


def test_a_baseline_ranking_is_kept_past_the_largest_budget_and_k() -> None:
    tokens = {f"D1:{i}": 100 for i in range(1, 40)}
    kept = baselines._keep(list(tokens), tokens)
    assert len(kept["ids"]) == 17  # 1,700 tokens: one result past 1,600
    short = baselines._keep(list(tokens)[:3], tokens)
    assert short["tokens"] == [100, 100, 100]
    small = {f"D1:{i}": 1 for i in range(1, 40)}
    assert len(baselines._keep(list(small), small)["ids"]) == 39  # under budget: all of them


def test_diff_reports_questions_gained_and_lost_at_8(tmp_path: Path) -> None:
    def line(index: int, ids: list[list[str]]) -> str:
        return json.dumps({"conversation": "c", "index": index, "category": "4", "question": "q",
                           "evidence": ["D1:1"], "systems": {"handover": {"ids": ids, "tokens": []}}})  # fmt: skip

    miss, hit = [["D2:2"]] * 8 + [["D1:1"]], [["D1:1"]]
    old, new = tmp_path / "old.jsonl", tmp_path / "new.jsonl"
    old.write_text("\n".join([line(0, miss), line(1, hit), line(2, hit)]) + "\n")
    new.write_text("\n".join([line(0, hit), line(1, miss), line(2, hit), line(3, hit)]) + "\n")
    moved = diff.changes(diff.read(old), diff.read(new), 8)
    assert [key for key, *_ in moved["handover"]["gained"]] == [("c", 0)]
    assert moved["handover"]["lost"] == [(("c", 1), 1.0, 0.0)]
    assert diff.main([str(old), str(new)]) == 0


def test_losses_name_every_figure_a_baseline_beats_and_budgets_use_k_50() -> None:
    def scores(value: float, budget: float) -> dict[str, object]:
        row: dict[str, object] = {c: value for c in report.COLUMNS if not c.endswith("t")}
        row |= {c: budget for c in report.COLUMNS if c.endswith("t")}
        row["questions"] = 1
        return row | {"by_category": {"1": dict(row)}}

    results = {"systems": {"handover": scores(0.5, 0.0), "handover_k50": scores(0.0, 0.6),
                           "dense": scores(0.4, 0.7), "bm25": scores(0.6, 0.1),
                           "rrf": scores(0.1, 0.1), "recent": scores(0.0, 0.0)}}  # fmt: skip
    lost = report.losses(results)
    assert "overall recall@8: Handover 0.500 < BM25 0.600" in lost
    assert "cat 1 recall@800t: Handover 0.600 < dense 0.700" in lost
    assert len(lost) == 2 * len(report.COLUMNS)  # every column, overall and in category 1
    assert "| **Handover search** | 0.500 |" in report.markdown(results)  # 0.6 is bold, not it


def test_the_ranker_fit_finds_the_feature_that_marks_the_evidence() -> None:
    """bench.locomo.fit_ranker: a feature that separates evidence units gets the large positive
    weight, a noise feature a small one; recall@8 counts each turn once, best units first."""
    import numpy as np

    from bench.locomo.fit_ranker import fit, recall_at_8

    rng = np.random.default_rng(1)
    rows = []
    for _ in range(40):
        labels = np.zeros(30)
        labels[rng.choice(30, 2, replace=False)] = 1
        features = np.stack([labels + rng.normal(0, 0.3, 30), rng.normal(0, 1, 30)], axis=1)
        rows.append({"features": features, "labels": labels})
    weights, _ = fit(rows)
    assert weights[0] > 3 and abs(weights[1]) < 0.5 * weights[0]
    covers = [["D1:1"], ["D1:1"], ["D1:2"], [], ["D1:3"]]
    scores = np.array([5.0, 4.0, 3.0, 2.0, 1.0])
    assert recall_at_8(scores, covers, {"D1:2", "D1:3", "D2:1"}) == pytest.approx(2 / 3)


def test_the_tail_baseline_takes_the_last_turns_that_fit(tmp_path: Path) -> None:
    from memory.tokens import count_tokens

    last = turn_lines(CONVERSATION)[-1][1]
    assert tail_block(CONVERSATION, count_tokens(last)) == last
    assert tail_block(CONVERSATION, count_tokens(last) - 1) == ""
    assert tail_block(CONVERSATION, 10_000).count("\n") == 2  # all three turns


def test_answer_coverage_counts_whole_answers_and_their_words(tmp_path: Path) -> None:
    data = tmp_path / "qa.json"
    data.write_text(json.dumps([{"sample_id": "conv-x", "qa": [
        {"question": "Q1", "answer": "Pixel", "category": 4},
        {"question": "Q2", "answer": "pottery classes in May", "category": 2},
        {"question": "Q3", "answer": "no answer kept", "category": 5},  # not scored
    ]}]))  # fmt: skip
    cover = answer_coverage({"conv-x": "Ana's greyhound Pixel; Ben does pottery."}, data)
    assert cover == {"answers": 2, "whole": 0.5, "words": round((1 + 1 / 3) / 2, 4)}
