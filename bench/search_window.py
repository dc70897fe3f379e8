"""A heavy user's search window in process (ADR 0029): its memory, its build time and the
keyword legs' time per query, for this tree's BM25 and, with ``--ref REV``, for the BM25 of
another revision (its ``memory/search/bm25.py`` read from git), alternately in one process.

    .venv/bin/python -m bench.search_window [--ref HEAD~1] [--rounds 2]

The window holds 20,000 units and 20,000 turns of bench/scale.py's texts."""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import os
import random
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
QUERIES = ["budget for the flat near the metro", "dentist appointment", "what did the doctor say about the knee"]  # fmt: skip


def _bm25_at(rev: str, tmp: Path) -> ModuleType:
    source = subprocess.run(["git", "show", f"{rev}:memory/search/bm25.py"], cwd=ROOT, check=True,
                            capture_output=True, text=True).stdout  # fmt: skip
    path = tmp / "bm25_ref.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("bm25_ref", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _window(index_module: ModuleType, bm25: ModuleType, units: list[Any], turns: list[Any]) -> Any:
    index = index_module.UserIndex(window=True, units=bm25.Bm25(), turns=bm25.Bm25())
    index.units_add(units)
    index.turns_add(turns)
    return index


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--ref", help="a git revision whose BM25 to compare with")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()  # fmt: skip
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("SECRET_KEY", "bench-only-" + "0" * 32)
    import django

    django.setup()
    import memory.search.bm25 as this
    import memory.search.index as index_module
    from bench.scale_data import TextPool
    from memory.search.index_legs import keyword_legs

    pool, rng = TextPool(units=2000), random.Random(1)
    when = datetime.datetime(2024, 1, 1, tzinfo=datetime.UTC)
    session = "00000000-0000-0000-0000-000000000001"
    units = [
        (i, f"{rng.choice(pool.units)} {i}", session, 2 * i, 2 * i + 1, None, when)
        for i in range(20_000)
    ]
    turns = [(i, session, i, rng.choice(pool.user)) for i in range(20_000)]  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        variants = [("this tree", this)] + (
            [(args.ref, _bm25_at(args.ref, Path(tmp)))] if args.ref else []
        )
        for _ in range(args.rounds):
            for name, module in variants:
                tracemalloc.start()
                kept = _window(index_module, module, units, turns)
                held = tracemalloc.get_traced_memory()[0]
                tracemalloc.stop()
                del kept
                started = time.perf_counter()
                index = _window(index_module, module, units, turns)
                built = time.perf_counter() - started
                keyword_legs(index, words=QUERIES[0], session=None)
                started = time.perf_counter()
                for query in QUERIES * 20:
                    keyword_legs(index, words=query, session=None)
                per = (time.perf_counter() - started) / (len(QUERIES) * 20)
                print(f"{name:>12}: window {held / 1e6:.1f} MB (tracemalloc), built in {built * 1000:.0f} ms, "
                      f"keyword legs {per * 1000:.2f} ms a query")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
