"""Evidence metrics over one ranked list, and their means per category. Pure functions.

A ranking is a list of results, best first; each result covers a set of LoCoMo turn ids (a
memory unit may cite several turns, a raw turn exactly one) and costs some tokens of text.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

KS = (1, 5, 8, 10)
BUDGETS = (400, 800, 1600)  # tokens of returned text (memory.tokens.count_tokens)
CATEGORIES = ("1", "2", "3", "4")
RRF_K = 60  # the constant of Cormack et al. (2009), as most hybrid retrievers use it


def covered(ranked: Sequence[Iterable[str]], n: int) -> set[str]:
    """The turn ids the first n results cite."""
    out: set[str] = set()
    for ids in ranked[:n]:
        out.update(ids)
    return out


def recall_at(ranked: Sequence[Iterable[str]], gold: set[str], k: int) -> float:
    """The share of the evidence turns the top k cover."""
    return len(gold & covered(ranked, k)) / len(gold)


def hit_at(ranked: Sequence[Iterable[str]], gold: set[str], k: int) -> float:
    """1 when any evidence turn is in the top k."""
    return float(bool(gold & covered(ranked, k)))


def all_at(ranked: Sequence[Iterable[str]], gold: set[str], k: int) -> float:
    """1 when every evidence turn is in the top k."""
    return float(gold <= covered(ranked, k))


def within_budget(tokens: Sequence[int], budget: int) -> int:
    """How many leading results fit in `budget` tokens, whole results only, in rank order: the
    packer stops at the first one that does not fit (it does not skip to a shorter one)."""
    used = 0
    for n, cost in enumerate(tokens):
        if used + cost > budget:
            return n
        used += cost
    return len(tokens)


def budget_recall(
    ranked: Sequence[Iterable[str]], tokens: Sequence[int], gold: set[str], budget: int
) -> float:
    return recall_at(ranked, gold, within_budget(tokens, budget))


def question_scores(
    ranked: Sequence[Iterable[str]], tokens: Sequence[int], gold: set[str]
) -> dict[str, float]:
    """Every metric of one question for one system. `filled@B` is 1 when the ranking held more
    than B tokens, so the budget (not a short list) bounded what was handed over."""
    scores: dict[str, float] = {}
    for k in KS:
        scores[f"recall@{k}"] = recall_at(ranked, gold, k)
        scores[f"hit@{k}"] = hit_at(ranked, gold, k)
        scores[f"all@{k}"] = all_at(ranked, gold, k)
    for budget in BUDGETS:
        n = within_budget(tokens, budget)
        scores[f"recall@{budget}t"] = recall_at(ranked, gold, n)
        scores[f"results@{budget}t"] = float(n)
        scores[f"filled@{budget}t"] = float(sum(tokens) > budget)
    return scores


def aggregate(rows: Iterable[tuple[str, dict[str, float]]]) -> dict[str, Any]:
    """Means of (category, scores) rows: overall, and per category with its question count."""
    sums: dict[str, dict[str, float]] = {}
    counts: dict[str, int] = {}
    for category, scores in rows:
        for bucket in ("all", category):
            counts[bucket] = counts.get(bucket, 0) + 1
            into = sums.setdefault(bucket, {})
            for name, value in scores.items():
                into[name] = into.get(name, 0.0) + value

    def means(bucket: str) -> dict[str, Any]:
        return {name: round(total / counts[bucket], 4) for name, total in sums[bucket].items()}

    if not counts:
        return {"questions": 0, "by_category": {}}
    return means("all") | {
        "questions": counts["all"],
        "by_category": {
            c: means(c) | {"questions": counts[c]} for c in sorted(counts) if c != "all"
        },
    }


def rrf(rankings: Sequence[Sequence[str]], k: int = RRF_K) -> list[str]:
    """Reciprocal-rank fusion: each item scores the sum of 1 / (k + rank) over the lists it is
    in (rank from 1). Ties go to the better best rank, then to the earlier list."""
    score: dict[str, float] = {}
    best: dict[str, tuple[int, int]] = {}
    for which, ranking in enumerate(rankings):
        for rank, item in enumerate(ranking, 1):
            score[item] = score.get(item, 0.0) + 1.0 / (k + rank)
            best[item] = min(best.get(item, (rank, which)), (rank, which))
    return sorted(score, key=lambda item: (-score[item], best[item]))
