"""The call-path benchmark run side by side on two versions of the code, in one run.

    .venv/bin/python -m bench.compare --ref main [--rounds 2] [-- <bench/latency.py arguments>]

The machine is shared and noisy, so figures from different hours do not compare: this checks
``--ref`` out into a temporary git worktree and runs ``bench/latency.py`` alternately against
its code and this tree's (ref, this, ref, this …), each run on its own fresh embedded stack, with
the same virtualenv and this tree's load generator (``--tree`` selects the code that serves).
Prints each endpoint's p50 / p95 / p99 per side — the median over the rounds — and the ratio
this ÷ ref, then append throughput and CPU per append per round and side, with the load average
each run saw; writes bench/results/compare.json.
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
SIDES = ("ref", "this")


def _run(tree: Path, out: Path, extra: list[str]) -> dict[str, Any]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(ROOT / "clients" / "python")])
    subprocess.run(
        [sys.executable, "-m", "bench.latency", "--tree", str(tree), "--out", str(out), *extra],
        cwd=ROOT, env=env, check=True,
    )  # fmt: skip
    return dict(json.loads(out.read_text()))


def _median(runs: list[dict[str, Any]], endpoint: str | None, figure: str) -> float:
    values = [(run[endpoint] if endpoint else run)[figure] for run in runs]
    return float(statistics.median(values))


def _exact(run: dict[str, Any]) -> bool:
    return bool(run["lost"] == run["duplicates"] == run.get("bad_repeats", 0) == 0)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--ref", required=True, help="the git ref to compare this tree against")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("latency_args", nargs="*", help="passed to bench/latency.py (after --)")
    args = parser.parse_args()

    runs: dict[str, list[dict[str, Any]]] = {side: [] for side in SIDES}
    with tempfile.TemporaryDirectory(prefix="hv-compare-") as tmp:
        other = Path(tmp) / "ref"
        subprocess.run(
            ["git", "worktree", "add", "--detach", str(other), args.ref], cwd=ROOT, check=True
        )
        try:
            for round_ in range(args.rounds):
                for side, tree in (("ref", other), ("this", ROOT)):
                    out = Path(tmp) / f"{side}-{round_}.json"
                    runs[side].append(_run(tree, out, args.latency_args))
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(other)], cwd=ROOT)

    rows: dict[str, Any] = {"ref": args.ref, "rounds": args.rounds, "endpoints": {}}
    latency = "session_start" in runs["this"][0]
    if latency:
        print(f"\nmedian of {args.rounds} alternating runs; ref = {args.ref}")
        print(f"{'endpoint':<15}{'':>6}" + "".join(f"{f.split('_')[0]:>9}" for f in FIGURES))
    for endpoint in ENDPOINTS if latency else ():
        row = {side: {f: _median(runs[side], endpoint, f) for f in FIGURES} for side in SIDES}
        row["ratio"] = {f: round(row["this"][f] / row["ref"][f], 3) for f in FIGURES}
        rows["endpoints"][endpoint] = row
        for side in (*SIDES, "ratio"):
            cells = "".join(f"{row[side][f]:>9.2f}" for f in FIGURES)
            print(f"{endpoint if side == 'ref' else '':<15}{side:>6}{cells}")
    print(f"\nappend throughput, {runs['this'][0]['append_clients']} clients (ref = {args.ref}):")
    for round_ in range(args.rounds):
        for side in SIDES:
            run = runs[side][round_]
            cpu = run["cpu_ms_per_append"]
            parts = ", ".join(f"{k} {v:.2f}" for k, v in cpu.items() if k != "total")
            print(f"  round {round_ + 1} {side:>4}: {run['append_throughput_per_s']:>7.1f}/s  "
                  f"CPU {cpu['total']:.2f} ms/append ({parts})  load {run['load_average'][0]:.1f}  "
                  f"lost {run['lost']} duplicates {run['duplicates']} "
                  f"retries {run['repeats']} wrong {run['bad_repeats']}")  # fmt: skip
    throughput = {side: _median(runs[side], None, "append_throughput_per_s") for side in SIDES}
    cpu_total = {
        side: float(statistics.median(r["cpu_ms_per_append"]["total"] for r in runs[side]))
        for side in SIDES
    }
    exact = {side: all(_exact(run) for run in runs[side]) for side in SIDES}
    rows |= {"append_throughput_per_s": throughput, "cpu_ms_per_append": cpu_total,
             "exactly_once": exact, "runs": runs}  # fmt: skip
    print(
        f"median: ref {throughput['ref']:.0f}/s, this {throughput['this']:.0f}/s "
        f"(ratio {throughput['this'] / throughput['ref']:.2f}); CPU per append ref "
        f"{cpu_total['ref']:.2f} ms, this {cpu_total['this']:.2f} ms "
        f"(ratio {cpu_total['this'] / cpu_total['ref']:.2f}); exactly once: {exact}"
    )
    results = ROOT / "bench" / "results"
    results.mkdir(parents=True, exist_ok=True)
    (results / "compare.json").write_text(json.dumps(rows, indent=2) + "\n")
    return 0 if all(exact.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
