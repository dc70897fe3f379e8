"""A session's turn log, read a page at a time (the history a framework adapter shows)."""

from __future__ import annotations

from dataclasses import dataclass

from memory.models import Session, Turn

MAX_PAGE = 200  # turns per page; 200 turns ≈ 40,000 tokens of text at most per answer


@dataclass(frozen=True)
class TurnPage:
    turns: list[Turn]
    # Pass as ``before_seq`` for the next (older) page; None when this page reaches the start.
    next_before_seq: int | None


def turn_list(*, session: Session, limit: int = 50, before_seq: int | None = None) -> TurnPage:
    """The session's turns newest first (highest ``seq`` first), those below ``before_seq``
    when given: archived turns included (the log, not the hot tier), removed ones not."""
    turns = Turn.objects.filter(tenant_id=session.tenant_id, session_id=session.pk)
    if before_seq is not None:
        turns = turns.filter(seq__lt=before_seq)
    page = list(turns.order_by("-seq")[: min(limit, MAX_PAGE) + 1])
    more = len(page) > limit
    page = page[:limit]
    return TurnPage(page, page[-1].seq if more and page else None)
