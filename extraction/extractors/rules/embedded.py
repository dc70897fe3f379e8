"""The sentences of a window whose meaning decides something, embedded once per run."""

from __future__ import annotations

import re

import numpy as np

from core.text import sentences
from extraction.extractors.base import WindowTurn
from extraction.extractors.rules.acts import question_kind
from extraction.extractors.rules.fields import Profile
from memory.embedding import embed

# What a user sentence needs the embedder for: choosing among fields for a value it states.
_NUMBERS = r"\d|\b(one|two|three|four|five|six|seven|eight|nine|ten|twenty|thirty|hundred|thousand|lakh|crore|million)\b"
_DATES = (r"\d|\b(today|tonight|tomorrow|yesterday|week|month|year|monday|tuesday|wednesday|thursday|"
          r"friday|saturday|sunday|january|february|march|april|may|june|july|august|september|"
          r"october|november|december)\b")  # fmt: skip


def embed_sentences(turns: list[WindowTurn], fields: list[Profile]) -> dict[str, np.ndarray]:
    """The sentences whose meaning decides something, embedded in batches: the agent's questions
    (which field they ask about) and the user's sentences that state a typed value (which field
    it goes to). Others are never compared, so they cost no embedding (a long chatty history is
    mostly such sentences)."""
    choices = [c.lower() for p in fields for c in p.field.get("choices") or []]
    types = {p.type for p in fields}
    valued = "|".join([_NUMBERS] * bool(types & {"number", "money"}) + [_DATES] * ("date" in types))
    pattern = re.compile(valued, re.I) if valued else None  # no field takes a number: none matter
    wanted: set[str] = set()
    for turn in turns:
        said = sentences(turn.text)
        if turn.role == "assistant":
            questions = [s for s in said if question_kind(s)]  # "?", or "Please share your …"
            wanted |= set(questions[-1:])  # a statement is read by its words only
        elif turn.role == "user":
            wanted |= {
                s
                for s in said
                if (pattern and pattern.search(s)) or any(c in s.lower() for c in choices)
            }
    texts = sorted(wanted)
    if not texts:
        return {}
    vectors = np.vstack([embed(texts[i : i + 64]) for i in range(0, len(texts), 64)])
    return dict(zip(texts, vectors, strict=True))
