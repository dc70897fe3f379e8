"""Stage 0: which unarchived turns stay verbatim in the hot tier; the rest is archived."""

from __future__ import annotations

from extraction.extractors import WindowTurn
from extraction.text import is_closing, is_question
from extraction.values import value_signature


def turn_score(turn: WindowTurn, recency_rank: int, *, answered: bool = False) -> float:
    """Higher is worth keeping: recent, a question still open, dense in values. A question the
    other side has answered since is not open: kept without its answer, it would leave the next
    session a question hanging ("Is there anywhere you recommend visiting?") whose answer was
    archived."""
    density = len(value_signature(turn.text))
    open_question = is_question(turn.text) and not answered
    return 3.0 / (1 + recency_rank) + (2.0 if open_question else 0.0) + 0.5 * min(density, 6)


def smart_keep(turns: list[WindowTurn], *, min_kept: int, window: int) -> set[int]:
    """Ids to keep: always the last ``min_kept`` turns, plus up to ``min_kept`` more of the
    best-scoring among the last ``window``. Never fewer than ``min_kept`` (when there are that many).

    The closing exchange at the end ("No worries, Joanna. Hope you enjoy it!", "Cheers, bye!")
    is not what the next session needs: the last turns counted are those before it, and it is
    kept only when nothing else is left."""
    if min_kept <= 0:
        return set()
    ordered = sorted(turns, key=lambda t: t.id)
    said = list(ordered)
    while said and is_closing(said[-1].text):
        said.pop()
    ordered = said or ordered
    kept = {t.id for t in ordered[-min_kept:]}
    answered: set[int] = set()  # someone else spoke after it
    later: set[str] = set()
    for turn in reversed(ordered):
        if later - {turn.role}:
            answered.add(turn.id)
        later.add(turn.role)
    candidates = [t for t in ordered[-window:] if t.id not in kept]
    rank = {t.id: len(ordered) - 1 - i for i, t in enumerate(ordered)}
    scores = {t.id: turn_score(t, rank[t.id], answered=t.id in answered) for t in candidates}
    ranked = sorted(candidates, key=lambda t: scores[t.id], reverse=True)
    kept |= {t.id for t in ranked[:min_kept] if scores[t.id] >= 2.0}
    return kept
