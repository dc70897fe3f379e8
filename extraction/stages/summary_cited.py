"""The abstractive summary's check (the ``openai`` extractor's): every sentence it keeps cites a
line it rests on, within the agent's token cap."""

from __future__ import annotations

from memory.tokens import count_tokens


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
