"""What search returns: one hit per memory unit, fact or turn, and the result around them."""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass, field
from typing import Any

from core.text import iso


@dataclass
class Hit:
    id: str
    source: str  # acu | entity | turn
    text: str
    occurred_at: datetime.datetime | None
    session: str | None
    turns: list[dict[str, Any]]
    similarity: float | None = None
    legs: dict[str, dict[str, float]] = field(default_factory=dict)
    fused: float = 0.0
    score: float = 0.0
    confidence: str = "low"
    stale: bool = False
    note: str | None = None

    def body(self, explain: bool) -> dict[str, Any]:
        out: dict[str, Any] = {
            "text": self.text,
            "score": round(self.score, 4),
            "confidence": self.confidence,
            "source": self.source,
            "occurred_at": iso(self.occurred_at),
            "session": self.session,
            "turns": self.turns,
            "stale": self.stale,
        }
        if self.note:
            out["note"] = self.note
        if explain:
            out["explain"] = {
                "legs": {leg: _rounded(figures) for leg, figures in self.legs.items()},
                "similarity": self.similarity,
                "fused": round(self.fused, 6),
            }
        return out


def _rounded(figures: dict[str, Any]) -> dict[str, Any]:
    return {name: round(v, 4) if isinstance(v, float) else v for name, v in figures.items()}


@dataclass
class SearchResult:
    hits: list[Hit]
    confidence: str
    fallback: bool
    timings: dict[str, float]


def turn_refs(session: Any, first: int | None, last: int | None) -> list[dict[str, Any]]:
    """The turns a memory unit was made from, as the API names them."""
    if session is None or first is None:
        return []
    return [{"session": str(session), "seq": seq} for seq in range(first, (last or first) + 1)]


def turn_ref_keys(hit: Hit) -> list[str]:
    """The hit's turns as ``session:seq`` keys, for telling which turns a result covers."""
    return [f"{t['session']}:{t['seq']}" for t in hit.turns]


_SUBJECT = re.compile(r"^On \d{1,2} \w+ \d{4}, (\w+)")
_WORDS = re.compile(r"[A-Za-z]+")


def unit_subject(text: str) -> str | None:
    """Who a memory unit is about, lower-case: its subject follows its date ("On 8 May 2023,
    Caroline …"); None when it does not start so."""
    match = _SUBJECT.match(text)
    return match.group(1).lower() if match else None


def named_participant(query: str, names: set[str]) -> str | None:
    """The one participant of ``names`` (lower-case) the query names; None for none or several."""
    named = {w.lower() for w in _WORDS.findall(query)} & names
    return next(iter(named)) if len(named) == 1 else None
