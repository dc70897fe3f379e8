"""The bundled embedder's batch cost: texts grouped by length before inference (SORTED_BATCH) or
not, on the turns of a LoCoMo-format file, written as the write lane's memory units are
("On 8 May 2023, Caroline said: …") and embedded in the pipeline's batches of 64.

    .venv/bin/python -m bench.embedding --data ../shared/bench/locomo-dev.json [--rounds 3]

Each variant runs in every round, in turn, so a noisy machine weighs on all of them alike;
prints units a second per variant (best and median round) and the largest difference of any
vector from the ungrouped one's."""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

PIPELINE_BATCH = 64  # extraction.pipeline.EMBED_BATCH


def unit_texts(path: Path) -> list[str]:
    texts = []
    for conversation in json.loads(path.read_text()):
        talk = conversation["conversation"]
        for key, turns in talk.items():
            if not key.startswith("session_") or key.endswith("date_time"):
                continue
            when = talk.get(f"{key}_date_time", "")
            texts += [f"On {when}, {t['speaker']} said: {t['text']}" for t in turns]
    return texts


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--groups", default="64,32,16,8", help="SORTED_BATCH values; 64 = ungrouped"
    )
    parser.add_argument("--limit", type=int, default=3000, help="texts embedded per round")
    args = parser.parse_args()  # fmt: skip

    import memory.embedding as embedding

    texts = unit_texts(args.data)[: args.limit]
    model = embedding.MiniLMEmbedder()
    groups = [int(g) for g in args.groups.split(",")]
    seconds: dict[int, list[float]] = {g: [] for g in groups}
    vectors: dict[int, np.ndarray] = {}
    model.embed(texts[:64])  # warm up
    for _ in range(args.rounds):
        for group in groups:
            embedding.SORTED_BATCH = group
            started = time.perf_counter()
            out = np.vstack(
                [
                    model.embed(texts[i : i + PIPELINE_BATCH])
                    for i in range(0, len(texts), PIPELINE_BATCH)
                ]
            )
            seconds[group].append(time.perf_counter() - started)
            vectors[group] = out
    base = vectors[max(groups)]
    print(f"{len(texts):,} unit texts, batches of {PIPELINE_BATCH}, {args.rounds} rounds")
    for group in groups:
        best, median = min(seconds[group]), statistics.median(seconds[group])
        diff = float(np.abs(vectors[group] - base).max())
        print(
            f"  SORTED_BATCH {group:>3}: {len(texts) / best:7.1f} units/s best, {len(texts) / median:7.1f} median"
            f"  ({median / statistics.median(seconds[max(groups)]):.2f}x the ungrouped time; max |diff| {diff:.2e})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
