"""Evidence recall of memory search on LoCoMo-format data, against baselines, in one run.

    .venv/bin/python -m bench.locomo --data ../shared/bench/locomo-dev.json [--skip-replay]

1. Starts the real server and worker (`python -m config.runtime run`) on a fresh embedded stack
   and ingests each conversation through the public API: one end user per conversation, one
   session per LoCoMo session with its real date, both speakers (image captions as text); then
   runs extraction to completion through the API.
2. Asks every category 1-4 question through /v1/memory/search after the last session, at k = 10
   (top-k figures, latency) and at k = 50 (the API's maximum, to fill the token budgets).
3. Baselines in process on the same turns, each indexed as `[<date>] <speaker>: <text>`: dense
   (the service's embedder, exact cosine), BM25 (bm25s), their reciprocal-rank fusion (k = 20),
   and the last turns (recency).
4. Scores, per system, per category and overall (answers and evidence are read only here):
   recall@k (the share of a question's evidence turns the top k cover), hit@k (any of them),
   all@k (all of them) for k = 1, 5, 8, 10; and recall within a token budget (results in rank
   order, whole, up to 400 / 800 / 1,600 tokens of returned text, memory.tokens.count_tokens).
   Also: session-start block tokens vs full-history tokens; prefix reuse of /v1/context when a
   conversation is replayed turn by turn; search latency.

Writes bench/results/locomo.json, locomo.png and locomo.rankings.jsonl (each question's ranked
turn ids per system; `python -m bench.locomo.diff OLD NEW` compares two runs question by
question). The rankings hold the questions' text, which is CC BY-NC data: not committed.
"""

from __future__ import annotations

from pathlib import Path

RESULTS = Path(__file__).resolve().parent.parent / "results"
