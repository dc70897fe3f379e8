"""Fusion, in plain Python over the legs' hits: reciprocal rank fusion, a subject prior and a
recency prior, one slot per turn, scores and confidence, stale marks, and room for the turn log.
"""

from __future__ import annotations

import datetime
from typing import TYPE_CHECKING, Any

from memory.search.hits import Hit, named_participant, turn_ref_keys, unit_subject

if TYPE_CHECKING:
    from memory.models import Entity

# Rank 1 → 1/21, rank 10 → 1/30. The usual 60 flattens the top: on LoCoMo dev R@8 was 0.693 at
# 60 and 0.705 / 0.706 / 0.705 at 10 / 20 / 30 (a plateau, every category up; ADR 0010).
RRF_K = 20
HIGH, MEDIUM = 0.5, 0.35  # cosine bands of MiniLM for "clearly about it" / "related"
# Beside the ranker's one list (ADR 0010, "the ranker"): the list stands for the three legs it
# replaces (semantic, turn keyword, date), so its first hit fuses what a unit first in all three
# did and the recency prior keeps its pull; a current fact counts twice that, as a fact is what a
# question about a field wants (at 3, facts fell below units on the service-dialogue suites;
# `bench.scenarios_search` recall@8 on the third development suite 0.525 at 3, 0.538 at 6 and 12).
LEG_WEIGHTS = {"ranked": 3.0, "facts": 6.0}
RECENCY_POOL = 50  # legs.CANDIDATES
SUBJECT_WEIGHT = 0.5  # a third of a leg at rank 1: breaks ties, never outweighs a match
_ORDER = {"high": 2, "medium": 1, "low": 0}

History = list[tuple[str, datetime.datetime, datetime.datetime | None]]


def rrf_fuse(legs: dict[str, list[Hit]]) -> dict[str, Hit]:
    """One hit per id, crediting weight / (RRF_K + rank) for each leg that found it (weight 1
    but for LEG_WEIGHTS)."""
    merged: dict[str, Hit] = {}
    for leg, hits in legs.items():
        weight = leg_weight(leg, legs)
        for rank, hit in enumerate(hits, 1):
            kept = merged.setdefault(hit.id, hit)
            kept.legs.setdefault(leg, {}).update({"rank": rank} | hit.legs.get(leg, {}))
            if kept.similarity is None and hit.similarity is not None:
                kept.similarity = hit.similarity
            kept.fused += weight / (RRF_K + rank)
    return merged


def subject_prior(merged: dict[str, Hit], query: str, names: set[str]) -> None:
    """A question about one participant prefers what that participant said or did (a unit's
    subject follows its date: "On 8 May 2023, Caroline …")."""
    subject = named_participant(query, names)
    if subject is None:
        return
    for hit in merged.values():
        if hit.source == "acu" and unit_subject(hit.text) == subject:
            hit.fused += SUBJECT_WEIGHT / (RRF_K + 1)
            hit.legs["subject"] = {"rank": 1}


def recency_prior(merged: dict[str, Hit], weight: float) -> None:
    """One more "leg" that ranks by when it was said: the hits some leg ranked within
    RECENCY_POOL (the legs' candidates), so that a larger k, which reads further down a leg,
    does not move the first results."""
    by_time = sorted(
        (
            h
            for h in merged.values()
            if min((v.get("rank", 0) for v in h.legs.values()), default=0) <= RECENCY_POOL
        ),
        key=lambda h: h.occurred_at or datetime.datetime.min.replace(tzinfo=datetime.UTC),
        reverse=True,
    )
    for rank, hit in enumerate(by_time, 1):
        hit.fused += weight / (RRF_K + rank)
        hit.legs["recency"] = {"rank": rank}


def diversified(ordered: list[Hit], k: int) -> list[Hit]:
    """Top k that cover different turns: a unit from a turn an earlier hit already covers is
    folded into that hit (its sentence appended) instead of taking a slot of its own."""
    out: list[Hit] = []
    by_turn: dict[str, Hit] = {}
    for hit in ordered:
        refs = turn_ref_keys(hit)
        owner = (
            next((by_turn[r] for r in refs if r in by_turn), None)
            if refs and hit.source == "acu"
            else None
        )
        if owner is not None and owner.source == "acu":
            if hit.text not in owner.text and len(owner.text) < 1200:
                owner.text = f"{owner.text} {hit.text.split(': ', 1)[-1] if ' said: ' in hit.text else hit.text}"
            continue
        if len(out) == k:
            continue
        out.append(hit)
        for ref in refs:
            by_turn.setdefault(ref, hit)
    return out


def leg_weight(leg: str, legs: dict[str, Any]) -> float:
    """1, but for LEG_WEIGHTS beside the ranker's list."""
    return LEG_WEIGHTS.get(leg, 1.0) if "ranked" in legs else 1.0


def legs_weight(legs: dict[str, Any]) -> float:
    """What a hit first in every leg fuses (before the priors)."""
    return sum(leg_weight(leg, legs) for leg in legs)


def top_k(merged: dict[str, Hit], *, legs: float, recency_weight: float, k: int) -> list[Hit]:
    """The best k, diversified, each scored against the most any hit could fuse (first in every
    leg and in recency) and given the confidence of its similarity."""
    ceiling = (legs + recency_weight) / (RRF_K + 1)
    ranked = diversified(sorted(merged.values(), key=lambda h: (-h.fused, h.id)), k)
    for hit in ranked:
        hit.score = hit.fused / ceiling
        if hit.source == "acu":
            similarity = hit.similarity or 0.0
            hit.confidence = (
                "high" if similarity >= HIGH else "medium" if similarity >= MEDIUM else "low"
            )
    return ranked


def _key_words(key: str) -> list[str]:
    return [w for w in key.split(":")[0].split("_") if len(w) > 2]


def names_a_fact(hits: list[Hit], current_facts: list[Entity]) -> bool:
    """Whether any memory unit names a current fact: if none does, nothing can be stale (and
    the facts' history need not be read)."""
    texts = [hit.text.lower() for hit in hits if hit.source == "acu"]
    return any(
        (words := _key_words(e.key)) and all(w in text for w in words)
        for e in current_facts
        for text in texts
    )


def stale_mark(hits: list[Hit], history: History, current_facts: list[Entity]) -> None:
    """Mark memory units said while a fact they mention held a value that has since changed;
    a stale unit is never high confidence (only facts are current)."""
    current = {e.key: e.value_text for e in current_facts}
    for hit in hits:
        if hit.source != "acu" or hit.occurred_at is None:
            continue
        text = hit.text.lower()
        for key, valid_from, valid_until in history:
            words = _key_words(key)
            if (
                words
                and all(w in text for w in words)
                and valid_until is not None
                and valid_from <= hit.occurred_at < valid_until
            ):
                hit.stale = True
                if hit.confidence == "high":
                    hit.confidence = "medium"
                now_value = current.get(key)
                hit.note = (
                    f"as of {hit.occurred_at.date().isoformat()}; {key} has changed since"
                    + (f" (now {now_value})" if now_value else "")
                )
                break


def fallback_due(ranked: list[Hit], *, threshold: float, min_results: int) -> bool:
    """The best memory unit is under the confidence threshold, or too few results came back."""
    best = max((h.similarity or 0.0 for h in ranked if h.source == "acu"), default=0.0)
    return best < threshold or len(ranked) < min_results


def covered_turns(ranked: list[Hit]) -> set[str]:
    return {ref for hit in ranked for ref in turn_ref_keys(hit)}


def fallback_room(ranked: list[Hit], k: int) -> int:
    """Room for the turn log: whatever k leaves, and at least a third of k when the memory
    units found are weak; those slots come from the weakest memory units."""
    return max(k - len(ranked), -(-k // 3))


def fallback_append(ranked: list[Hit], extra: list[Hit], k: int) -> list[Hit]:
    """The turn log's hits after the memory units, always scored below every one of them."""
    floor = min((h.score for h in ranked), default=1.0)
    for index, hit in enumerate(extra):
        hit.score = floor * 0.5 / (index + 1)
        hit.confidence = "low"
    return ranked[: k - len(extra)] + extra


def overall_confidence(ranked: list[Hit]) -> str:
    return max((h.confidence for h in ranked), key=lambda c: _ORDER[c], default="low")
