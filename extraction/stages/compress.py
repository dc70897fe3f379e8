"""Stage 3 helpers: the atomicity check and value-aware dedup of memory units."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np

from extraction.text import PRONOUN, RELATIVE
from extraction.values import value_signature

RELATIVE_WORDS = re.compile(
    r"\b(recently|lately|(?<!as )soon(?! as\b)|nowadays|currently|these days)\b", re.I
)
# A vague time word anchored to a date ("soon after 8 May 2023") is absolute enough.
_ANCHORED = re.compile(
    r"\b(soon after|shortly before|as of|in the weeks before) \d{1,2} [A-Z][a-z]+ \d{4}", re.I
)
_CAPITALISED = re.compile(r"\b[A-Z][a-zA-Z'-]+")


def atomicity_problems(text: str, names: Sequence[str] = ()) -> list[str]:
    """Why a memory unit is not self-contained; empty when it is.

    - no first- or second-person pronoun (I, my, we, you, …) left unresolved;
    - no relative time (yesterday, next week, two days ago, recently, …);
    - a subject: a known participant's name, or some other proper noun.
    """
    problems = []
    pronoun = PRONOUN.search(text)
    if pronoun and pronoun.group(0) != "US":  # the country, not "us"
        problems.append(f"unresolved pronoun {pronoun.group(0)!r}")
    unanchored = _ANCHORED.sub("", text)
    relative = RELATIVE.search(unanchored) or RELATIVE_WORDS.search(unanchored)
    if relative:
        problems.append(f"relative time {relative.group(0)!r}")
    if not any(name and name in text for name in names):
        body = re.sub(r"^On \d{1,2} \w+ \d{4}, ", "", text)
        if not _CAPITALISED.search(body[1:] if body else ""):
            problems.append("no subject")
    return problems


def content_hash(text: str) -> str:
    return hashlib.sha256(" ".join(text.lower().split()).encode()).hexdigest()


def is_duplicate(
    text: str, vector: np.ndarray, others: Sequence[tuple[str, np.ndarray]], threshold: float
) -> bool:
    """A near-duplicate is above the threshold *and* states the same values.

    Cosine alone would drop updates: "rent is $1,800" and "rent is $2,100" embed almost alike.
    """
    signature = value_signature(text)
    for other_text, other_vector in others:
        if (
            float(np.dot(vector, other_vector)) >= threshold
            and value_signature(other_text) == signature
        ):
            return True
    return False


class KeptUnits:
    """The units a run has kept so far, asked "is this one a near-duplicate?" (as
    ``is_duplicate``) with one matrix product instead of one dot product per kept unit: a
    LoCoMo conversation's run keeps about a thousand units, and the pairwise loop took 8 s of
    its 55 (bench/extraction.py)."""

    def __init__(self, capacity: int, dimensions: int) -> None:
        self.vectors = np.zeros((capacity, dimensions), dtype=np.float32)
        self.signatures: list[frozenset[str]] = []

    def duplicate(self, signature: frozenset[str], vector: np.ndarray, threshold: float) -> bool:
        """``signature``: the unit's ``value_signature``, computed once by the caller."""
        n = len(self.signatures)
        if not n:
            return False
        close = np.flatnonzero(self.vectors[:n] @ vector >= threshold)
        return any(self.signatures[i] == signature for i in close)

    def add(self, signature: frozenset[str], vector: np.ndarray) -> None:
        self.vectors[len(self.signatures)] = vector
        self.signatures.append(signature)
