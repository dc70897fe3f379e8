"""What every extractor takes and gives: the window of turns, fact and unit candidates, usage,
and the two ways it fails."""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True)
class WindowTurn:
    id: int
    session_id: str
    seq: int
    role: str
    text: str
    occurred_at: datetime.datetime
    speaker: str  # the name "I" refers to in this turn
    listener: str  # the name "you" refers to

    def ref(self) -> dict[str, Any]:
        return {"session": self.session_id, "seq": self.seq}


@dataclass
class FactCandidate:
    key: str
    value: Any
    source: str
    valid_from: datetime.datetime
    source_turns: list[dict[str, Any]]
    value_text: str | None = None
    why: dict[str, Any] = field(default_factory=dict)  # the cue and figures that decided it
    ends: bool = False  # no longer holds from valid_from ("I stopped it"); value: what it held


@dataclass
class AcuCandidate:
    text: str
    session_id: str
    first_seq: int
    last_seq: int
    occurred_at: datetime.datetime


@dataclass
class Usage:
    """What a run spent on a model, and what it refused of the model's answers."""

    model_calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    facts_invalid: int = 0  # facts an answer held that failed validation: dropped, each noted
    repairs: int = 0  # malformed answers sent back to the model once for correction
    # What the extractor considered and did not write, and why ({"kind", "detail", …}): shown
    # with the run's explanations in the run inspector. The openai extractor's kinds:
    # "invalid_fact" | "invalid_item" | "repair" | "malformed" | "fallback" (openai_check).
    notes: list[dict[str, Any]] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        """The figures the run's counts carry."""
        return {
            "model_calls": self.model_calls,
            "tokens_in": self.tokens_in,
            "tokens_out": self.tokens_out,
            "facts_invalid": self.facts_invalid,
            "repairs": self.repairs,
        }


@dataclass
class Extraction:
    facts: list[FactCandidate] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)


class Extractor(Protocol):
    name: str

    def extract_facts(
        self,
        turns: list[WindowTurn],
        fields: list[dict[str, Any]],
        usage: Usage,
        known: Mapping[str, str] | None = None,
    ) -> list[FactCandidate]:
        """``known``: the user's active facts before the window (key → value text)."""
        ...

    def compress(self, segment: list[WindowTurn], usage: Usage) -> list[AcuCandidate]: ...


class ExtractionFailed(Exception):
    """A failure that retrying will not fix (a malformed model answer): recorded on the run.

    ``usage``, when given, is what the run had spent and noted until then (its counts are
    recorded on the failed run: the tokens count against the tenant's budget)."""

    def __init__(self, message: str, *, usage: Usage | None = None) -> None:
        super().__init__(message)
        self.usage = usage


class RetryableError(Exception):
    """A failure that may pass (timeout, 429, 5xx): the run is retried with backoff."""
