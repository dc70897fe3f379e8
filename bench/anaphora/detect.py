"""Which cue the resolver reads in a user's turn, on lines written without a conversation.

    .venv/bin/python -m bench.anaphora.detect [FILE ...] [--show]

Each file (``detect_a.json``, ``detect_b.json``: 600 hand-written lines each, in seven styles,
README.md beside this file) holds user turns labelled with the kind of reference they make, or
``none`` for a turn that points back at nothing (many use the cue words innocently: "I always
forget my password", "is there another branch in Leeds"). Every line is resolved in process by
the product's ``references_resolve`` against a two-turn session, a two-turn previous session and
three facts, and scored by the kind of rule it reached (``RIGHT``). Printed per file: the lines
whose kind is right, per kind, and the ``none`` lines left alone; written to
``bench/results/anaphora-detect.json`` (each file its own entry). ``--show`` lists the misses
of the files not blind (``BLIND``).
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
RESULTS = HERE.parent / "results" / "anaphora-detect.json"
BLIND = frozenset(["detect_b"])  # never listed line by line
# The kinds of rule that serve each kind of reference ("same again" may be either repeat).
RIGHT: dict[str, set[str | None]] = {
    "other": {"other"}, "previous": {"previous", "former"}, "again": {"again", "same"},
    "that": {"that"}, "same": {"same", "last_time"}, "usual": {"usual"},
    "pronoun_she": {"pronoun"}, "pronoun_he": {"pronoun"}, "pronoun_they": {"pronoun"},
    "descriptive": {"one"}, "none": {None},
}  # fmt: skip
SESSION = [("user", "hi, I need some help sorting a few things out today"), ("assistant", "Of course. What can I do for you?")]  # fmt: skip
EARLIER = [("user", "can you sort the order for Friday"), ("assistant", "Done, it's booked for Friday.")]  # fmt: skip
FACTS = {"preference": "window seat, aisle if none", "payment_card": "Visa ending 4410", "address": "12 Hill Road"}  # fmt: skip


def score(path: Path, show: bool = False) -> dict[str, Any]:
    from memory.search.reference_turns import TurnView
    from memory.search.references import references_resolve
    from memory.search.resolve import _similar

    turns = [TurnView(f"c:{i + 1}", role, text) for i, (role, text) in enumerate(SESSION)]
    history = [TurnView(f"p:{i + 1}", role, text) for i, (role, text) in enumerate(EARLIER)]
    per: dict[str, list[int]] = {}
    for line in json.loads(path.read_text())["turns"]:
        found = references_resolve(line["text"], turns, history=history, facts=FACTS,
                                   participants={"sam", "desk"}, similar=_similar)  # fmt: skip
        right = found.kind in RIGHT[line["kind"]]
        per.setdefault(line["kind"], [0, 0])
        per[line["kind"]][0] += 1
        per[line["kind"]][1] += int(right)
        if show and not right:
            print(f"  {line['kind']:12s} -> {found.kind!s:9s} | {line['text'][:120]}")
    refs = [v for k, v in per.items() if k != "none"]
    return {
        "references": sum(v[0] for v in refs),
        "right_kind": sum(v[1] for v in refs),
        "none": per.get("none", [0, 0])[0],
        "none_left_alone": per.get("none", [0, 0])[1],
        "per_kind": {k: {"lines": v[0], "right": v[1]} for k, v in sorted(per.items())},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    parser.add_argument("files", nargs="*", type=Path, default=[HERE / "detect_a.json", HERE / "detect_b.json"])  # fmt: skip
    parser.add_argument(
        "--show", action="store_true", help="list the misses (never for a blind file)"
    )
    args = parser.parse_args(argv)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    out = {}
    for path in args.files:
        if args.show and path.stem in BLIND:
            print(f"{path.stem} is blind: its misses are not listed")
        result = out[path.stem] = score(path, args.show and path.stem not in BLIND)
        print(f"{path.stem}: right kind {result['right_kind']}/{result['references']}, "
              f"none left alone {result['none_left_alone']}/{result['none']}")  # fmt: skip
        print(
            "  "
            + "  ".join(f"{k} {v['right']}/{v['lines']}" for k, v in result["per_kind"].items())
        )
    if RESULTS.parent.is_dir():  # the files scored replace their own entries only
        kept = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
        RESULTS.write_text(json.dumps(kept | out, indent=1) + "\n")
        print(f"wrote {RESULTS.relative_to(HERE.parent.parent)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
