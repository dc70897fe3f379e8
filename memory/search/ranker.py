"""One score per memory unit from what the legs measure, weighed by a linear model (ADR 0010,
"the ranker"): over a user's in-process index it replaces the semantic, turn keyword, keyword and
date legs' reciprocal rank fusion.

Why: in a dialogue the turn that answers is often not the one that names the subject. "What did
Caroline take away from *Becoming Nicole*?" is answered by "It taught me self-acceptance…", two
turns after "I loved *Becoming Nicole*"; neither leg ranks the answer, and rank fusion cannot
lift what no leg found. The ranker scores every unit by its own cosine, its turn's best cosine
and BM25, the same for the two turns before and the two after, whether its subject is the one
participant the query names, whether it was said on the day the query names, and its ranks.

The weights were fitted once (logistic regression, units covering an evidence turn against a
sample of the rest) on the LoCoMo development conversations; left-one-conversation-out they
scored evidence recall@8 0.778 against 0.707 for the fusion they replace (every held-out
conversation 0.737 or more). They are constants here, not learned at run time.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from memory.search.dates import said_then
from memory.search.hits import named_participant
from memory.search.index import UserIndex

# (feature, weight on its raw value); the score is their weighted sum (the fit's bias is left
# out: only the order matters).
WEIGHTS = (
    ("cosine", -5.00),  # the unit's own cosine (its turn's best, below, carries the weight)
    ("turn_cosine", 8.67),  # the best cosine of any unit of the unit's turn
    ("turn_bm25", 4.76),  # BM25 of the turn's words, over the best turn's
    ("turn_bm25_any", -1.16),  # the turn has a query word at all
    ("before_cosine", -2.09),  # the best turn cosine of the two turns before
    ("after_cosine", 1.34),  # … of the two turns after
    ("before_bm25", 2.93),  # the best turn BM25 (over the best) of the two turns before
    ("after_bm25", 1.67),  # … of the two turns after
    ("subject", 0.81),  # its subject is the one participant the query names
    ("date", 1.51),  # said on (or a few days after) the day, or in the month, the query names
    ("cosine_rank", -0.56),  # log(1 + its rank by cosine among the user's units)
    ("turn_bm25_rank", -0.07),  # log(1 + its turn's rank by BM25)
)
_W = np.array([w for _, w in WEIGHTS], dtype=np.float32)


@dataclass
class _Turns:
    """The index's turns in (session, seq) order, and each unit's place among them."""

    size: tuple[int, int]
    unit_turn: np.ndarray  # per unit: its (first) turn's position, -1 for none
    held: np.ndarray  # per turn position: its row in index.turn_keys, -1 if not held
    near: np.ndarray  # per turn position: positions of the turns -2, -1, +1, +2 (-1: none)


def _turns(index: UserIndex) -> _Turns:
    size = (len(index.unit_ids), len(index.turn_keys))
    cached = index.derived.get("turns")
    if isinstance(cached, _Turns) and cached.size == size:
        return cached
    keys = set(index.turn_keys) | {(s[0], s[1]) for s in index.unit_turns if s is not None}
    ordered = sorted(keys)
    place = {k: i for i, k in enumerate(ordered)}
    unit_turn = np.array([place[(s[0], s[1])] if s is not None else -1 for s in index.unit_turns],
                         dtype=np.int64)  # fmt: skip
    held = np.full(len(ordered), -1, dtype=np.int64)
    for row, key in enumerate(index.turn_keys):
        held[place[key]] = row
    near = np.array([[place.get((s, q + o), -1) for o in (-2, -1, 1, 2)] for s, q in ordered],
                    dtype=np.int64).reshape(len(ordered), 4)  # fmt: skip
    out = _Turns(size, unit_turn, held, near)
    index.derived["turns"] = out
    return out


def _near_max(values: np.ndarray, near: np.ndarray) -> np.ndarray:
    """Per turn: the larger value of the two turns given (columns of ``near``), 0 for none."""
    padded = np.append(values, np.float32(0.0))  # index -1 reads the 0 at the end
    return np.maximum(padded[near[:, 0]], padded[near[:, 1]])


def unit_scores(
    index: UserIndex,
    *,
    similarity: np.ndarray,
    words: str | None,
    query: str,
    names: set[str],
) -> tuple[np.ndarray, np.ndarray]:
    """The ranker's score of every unit of ``index`` for this query (higher is better), and
    the features it weighed (a row per unit, a column per WEIGHTS entry)."""
    n = len(index.unit_ids)
    if not n:
        return np.zeros(0, np.float32), np.zeros((0, len(WEIGHTS)), np.float32)
    turns = _turns(index)
    # A unit whose turn is no longer held (retention) is scored by its own cosine and words.
    held_turn = np.append(turns.held, -1)[turns.unit_turn]  # -1 (no turn) reads the -1 appended
    has_turn = held_turn >= 0
    size = len(turns.held)
    at = np.where(has_turn, turns.unit_turn, size)  # size: the 0 each per-turn array ends with

    def per_unit(values: np.ndarray) -> np.ndarray:
        return np.append(values, np.float32(0.0))[at]

    turn_cosine = np.full(size, -1.0, np.float32)
    np.maximum.at(turn_cosine, turns.unit_turn[has_turn], similarity[has_turn])
    turn_cosine = np.maximum(turn_cosine, 0.0)
    turn_bm25 = np.zeros(size, np.float32)
    if words:
        held = turns.held >= 0
        turn_bm25[held] = index.turns.scores(words)[turns.held[held]]
    bm25 = _over_best(turn_bm25)
    before, after = turns.near[:, :2], turns.near[:, 2:]
    cosine_rank = np.empty(n, np.float32)
    cosine_rank[np.argsort(-similarity, kind="stable")] = np.arange(n, dtype=np.float32)
    bm25_rank = np.empty(size, np.float32)
    bm25_rank[np.argsort(-turn_bm25, kind="stable")] = np.arange(size, dtype=np.float32)
    features = np.stack([
        similarity,
        np.where(has_turn, per_unit(turn_cosine), similarity),
        np.where(has_turn, per_unit(bm25), _own_bm25(index, words)),
        per_unit(bm25 > 0),
        per_unit(_near_max(turn_cosine, before)),
        per_unit(_near_max(turn_cosine, after)),
        per_unit(_near_max(bm25, before)),
        per_unit(_near_max(bm25, after)),
        _subject(index, query, names),
        _said_on(index, query),
        np.log1p(cosine_rank),
        per_unit(np.log1p(bm25_rank)),
    ], axis=1).astype(np.float32)  # fmt: skip
    return features @ _W, features


_NAMES = [name for name, _ in WEIGHTS]


def explained(features: np.ndarray, positions: list[int]) -> dict[int, dict[str, float]]:
    """The features of the units at ``positions``, by name, for ``explain`` (rounded where they
    are shown: every search makes these, few show them, and rounding 600 floats one by one
    cost a search 0.3 ms)."""
    rows = features[positions].tolist()
    return {p: dict(zip(_NAMES, row, strict=True)) for p, row in zip(positions, rows, strict=True)}


def _own_bm25(index: UserIndex, words: str | None) -> np.ndarray:
    """For a unit whose turns are gone: BM25 of its own words, over the best unit's."""
    if not words:
        return np.zeros(len(index.unit_ids), np.float32)
    return _over_best(index.units.scores(words))


def _over_best(scores: np.ndarray) -> np.ndarray:
    """Scores over the best one (all 0 stays 0)."""
    top = float(scores.max()) if len(scores) else 0.0
    return scores / top if top > 0 else scores


def _subject(index: UserIndex, query: str, names: set[str]) -> np.ndarray:
    name = named_participant(query, names)
    if name is None:
        return np.zeros(len(index.unit_ids), np.float32)
    return np.array([s == name for s in index.subjects], dtype=np.float32)


def _said_on(index: UserIndex, query: str) -> np.ndarray:
    said = said_then(query, index.dates)
    return np.zeros(len(index.unit_ids), np.float32) if said is None else said.astype(np.float32)
