"""The one token counter, used everywhere (turn counts, thresholds, context budgets).

``handover-approx-v1``: deterministic and dependency-free. A real BPE (tiktoken) would need its
vocabulary downloaded at run time, which this service never does, and would tie counts to one
model family. This approximation splits text into words, numbers and single punctuation or
symbol characters; a word costs 1 token plus 1 per further started 6 characters
("the" = 1, "extraction" = 2), a digit run 1 per started 3 digits, any other piece 1.
On English prose it lands within about ±15 % of cl100k_base; budgets are set with that margin.
Changing it changes stored counts: bump the name and re-count.
"""

from __future__ import annotations

import re
from functools import lru_cache

TOKENIZER = "handover-approx-v1"

_PIECES = re.compile(r"[^\W\d_]+|\d+|\S", re.UNICODE)


def count_tokens(text: str) -> int:
    # Context packing counts the same fact and turn lines on every call: memoise short texts.
    return _count_cached(text) if len(text) <= 2000 else _count(text)


@lru_cache(maxsize=50_000)  # ≈ 50,000 lines of ≤ 2 KB: bounded, and hit on every pack
def _count_cached(text: str) -> int:
    return _count(text)


def _count(text: str) -> int:
    total = 0
    for match in _PIECES.finditer(text):
        piece = match.group()
        length = len(piece)
        if piece[0].isdigit():
            total += (length + 2) // 3
        elif piece[0].isalpha():
            total += 1 + (length - 1) // 6
        else:
            total += 1
    return total
