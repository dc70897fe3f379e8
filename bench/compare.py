"""The call-path benchmark run side by side on two versions of the code, in one run.

    .venv/bin/python bench/compare.py --ref main [--rounds 2] [-- <bench/latency.py arguments>]

The machine is shared and noisy, so figures from different hours do not compare: this checks
``--ref`` out into a temporary git worktree and runs ``bench/latency.py`` alternately on it and on
this tree (ref, this, ref, this …), each run on its own fresh embedded stack, with the same
virtualenv (``PYTHONPATH`` selects the code). Prints each endpoint's p50 / p95 / p99 per side —
the median over the rounds — and the ratio this ÷ ref; writes bench/results/compare.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
ENDPOINTS = ("session_start", "turn_append", "context")
FIGURES = ("p50_ms", "p95_ms", "p99_ms")


def _run(tree: Path, extra: list[str]) -> dict[str, Any]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(tree), str(tree / "clients" / "python")])
    subprocess.run(
        [sys.executable, str(tree / "bench" / "latency.py"), *extra],
        cwd=tree, env=env, check=True,
    )  # fmt: skip
    return dict(json.loads((tree / "bench" / "results" / "latency.json").read_text()))


def _median(runs: list[dict[str, Any]], endpoint: str | None, figure: str) -> float:
    values = [(run[endpoint] if endpoint else run)[figure] for run in runs]
    return float(statistics.median(values))


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--ref", required=True, help="the git ref to compare this tree against")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("latency_args", nargs="*", help="passed to bench/latency.py (after --)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="hv-compare-") as tmp:
        other = Path(tmp) / "ref"
        subprocess.run(
            ["git", "worktree", "add", "--detach", str(other), args.ref], cwd=ROOT, check=True
        )
        try:
            runs: dict[str, list[dict[str, Any]]] = {"ref": [], "this": []}
            for _ in range(args.rounds):
                runs["ref"].append(_run(other, args.latency_args))
                runs["this"].append(_run(ROOT, args.latency_args))
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(other)], cwd=ROOT)

    rows: dict[str, Any] = {"ref": args.ref, "rounds": args.rounds, "endpoints": {}}
    print(f"\nmedian of {args.rounds} alternating runs; ref = {args.ref}")
    print(f"{'endpoint':<15}{'':>6}" + "".join(f"{f.split('_')[0]:>9}" for f in FIGURES))
    for endpoint in ENDPOINTS:
        row = {
            side: {figure: _median(runs[side], endpoint, figure) for figure in FIGURES}
            for side in ("ref", "this")
        }
        row["ratio"] = {f: round(row["this"][f] / row["ref"][f], 3) for f in FIGURES}
        rows["endpoints"][endpoint] = row
        for side in ("ref", "this", "ratio"):
            cells = "".join(f"{row[side][f]:>9.2f}" for f in FIGURES)
            print(f"{endpoint if side == 'ref' else '':<15}{side:>6}{cells}")
    throughput = {
        side: _median(runs[side], None, "append_throughput_per_s") for side in ("ref", "this")
    }
    lost = {side: sum(run["lost"] + run["duplicates"] for run in runs[side]) for side in runs}
    rows["append_throughput_per_s"] = throughput
    rows["lost_or_duplicated"] = lost
    print(
        f"append throughput /s: ref {throughput['ref']:.0f}, this {throughput['this']:.0f} "
        f"(ratio {throughput['this'] / throughput['ref']:.3f}); lost or duplicated: {lost}"
    )
    results = ROOT / "bench" / "results"
    results.mkdir(parents=True, exist_ok=True)
    (results / "compare.json").write_text(json.dumps(rows, indent=2) + "\n")
    return 0 if not any(lost.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
