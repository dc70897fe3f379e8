"""Fit the weights reference resolution ranks its runners-up by
(``memory.search.reference_candidates.RUNNER_WEIGHTS``), and say how well they carry to a probe
set they were not fitted on.

    .venv/bin/python -m bench.anaphora.fit [FILE ...]

In process, no server: every probe of the given sets (by default the sets already read, READ
below; never a set still kept blind) is resolved by the product's own ``references_resolve``.
Where it ranks runners-up, the candidate turns' features (``runner_features``, so what is
fitted is what is served) are kept, labelled 1 when the turn is one the probe points at. A
logistic regression (L2 1.0, features standardised) is fitted once per set left out and scored
on it, then once on all of them; those weights are printed per unit, in RUNNER_FEATURES' order,
to paste into ``reference_candidates``. Recall here is the pure resolver's: the referent among
its own turns and facts, no search (the service's figure comes from ``bench.anaphora``).
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

import numpy as np

HERE = Path(__file__).resolve().parent
# The sets already read (their misses looked at while writing the rules); a blind set stays out.
READ = ["probes", *(f"fresh_{x}" for x in "abcdefghij")]
L2 = 1.0


def _cases(path: Path) -> Iterator[tuple[str, dict[str, Any], list[Any], list[Any]]]:
    from memory.search.reference_cues import wants_history
    from memory.search.reference_turns import TurnView

    for c in json.loads(path.read_text())["conversations"]:
        turns = [TurnView(f"current:{i + 1}", t["role"], t["text"]) for i, t in enumerate(c["turns"])]  # fmt: skip
        prior = [TurnView(f"prior:{i + 1}", t["role"], t["text"]) for i, t in enumerate(c["prior"])]  # fmt: skip
        yield path.stem, c, turns, prior if wants_history(c["probe"]) else []


def _gold(c: dict[str, Any]) -> set[str]:
    turns = {f"{g['session']}:{g['index'] + 1}" for g in c["gold_turns"]}
    return turns | {f"fact:{key}" for key in c["gold_facts"]}


def _resolve(c: dict[str, Any], turns: list[Any], prior: list[Any]) -> set[str]:
    from memory.search.references import references_resolve
    from memory.search.resolve import _similar

    parts = {p.lower() for name in c["participants"].values() for p in name.split()}
    facts = {f["key"]: f["value"] for f in c["facts"]}
    found = references_resolve(c["probe"], turns, history=prior, facts=facts, participants=parts, similar=_similar)  # fmt: skip
    return {t.key for t in found.turns} | {f"fact:{key}" for key in found.fact_keys}


def _rows(c: dict[str, Any], turns: list[Any], prior: list[Any]) -> tuple[list[list[float]], list[float]]:  # fmt: skip
    """The features and labels of the candidates the resolver ranked for this probe."""
    from memory.search import reference_candidates, references

    seen: list[tuple[list[list[float]], list[float]]] = []
    served = references.likely

    def recording(query: str, among: Any, kind: str, **kwargs: Any) -> Any:
        kwargs_features = {k: v for k, v in kwargs.items() if k not in ("first", "avoid")}
        rows = reference_candidates.runner_features(query, among, kind, **kwargs_features)
        gold = _gold(c)
        seen.append(([row for _, row in rows], [float(among[i].key in gold) for i, _ in rows]))
        return served(query, among, kind, **kwargs)

    with mock.patch.object(references, "likely", recording):
        _resolve(c, turns, prior)
    return seen[0] if seen else ([], [])


@contextmanager
def _weights(weights: dict[str, float]) -> Iterator[None]:
    from memory.search import reference_candidates

    with mock.patch.dict(reference_candidates.RUNNER_WEIGHTS, weights):
        yield


def _fit(X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Per-unit weights of an L2 logistic regression on standardised features (Newton)."""
    mean, scale = X.mean(0), X.std(0) + 1e-9
    Z = np.hstack([(X - mean) / scale, np.ones((len(X), 1))])
    w = np.zeros(Z.shape[1])
    for _ in range(25):
        p = 1 / (1 + np.exp(-(Z @ w)))
        grad = Z.T @ (p - y) + L2 * np.r_[w[:-1], 0.0]
        hess = (Z * (p * (1 - p))[:, None]).T @ Z + L2 * np.diag(np.r_[np.ones(Z.shape[1] - 1), 0.0])  # fmt: skip
        w -= np.linalg.solve(hess, grad)
    return np.asarray(w[:-1] / scale)


def _recall(cases: list[tuple[str, dict[str, Any], list[Any], list[Any]]]) -> float:
    scores = [len(_gold(c) & _resolve(c, t, p)) / len(_gold(c)) for _, c, t, p in cases]
    return sum(scores) / len(scores)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    parser.add_argument("files", nargs="*", type=Path, default=[HERE / f"{name}.json" for name in READ])  # fmt: skip
    args = parser.parse_args(argv)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from memory.search.reference_candidates import RUNNER_FEATURES

    cases = [case for path in args.files for case in _cases(path)]
    rows: dict[str, tuple[list[list[float]], list[float]]] = {}
    for name, c, turns, prior in cases:
        X, y = _rows(c, turns, prior)
        rows.setdefault(name, ([], []))
        rows[name][0].extend(X)
        rows[name][1].extend(y)

    def fitted(names: list[str]) -> dict[str, float]:
        X = np.array([x for n in names for x in rows[n][0]])
        y = np.array([v for n in names for v in rows[n][1]])
        return dict(zip(RUNNER_FEATURES, (round(float(w), 3) for w in _fit(X, y)), strict=True))

    names = list(rows)
    print(f"{'set':10s} {'probes':>6s} {'served':>7s} {'fitted without it':>18s}")
    for held in names:
        mine = [case for case in cases if case[0] == held]
        served = _recall(mine)
        with _weights(fitted([n for n in names if n != held])):
            out = _recall(mine)
        print(f"{held:10s} {len(mine):6d} {served:7.3f} {out:18.3f}")
    print("RUNNER_WEIGHTS, fitted on", ", ".join(names))
    print(json.dumps(fitted(names), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
