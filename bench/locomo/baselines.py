"""The baselines, in process, over the same turns the service ingested: each turn indexed as
`[<session date>] <speaker>: <text>` (bench.locomo.data.turn_lines; image captions as the
ingest adds them).

- dense: the service's embedder (memory.embedding.default_embedder), exact cosine over every turn;
- bm25: bm25s (Lucene's BM25, k1 1.5, b 0.75), English stop words, no stemming (a stemmer would
  be a second dependency); only turns sharing a word with the question are ranked;
- rrf: reciprocal-rank fusion of the two full rankings, k = 20 (of 60 and 20, its better on the
  dev set: R@8 0.587 and 0.627; Handover's fusion uses 20 too);
- recent: the last turns, newest first.

Each ranking is kept deep enough to overflow the largest token budget and to reach the largest k.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from bench.locomo.data import turn_lines
from bench.locomo.metrics import BUDGETS, KS, rrf

SYSTEMS = ("dense", "bm25", "rrf", "recent")
BATCH = 64  # texts per embedder call
RRF_BASELINE_K = 20


def rankings(
    conversations: list[dict[str, Any]], asked: list[dict[str, Any]]
) -> dict[str, dict[tuple[str, int], dict[str, list[Any]]]]:
    """system → (conversation, question index) → {"ids": [[dia id], …], "tokens": [n, …]}."""
    import bm25s

    from memory.embedding import default_embedder
    from memory.tokens import count_tokens

    embedder = default_embedder()
    out: dict[str, dict[tuple[str, int], dict[str, list[Any]]]] = {s: {} for s in SYSTEMS}
    for conversation in conversations:
        lines = turn_lines(conversation)
        ids = [dia for dia, _ in lines]
        tokens = {dia: count_tokens(text) for dia, text in lines}
        mine = [q for q in asked if q["conversation"] == conversation["id"]]
        if not mine:
            continue
        vectors = _embed(embedder, [text for _, text in lines])
        queries = _embed(embedder, [q["question"] for q in mine])
        index = bm25s.BM25()
        index.index(_tokenize([text for _, text in lines]), show_progress=False)
        asked_words = _tokenize([q["question"] for q in mine], ids=False)
        for item, vector, words in zip(mine, queries, asked_words, strict=True):
            similarity = vectors @ vector
            dense = [ids[i] for i in np.argsort(-similarity, kind="stable")]
            scores = index.get_scores(words) if words else np.zeros(len(ids))
            bm25 = [ids[i] for i in np.argsort(-scores, kind="stable") if scores[i] > 0]
            key = (item["conversation"], item["index"])
            for system, ranked in (("dense", dense), ("bm25", bm25), ("rrf", rrf([dense, bm25], k=RRF_BASELINE_K)),
                                   ("recent", ids[::-1])):  # fmt: skip
                out[system][key] = _keep(ranked, tokens)
    return out


def _embed(embedder: Any, texts: list[str]) -> np.ndarray:
    return np.vstack([embedder.embed(texts[i : i + BATCH]) for i in range(0, len(texts), BATCH)])


def _tokenize(texts: list[str], ids: bool = True) -> Any:
    import bm25s

    return bm25s.tokenize(texts, stopwords="en", return_ids=ids, show_progress=False)


def _keep(ranked: list[str], tokens: dict[str, int]) -> dict[str, list[Any]]:
    """The head of a ranking: at least max(KS) results, and one past the largest budget."""
    kept: list[str] = []
    used = 0
    for dia in ranked:
        if len(kept) >= max(KS) and used > max(BUDGETS):
            break
        kept.append(dia)
        used += tokens[dia]
    return {"ids": [[dia] for dia in kept], "tokens": [tokens[dia] for dia in kept]}
