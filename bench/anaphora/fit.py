"""Fit the weights reference resolution ranks its runners-up by
(``memory.search.reference_candidates.RUNNER_WEIGHTS``) and the standing facts meant by "my
usual X" (``FACT_WEIGHTS``), and say how well they carry to a probe set they were not fitted on.

    .venv/bin/python -m bench.anaphora.fit [FILE ...]

In process, no server: every probe of the given sets (by default the sets already read, READ
below; never a set still kept blind) is resolved by the product's own ``references_resolve``.
Where it ranks runners-up, the candidate turns' features (``runner_features``, so what is
fitted is what is served) are kept, labelled 1 when the turn is one the probe points at. A
logistic regression (L2 1.0, features standardised) is fitted once per set left out and scored
on it, then once on all of them; those weights are printed per unit, in RUNNER_FEATURES' order,
to paste into ``reference_candidates``. Recall here is the pure resolver's: the referent among
its own turns and facts, no search (the service's figure comes from ``bench.anaphora``).

The facts are fitted the same way on the probes whose referent is a fact, every fact of the
probe a candidate (``fact_features``), labelled 1 when it is the one meant. A probe holds three
or four facts, a user of the service many more: each probe is also scored with EXTRA more facts
(those of the other conversations of its domain, then of the rest of its set, in an order
seeded by its id), and the weights are fitted on the three sizes together. Printed: the share
of meant facts among the MEANT_FACTS served, per set and size, by the served weights and by
weights fitted without the set.
"""

from __future__ import annotations

import argparse
import json
import os
import random
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

import numpy as np

HERE = Path(__file__).resolve().parent
# The sets already read (their misses looked at while writing the rules); a blind set stays out.
READ = ["probes", *(f"fresh_{x}" for x in "abcdefghijk")]
L2 = 1.0
EXTRA = (0, 10, 30)  # more facts per probe than its own, to fit and score the facts at


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


FactCase = tuple[str, int, list[str], list[list[float]], set[str]]  # set, extra, keys, rows, gold


def _fact_cases(path: Path) -> Iterator[FactCase]:
    """Every probe whose referent is a fact, at each size of EXTRA: its facts' keys and
    features, and the keys meant."""
    from memory.search.reference_candidates import fact_features
    from memory.search.resolve import _similar

    conversations = json.loads(path.read_text())["conversations"]
    for name, c, turns, _ in _cases(path):
        if not c["gold_facts"]:
            continue
        others = [f for o in conversations if o["id"] != c["id"] for f in o["facts"]]
        random.Random(c["id"]).shuffle(others)
        domain = [f for o in conversations if o["domain"] == c["domain"] for f in o["facts"]]
        others.sort(key=lambda f: f not in domain)  # the domain's own facts first
        for extra in EXTRA:
            facts = {f["key"]: f["value"] for f in c["facts"]}
            for f in others:
                if len(facts) >= len(c["facts"]) + extra:
                    break
                facts.setdefault(f["key"], f["value"])
            order = list(facts.items())
            random.Random(f"{c['id']}:{extra}").shuffle(order)
            rows = fact_features(c["probe"], turns, dict(order), _similar)
            yield name, extra, [k for k, _ in rows], [r for _, r in rows], set(c["gold_facts"])


def _facts_recall(cases: list[FactCase], weights: dict[str, float]) -> float:
    from memory.search.reference_candidates import FACT_FEATURES, MEANT_FACTS

    w = np.array([weights[name] for name in FACT_FEATURES])
    scores = []
    for _, _, keys, rows, gold in cases:
        top = {keys[i] for i in np.argsort(-(np.array(rows) @ w), kind="stable")[:MEANT_FACTS]}
        scores.append(len(gold & top) / len(gold))
    return sum(scores) / len(scores) if scores else float("nan")


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


def _fitted(X: np.ndarray, y: np.ndarray, features: tuple[str, ...], served: dict[str, float]) -> dict[str, float]:  # fmt: skip
    """The weights per feature, rounded to paste; the served ones when there is nothing to fit
    (no candidates, or one label only: a set left out that was the only one)."""
    if not len(X) or y.min() == y.max():
        return dict(served)
    return dict(zip(features, (round(float(w), 3) for w in _fit(X, y)), strict=True))


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
    from memory.search.reference_candidates import RUNNER_FEATURES, RUNNER_WEIGHTS

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
        return _fitted(X, y, RUNNER_FEATURES, RUNNER_WEIGHTS)

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
    _fit_facts(args.files)
    return 0


def _fit_facts(files: list[Path]) -> None:
    from memory.search.reference_candidates import FACT_FEATURES, FACT_WEIGHTS, MEANT_FACTS

    cases = [case for path in files for case in _fact_cases(path)]
    names = list(dict.fromkeys(case[0] for case in cases))
    if not cases:
        print("no probe points at a fact: FACT_WEIGHTS not fitted")
        return

    def fitted(keep: list[str]) -> dict[str, float]:
        X = np.array([row for case in cases if case[0] in keep for row in case[3]])
        y = np.array([float(k in case[4]) for case in cases if case[0] in keep for k in case[2]])
        return _fitted(X, y, FACT_FEATURES, FACT_WEIGHTS)

    print(
        f"facts meant among the {MEANT_FACTS} served, per size: served weights / fitted without the set"
    )
    print(f"{'set':10s} {'probes':>6s} " + " ".join(f"{f'+{e} facts':>17s}" for e in EXTRA))
    for held in names:
        mine = [case for case in cases if case[0] == held]
        without = fitted([n for n in names if n != held])
        cells = [f"{_facts_recall([c for c in mine if c[1] == e], FACT_WEIGHTS):.3f} / "
                 f"{_facts_recall([c for c in mine if c[1] == e], without):.3f}" for e in EXTRA]  # fmt: skip
        print(
            f"{held:10s} {len(mine) // len(EXTRA):6d} " + " ".join(f"{cell:>17s}" for cell in cells)
        )
    print("FACT_WEIGHTS, fitted on", ", ".join(names))
    print(json.dumps(fitted(names), indent=1))


if __name__ == "__main__":
    raise SystemExit(main())
