"""BM25 (Lucene's: k1 1.2, b 0.75, idf log(1 + (N - df + 0.5) / (df + 0.5))) over a growing list
of short texts, in plain Python and numpy. PostgreSQL's ``ts_rank_cd`` has no inverse document
frequency, so a word in every line ("like", "time") counts as much as the one word that names
what was asked; BM25 weighs it down. English only: a stop list and a light suffix stripper
(plural, -ing, -ed, -ly), the same on both sides."""

from __future__ import annotations

import math
import re
from array import array

import numpy as np

K1, B = 1.2, 0.75
_WORD = re.compile(r"[a-z0-9]+")
STOP = frozenset(["a", "about", "above", "after", "again", "against", "all", "am", "an", "and", "any", "are", "aren't", "as", "at", "be", "because", "been", "before", "being", "below", "between", "both", "but", "by", "can", "could", "did", "do", "does", "doing", "don't", "down", "during", "each", "few", "for", "from", "further", "had", "has", "have", "having", "he", "her", "here", "hers", "herself", "him", "himself", "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself", "just", "let", "me", "more", "most", "my", "myself", "no", "nor", "not", "now", "of", "off", "on", "once", "only", "or", "other", "our", "ours", "ourselves", "out", "over", "own", "same", "she", "should", "so", "some", "such", "than", "that", "the", "their", "theirs", "them", "themselves", "then", "there", "these", "they", "this", "those", "through", "to", "too", "under", "until", "up", "very", "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will", "with", "would", "you", "your", "yours", "yourself", "yourselves", "s", "t", "ll", "ve", "re", "d", "m"])  # fmt: skip


def stem(word: str) -> str:
    """A light English stemmer: painting, painted, paints → paint; activities → activiti."""
    for suffix in ("ingly", "edly", "ing", "ies", "ied", "ed", "es", "ly", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiouls":
        word = word[:-1]  # running → runn → run
    return word


def tokens(text: str) -> list[str]:
    return [stem(w) for w in _WORD.findall(text.lower()) if w not in STOP and len(w) > 1]


class Bm25:
    """Postings per word as two growing C arrays (the texts' numbers, the word's count in
    each): 4 bytes a posting each, against about 100 for a tuple of two ints in a list (a
    heavy user's window of 40,000 texts: ADR 0029)."""

    def __init__(self) -> None:
        self.postings: dict[str, tuple[array[int], array[int]]] = {}
        self.lengths: array[int] = array("i")

    def __len__(self) -> int:
        return len(self.lengths)

    def add(self, text: str) -> None:
        doc = len(self.lengths)
        words = tokens(text)
        self.lengths.append(len(words))
        counts: dict[str, int] = {}
        for word in words:
            counts[word] = counts.get(word, 0) + 1
        for word, count in counts.items():
            entry = self.postings.get(word)
            if entry is None:
                entry = self.postings[word] = (array("i"), array("i"))
            entry[0].append(doc)
            entry[1].append(count)

    def scores(self, query: str) -> np.ndarray:
        """One score per text, 0 where no query word occurs."""
        n = len(self.lengths)
        out = np.zeros(n, dtype=np.float32)
        if not n:
            return out
        lengths = np.array(self.lengths, dtype=np.float32)
        norm = K1 * (1 - B + B * lengths / max(float(lengths.mean()), 1.0))
        for word in set(tokens(query)):
            if word not in self.postings:
                continue
            docs_raw, tfs_raw = self.postings[word]
            # Copies, not views: a view would stop the arrays from growing (BufferError).
            docs = np.array(docs_raw, dtype=np.int64)
            tf = np.array(tfs_raw, dtype=np.float32)
            idf = math.log(1 + (n - len(docs) + 0.5) / (len(docs) + 0.5))
            out[docs] += idf * tf * (K1 + 1) / (tf + norm[docs])
        return out
