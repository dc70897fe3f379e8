"""Stage 0: which unarchived turns stay verbatim in the hot tier; the rest is archived."""

from __future__ import annotations

from extraction.extractors import WindowTurn
from extraction.text import is_question
from extraction.values import value_signature


def turn_score(turn: WindowTurn, recency_rank: int) -> float:
    """Higher is worth keeping: recent, a question (may still be open), dense in values."""
    density = len(value_signature(turn.text))
    return (
        3.0 / (1 + recency_rank) + (2.0 if is_question(turn.text) else 0.0) + 0.5 * min(density, 6)
    )


def smart_keep(turns: list[WindowTurn], *, min_kept: int, window: int) -> set[int]:
    """Ids to keep: always the last ``min_kept`` turns, plus up to ``min_kept`` more of the
    best-scoring among the last ``window``. Never fewer than ``min_kept`` (when there are that many)."""
    if min_kept <= 0:
        return set()
    ordered = sorted(turns, key=lambda t: t.id)
    kept = {t.id for t in ordered[-min_kept:]}
    candidates = [t for t in ordered[-window:] if t.id not in kept]
    ranked = sorted(
        candidates,
        key=lambda t: turn_score(t, len(ordered) - 1 - ordered.index(t)),
        reverse=True,
    )
    kept |= {
        t.id for t in ranked[:min_kept] if turn_score(t, len(ordered) - 1 - ordered.index(t)) >= 2.0
    }
    return kept
