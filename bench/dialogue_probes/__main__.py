"""Probe dialogues: short exchanges through the `rules` extractor, in process, one phenomenon
group per file (statuses, enum choices, names, amounts, dates, text answers, yes/no).

    python -m bench.dialogue_probes                  # every group, prints n / N per group
    python -m bench.dialogue_probes --only dates -v  # one group, with what each case wrote

Each case is a few turns ("a" the agent, "u" the user, a minute apart from the file's start, or
from the case's own ``start``, an ISO time with the user's UTC offset),
a schema, what memory held before (``known``) and what must hold after (``want``: key → value;
``{}`` means the exchange writes nothing). After = what memory held, updated by what the
extractor wrote; a text value matches without a leading article or "my" and in any case. The
cases were written by hand on 2026-12-04, each to probe one way people say a thing, and the
misses they found were then worked on: they are development probes, not a held-out measure
(bench/dialogue_probes/README.md). Writes bench/results/dialogue_probes.json.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
RESULTS = HERE.parent / "results" / "dialogue_probes.json"


def _setup() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("SECRET_KEY", "dialogue-probes-" + "x" * 40)
    import django

    django.setup()


def _text(value: Any) -> Any:
    if not isinstance(value, str):
        return value
    lowered = value.strip().lower()
    for lead in ("the ", "a ", "an ", "my "):
        lowered = lowered.removeprefix(lead)
    return lowered


def run_case(case: dict[str, Any], fields: list[dict[str, Any]], start: datetime.datetime) -> dict[str, Any]:  # fmt: skip
    from extraction.extractors import Usage, WindowTurn
    from extraction.extractors.rules import RulesExtractor

    user, agent = "Priya Shah", "Tom"
    window = [
        WindowTurn(i, "s", i, "user" if role == "u" else "assistant", text,
                   start + datetime.timedelta(minutes=i), user if role == "u" else agent,
                   agent if role == "u" else user)
        for i, (role, text) in enumerate(case["turns"])
    ]  # fmt: skip
    from schemas.validation import fact_key_parse, fact_value_validate

    known = case.get("known") or {}
    # the extractor reads what memory holds as the pipeline hands it: key → value text
    texts = {k: v if isinstance(v, str) else fact_value_validate(fact_key_parse(k, fields)[0], v)[1]
             for k, v in known.items()}  # fmt: skip
    facts = RulesExtractor().extract_facts(window, fields, Usage(), texts or None)
    wrote = {f.key: f.value for f in facts}
    after = {**known, **wrote}
    want = case["want"]
    # "writes nothing" when nothing is wanted; else every wanted value holds after
    ok = all(_text(after.get(k)) == _text(v) for k, v in want.items()) if want else not wrote
    return {"name": case["name"], "ok": ok, "want": want, "wrote": wrote}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", help="one group (a file name without .json)")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args(argv)
    _setup()
    groups: dict[str, Any] = {}
    total = passed = 0
    for path in sorted(HERE.glob("*.json")):
        if args.only and path.stem != args.only:
            continue
        doc = json.loads(path.read_text())
        start = datetime.datetime.fromisoformat(doc["start"])
        results = [run_case(c, doc["schemas"][c["schema"]],
                            datetime.datetime.fromisoformat(c["start"]) if "start" in c else start)
                   for c in doc["cases"]]  # fmt: skip  # a case's own start: another time zone
        right = sum(r["ok"] for r in results)
        groups[path.stem] = {"n": len(results), "right": right,
                             "missed": [r for r in results if not r["ok"]]}  # fmt: skip
        total, passed = total + len(results), passed + right
        print(f"{path.stem:10} {right:3d} / {len(results):3d}")
        for r in results if args.verbose else [r for r in results if not r["ok"]]:
            mark = "ok  " if r["ok"] else "MISS"
            print(f"   {mark} {r['name']}: want {r['want']} wrote {r['wrote']}")
    print(f"{'all':10} {passed:3d} / {total:3d}")
    if not args.only:
        RESULTS.write_text(json.dumps({"right": passed, "n": total, "groups": groups}, indent=1,
                                      ensure_ascii=False, default=str) + "\n")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
