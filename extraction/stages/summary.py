"""The rolling summary: extractive for the rules extractor, so it can only repeat what was said.

Each window contributes its most informative memory units; they compete with the sentences
already in the summary under the agent's token cap, newer ones with a small advantage, so old
content is folded away rather than appended forever. Output is in date order.
"""

from __future__ import annotations

import datetime
import re

from core.text import sentences
from extraction.text import MONTHS
from extraction.values import value_signature
from memory.tokens import count_tokens

_DATED = re.compile(r"^On (\d{1,2}) (\w+) (\d{4}),")


def _date_of(sentence: str) -> datetime.date:
    match = _DATED.match(sentence)
    if match and match.group(2).lower() in MONTHS:
        return datetime.date(
            int(match.group(3)), MONTHS.index(match.group(2).lower()) + 1, int(match.group(1))
        )
    return datetime.date.min


def _score(sentence: str, newest: datetime.date) -> float:
    age_days = (
        (newest - _date_of(sentence)).days if _date_of(sentence) != datetime.date.min else 3650
    )
    return len(value_signature(sentence)) + min(count_tokens(sentence), 40) / 20 - age_days / 365


def summary_fold(previous: str, new_units: list[str], *, max_tokens: int) -> str:
    pool = list(dict.fromkeys(sentences(previous) + new_units))
    if not pool:
        return ""
    newest = max(_date_of(s) for s in pool)
    ranked = sorted(pool, key=lambda s: _score(s, newest), reverse=True)
    chosen: list[str] = []
    used = 0
    for sentence in ranked:
        cost = count_tokens(sentence)
        if used + cost <= max_tokens:
            chosen.append(sentence)
            used += cost
    chosen.sort(key=lambda s: (_date_of(s), pool.index(s)))
    return " ".join(chosen)


def summary_traceable(
    proposed: list[tuple[str, list[str]]], *, previous: int, units: int, max_tokens: int
) -> tuple[str, int]:
    """Keep the model's sentences that cite at least one real line (P1..Pprevious, U1..Uunits),
    within the token cap; returns (summary, how many were dropped as untraceable)."""
    valid = {f"P{i + 1}" for i in range(previous)} | {f"U{i + 1}" for i in range(units)}
    kept: list[str] = []
    used = dropped = 0
    for text, sources in proposed:
        if not text or not sources or not set(sources) <= valid:
            dropped += 1
            continue
        cost = count_tokens(text)
        if used + cost > max_tokens:
            break
        kept.append(text if text.endswith((".", "!", "?")) else text + ".")
        used += cost
    return " ".join(kept), dropped
