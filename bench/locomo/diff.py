"""Two runs of the LoCoMo benchmark, question by question.

    .venv/bin/python -m bench.locomo.diff OLD.rankings.jsonl NEW.rankings.jsonl [--k 8] [--list]

Per system in both files: the questions whose evidence recall@k rose (gained) or fell (lost),
and the net change of the mean. Questions are matched by (conversation, index).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from bench.locomo.metrics import recall_at


def read(path: Path) -> dict[tuple[str, int], dict[str, Any]]:
    lines = (json.loads(line) for line in path.read_text().splitlines() if line.strip())
    return {(q["conversation"], q["index"]): q for q in lines}


def changes(
    old: dict[tuple[str, int], dict[str, Any]], new: dict[tuple[str, int], dict[str, Any]], k: int
) -> dict[str, dict[str, list[tuple[tuple[str, int], float, float]]]]:
    """system → {"gained": [(question, old recall, new recall)], "lost": […]}, over the
    questions and systems both runs have."""
    shared = sorted(old.keys() & new.keys())
    systems = (
        [s for s in new[shared[0]]["systems"] if s in old[shared[0]]["systems"]] if shared else []
    )
    out: dict[str, dict[str, list[tuple[tuple[str, int], float, float]]]] = {}
    for system in systems:
        gained, lost = [], []
        for key in shared:
            gold = set(new[key]["evidence"])
            before = recall_at(old[key]["systems"][system]["ids"], gold, k)
            after = recall_at(new[key]["systems"][system]["ids"], gold, k)
            if after > before:
                gained.append((key, before, after))
            elif after < before:
                lost.append((key, before, after))
        out[system] = {"gained": gained, "lost": lost}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("old", type=Path)
    parser.add_argument("new", type=Path)
    parser.add_argument("--k", type=int, default=8)
    parser.add_argument("--list", action="store_true", help="print each question that changed")
    args = parser.parse_args(argv)
    old, new = read(args.old), read(args.new)
    shared = len(old.keys() & new.keys())
    print(f"{shared} questions in both ({len(old)} old, {len(new)} new); recall@{args.k}")
    for system, moved in changes(old, new, args.k).items():
        net = sum(a - b for _, b, a in moved["gained"] + moved["lost"]) / max(shared, 1)
        print(f"{system:<14} gained {len(moved['gained']):>4}  lost {len(moved['lost']):>4}  "
              f"mean {net:+.4f}")  # fmt: skip
        if args.list:
            for label, rows in (("+", moved["gained"]), ("-", moved["lost"])):
                for key, before, after in rows:
                    q = new[key]
                    print(f"  {label} {key[0]}#{key[1]} cat {q['category']} {before:.2f}→{after:.2f}  "
                          f"{q['question']}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
