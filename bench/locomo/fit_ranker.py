"""Fit the search ranker's weights (memory/search/ranker.py) on a LoCoMo-format file, and say how
well they carry to a conversation they were not fitted on.

    .venv/bin/python -m bench.locomo --data F --var DIR --skip-replay --no-baselines
    .venv/bin/python -m bench.locomo.fit_ranker --data F --var DIR

The first command ingests and extracts into a kept stack; this one reads it in process: for every
question, the ranker's features of every memory unit of that conversation's user (the product's
own ``unit_scores``, so what is fitted is what is served), labelled 1 when the unit covers an
evidence turn. A logistic regression (Newton's method, L2 1.0, the positives weighed up to the
negatives' number; every positive and 60 random negatives per question) is fitted once per
conversation left out and scored on it, then once on all of them: those weights are printed in
WEIGHTS' order. Evidence recall@8 here is of the units alone, each turn once (no facts, no
recency prior): the service's own figure comes from ``bench.locomo``.
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

NEGATIVES = 60  # random negatives per question
L2 = 1.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", required=True, type=Path)
    parser.add_argument("--var", required=True, type=Path, help="the stack bench.locomo kept")
    args = parser.parse_args(argv)
    from bench.latency import in_process

    with in_process(args.var):
        rows = _features(args.data)
    _report(rows)
    return 0


def _features(path: Path) -> list[dict[str, Any]]:
    from django.utils import timezone

    from bench.locomo.data import evidence, load, questions
    from memory.models import EndUser, Session
    from memory.search.cache import participants, query_cache
    from memory.search.index import search_start, user_index
    from memory.search.legs import keyword_query
    from memory.search.ranker import unit_scores
    from schemas.models import Agent

    agent = Agent.objects.get(slug="locomo")
    gold = evidence(path)
    out = []
    for conversation in load(path):
        user = EndUser.objects.get(tenant_id=agent.tenant_id, external_id=conversation["id"])
        dia: dict[tuple[str, int], str] = {}
        for s in conversation["sessions"]:
            session = Session.objects.get(tenant_id=agent.tenant_id, agent=agent,
                                          external_id=f"{conversation['id']}-s{s['n']}")  # fmt: skip
            dia |= {(str(session.id), i + 1): t["dia_id"] for i, t in enumerate(s["turns"])}
        state, _ = search_start(
            tenant_id=agent.tenant_id, agent_id=agent.pk, end_user_id=user.pk, now=timezone.now()
        )
        index = user_index(
            tenant_id=agent.tenant_id, agent_id=agent.pk, end_user_id=user.pk, state=state
        )
        covers = [sorted({dia[(s[0], q)] for q in range(s[1], s[2] + 1) if (s[0], q) in dia}) if s else []
                  for s in index.unit_turns]  # fmt: skip
        names = participants(agent, user)
        for q in questions(path):
            evidence_ids = gold[(q["conversation"], q["index"])]
            if q["conversation"] != conversation["id"] or not evidence_ids:
                continue
            similarity = index.matrix @ query_cache.get(q["question"])
            words = keyword_query(q["question"], names) or None
            _, features = unit_scores(
                index, similarity=similarity, words=words, query=q["question"], names=names
            )
            labels = np.array([bool(set(c) & evidence_ids) for c in covers], dtype=np.float64)
            out.append({"conversation": conversation["id"], "category": q["category"], "features": features,
                        "labels": labels, "covers": covers, "evidence": evidence_ids})  # fmt: skip
    return out


def fit(rows: list[dict[str, Any]]) -> tuple[np.ndarray, float]:
    """Weights on the raw features, and the bias."""
    rng = np.random.default_rng(0)
    xs, ys = [], []
    for row in rows:
        positive = np.flatnonzero(row["labels"] > 0)
        negative = np.flatnonzero(row["labels"] == 0)
        pick = np.concatenate(
            [positive, rng.choice(negative, min(len(negative), NEGATIVES), replace=False)]
        )
        xs.append(row["features"][pick])
        ys.append(row["labels"][pick])
    x, y = np.vstack(xs).astype(np.float64), np.concatenate(ys)
    mean, scale = x.mean(0), x.std(0) + 1e-6
    z = np.hstack([(x - mean) / scale, np.ones((len(x), 1))])
    weight = np.where(y > 0, (len(y) - y.sum()) / max(y.sum(), 1.0), 1.0)
    w = np.zeros(z.shape[1])
    for _ in range(100):
        p = 1 / (1 + np.exp(-z @ w))
        step = np.linalg.solve((z * (weight * p * (1 - p))[:, None]).T @ z + L2 * np.eye(len(w)),
                               z.T @ (weight * (p - y)) + L2 * w)  # fmt: skip
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    raw = w[:-1] / scale
    return raw, float(w[-1] - (w[:-1] * mean / scale).sum())


def recall_at_8(scores: np.ndarray, covers: list[list[str]], evidence_ids: set[str]) -> float:
    """Units best first, each taking a slot only for a turn no earlier one covered."""
    found: set[str] = set()
    seen: set[str] = set()
    slots = 0
    for i in np.argsort(-scores, kind="stable"):
        turns = set(covers[i])
        if not turns or turns <= seen:
            continue
        seen |= turns
        found |= turns & evidence_ids
        slots += 1
        if slots == 8:
            break
    return len(found) / len(evidence_ids)


def _scored(
    rows: list[dict[str, Any]], score: Callable[[dict[str, Any]], np.ndarray]
) -> dict[str, float]:
    by: dict[str, list[float]] = defaultdict(list)
    for row in rows:
        r = recall_at_8(score(row), row["covers"], row["evidence"])
        for key in ("all", f"category {row['category']}", row["conversation"]):
            by[key].append(r)
    return {k: round(float(np.mean(v)), 4) for k, v in sorted(by.items())}


def _report(rows: list[dict[str, Any]]) -> None:
    from memory.search.ranker import WEIGHTS

    held: list[dict[str, Any]] = []
    for conversation in sorted({r["conversation"] for r in rows}):
        w, _ = fit([r for r in rows if r["conversation"] != conversation])
        held += [r | {"w": w} for r in rows if r["conversation"] == conversation]
    print("recall@8, each conversation scored by weights fitted on the others:")
    print(" ", _scored(held, lambda r: r["features"] @ r["w"]))
    served = np.array([w for _, w in WEIGHTS])
    print("recall@8 with the weights in memory/search/ranker.py:")
    print(" ", _scored(rows, lambda r: r["features"] @ served))
    print("recall@8 by the unit's own cosine alone:")
    print(" ", _scored(rows, lambda r: r["features"][:, 0]))
    w, bias = fit(rows)
    print("weights fitted on every conversation (WEIGHTS' order), bias", round(bias, 3))
    for (name, now), new in zip(WEIGHTS, w, strict=True):
        print(f"  {name:16s} {new:+.2f}   (served: {now:+.2f})")


if __name__ == "__main__":
    raise SystemExit(main())
