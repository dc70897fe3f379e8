"""The benchmark figures the README and docs/ quote, written from bench/results/*.json.

A figure in a document sits between two HTML comments, which Markdown does not show:

    <!-- fig latency session_start.p50_ms .2f " ms" -->3.18 ms<!-- /fig -->
    <!-- fig @extraction-units -->6,099<!-- /fig -->
    <!-- figs faults-table -->
    | scenario | requests | … |
    <!-- /figs -->

- ``fig FILE PATH [SPEC [SUFFIX]]``: one value of ``bench/results/FILE.json``. PATH is keys
  joined by dots; ``rows[scenario=redis]`` picks the item of a list whose field has that value.
  SPEC is a Python format spec (``,`` ``.2f`` ``,.0f``; none: as it is), SUFFIX follows it.
- ``fig @NAME``: a figure worked out from a results file (a share, a sum), by ``INLINE[NAME]``.
- ``figs NAME``: a block (a table), by ``BLOCKS[NAME]``.

``python -m bench.docs_figures`` rewrites every span from the results files, after a benchmark
has written new ones; ``--check`` changes nothing and lists the spans that disagree (exit 1).
``tests/test_docs_figures.py`` runs the check, so a document cannot drift from its results.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
DOCUMENTS = ["README.md", "docs/*.md", "clients/python/README.md"]

INLINE_SPAN = re.compile(r"<!-- fig (?P<args>[^\n]+?) -->(?P<value>[^\n]*?)<!-- /fig -->")
BLOCK_SPAN = re.compile(r"(?P<open><!-- figs (?P<name>\S+) -->\n)(?P<body>.*?)(?P<close><!-- /figs -->)", re.S)  # fmt: skip
SELECT = re.compile(r"(?P<key>[^\[\]]+)?\[(?P<field>[^=\]]+)=(?P<value>[^\]]+)\]")


@cache
def results(name: str) -> Any:
    return json.loads((RESULTS / f"{name}.json").read_text())


def lookup(name: str, path: str) -> Any:
    value = results(name)
    for part in path.split("."):
        match = SELECT.fullmatch(part)
        if match:
            if match["key"]:
                value = value[match["key"]]
            value = next(v for v in value if str(v[match["field"]]) == match["value"])
        elif isinstance(value, list):
            value = value[int(part)]
        else:
            value = value[part]
    return value


def inline(args: str) -> str:
    words = shlex.split(args)
    if words[0].startswith("@"):
        return INLINE[words[0][1:]]()
    name, path, spec, suffix = [*words, "", ""][:4]
    value = lookup(name, path)
    return ("—" if value is None else format(value, spec)) + suffix


# --- Figures worked out from a results file --------------------------------------------------


def _extraction_units() -> str:
    return f"{sum(c['acus'] for c in results('extraction')['conversations']):,}"


def _extraction_embed_share() -> str:
    totals = results("extraction")["totals"]
    return f"{100 * totals['stage_s']['embed'] / totals['extract_s']:.0f} %"


def _latency_appends_per_core() -> str:
    latency = results("latency")
    cores = int(latency["machine"].split()[0])
    return f"{latency['append_throughput_per_s'] / cores:,.0f}"


def _faults_retried_share() -> str:
    appends = lookup("faults", "rows[scenario=appends]")
    return f"{100 * appends['extra']['deliberate_retries'] / appends['acknowledged']:.0f} %"


INLINE: dict[str, Callable[[], str]] = {
    "extraction-units": _extraction_units,
    "extraction-embed-share": _extraction_embed_share,
    "latency-appends-per-core": _latency_appends_per_core,
    "faults-retried-share": _faults_retried_share,
}


# --- Tables ----------------------------------------------------------------------------------


TIMES = "\N{MULTIPLICATION SIGN}"  # the tables write "SIGKILL", this sign, "3"


def _faults_label(row: dict[str, Any]) -> str:
    extra = row["extra"]
    if row["scenario"] == "appends":
        return (f"appends: {extra['clients']} clients, {row['acknowledged']:,} turns, "
                f"{_faults_retried_share()} sent twice")  # fmt: skip
    if row["scenario"] == "worker_kill":
        return f"worker_kill: SIGKILL {TIMES}{extra['kills']} mid-extraction, restarted"
    if row["scenario"] == "redis":
        return f"redis: killed, down {extra['redis_down_s']:g} s, restarted from its AOF"
    if row["scenario"] == "postgres":
        return f"postgres: stopped {extra['postgres_down_s']:g} s, started again"
    if row["scenario"] == "model":
        # The scenario's script (bench/faults/scenarios/model.py), not a measurement.
        return f"model: garbage {TIMES}2, then hangs 8 s"
    return str(row["scenario"])


def _faults_table() -> str:
    lines = [
        "| scenario | requests | acknowledged | stored | lost | duplicates | 5xx | 503 | recovery |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for row in results("faults")["rows"]:
        requests = f"{row['requests']:,}" + (" runs" if row["scenario"] == "worker_kill" else "")
        recovery = "—" if row["recovery_s"] is None else f"{row['recovery_s']:g} s"
        lines.append(
            f"| {_faults_label(row)} | {requests} | {row['acknowledged']:,} | {row['stored']:,} "
            f"| **{row['lost']:,}** | {row['duplicates']:,} | {row['server_errors']:,} "
            f"| {row['unavailable']:,} | {recovery} |"
        )
    return "\n".join(lines)


# Budgets from DESIGN §4: (percentile, at most ms) per endpoint.
LATENCY_TARGETS = {
    "session_start": ("session start", [("p50", 2), ("p99", 6)]),
    "turn_append": ("turn append", [("p50", 3), ("p99", 10)]),
    "context": ("context", [("p50", 5)]),
}


def _latency_table() -> str:
    latency = results("latency")
    lines = [
        "| endpoint | p50 | p95 | p99 | app p50 | db p50 | target |",
        "|---|---|---|---|---|---|---|",
    ]
    for key, (label, targets) in LATENCY_TARGETS.items():
        row = latency[key]
        cells = [
            f"{row[c]:.2f} ms" for c in ("p50_ms", "p95_ms", "p99_ms", "app_p50_ms", "db_p50_ms")
        ]
        met = ", ".join(
            f"{p} ≤ {limit} {'✓' if row[f'{p}_ms'] <= limit else '✗'}" for p, limit in targets
        )
        lines.append(f"| {label} | {' | '.join(cells)} | {met} |")
    return "\n".join(lines)


def _extraction_table() -> str:
    totals = results("extraction")["totals"]
    stages = totals["stage_s"]
    named = {"embed": "embedding", "dedup": "dedup", "write": "writes"}
    rest = max(v for k, v in stages.items() if k not in named)
    met = "✓" if totals["extract_s"] <= 60 else "✗"
    rows = [
        ("turns", f"{totals['turns']:,} in 128 sessions (the five dev conversations)"),
        ("extraction wall time", f"**{totals['extract_s']:.1f} s** (target ≤ 60 s {met}): "
         f"{totals['per_1000_turns_s']:.1f} s per 1,000 turns, {totals['turns_per_s']:.0f} turns/s"),
        ("memory units", f"{_extraction_units()} ({totals['acus_per_turn']:.2f} per turn); "
         f"{totals['duplicates_dropped']:,} near-duplicates dropped; "
         f"{totals['atomicity_rejects']:,} atomicity rejects"),
        ("facts", f"{totals['facts']:,} (the general-assistant schema: name, city, job, language, "
         "goal, mood)"),
        ("assembled blocks stating a superseded value as current",
         f"{totals.get('blocks_contradicted', 0)} of {totals.get('blocks', 0)} (target < 0.5 %; the "
         "session-start block and eleven `/v1/context` packs per conversation)"),
        ("peak memory", f"{totals['peak_rss_mb']:.0f} MB (the whole process: Django, "
         "onnxruntime, the model)"),
        ("where the time goes", ", ".join(f"{label} {stages[k]:.1f} s" for k, label in named.items())
         + f", everything else < {max(1, round(rest + 0.5))} s"),
    ]  # fmt: skip
    return "\n".join(["| figure | value |", "|---|---|"] + [f"| {a} | {b} |" for a, b in rows])


def _locomo_table() -> str:
    from bench.locomo.report import markdown  # the table `python -m bench.locomo.report` prints

    return markdown(results("locomo"))


def _scenarios_table() -> str:
    """The scenario suites side by side: what `make bench-scenarios` printed for each."""
    suites = [("development", "scenarios"), ("second development", "scenarios_dev2"),
              ("third development (qualifiers)", "scenarios_dev3"),
              ("first held-out (read since 2026-12-04)", "scenarios_holdout"),
              ("held out (blind, 2026-12-04)", "scenarios_holdout2"),
              ("fourth development (blind at its first run, 2026-12-05)", "scenarios_dev4")]  # fmt: skip
    runs = [(label, results(name)) for label, name in suites]

    def pct(figures: dict[str, Any], check: str) -> str:
        c = figures["checks"][check]
        return f"{c['pct']:.1f} % ({c['right']} / {c['n']})"

    rows = [
        ("conversations / turns / domains", lambda r: f"{r['conversations']} / {r['turns']:,} / {r['domains']}", ""),
        ("current value right", lambda r: pct(r["figures"], "current"), "≥ 90 %"),
        ("superseded values shown as current", lambda r: str(r["figures"]["superseded_shown_as_current"]), "0"),
        ("someone else's / rejected values shown", lambda r: "{foreign} / {rejected}".format(
            **r["figures"]["not_current_shown_by_kind"]), ""),
        ("`as_of` right", lambda r: pct(r["figures"], "as_of"), "≥ 90 %"),
        ("`known_at` right", lambda r: pct(r["figures"], "known_at"), ""),
        ("source right", lambda r: pct(r["figures"], "source"), "≥ 90 %"),
        ("facts written from no-write turns", lambda r: str(r["figures"]["no_write_facts"]), "0"),
        ("assembled blocks with a contradiction", lambda r: "{blocks_with_contradiction} / {blocks} = "
         "{contradiction_blocks_pct:.1f} %".format(**r["figures"]), "< 0.5 %"),
        ("extraction time (all sessions, real server and worker)", lambda r: f"{r['extraction_seconds']:.0f} s", ""),
    ]  # fmt: skip
    head = "| figure | " + " | ".join(label for label, _ in runs) + " | target |"
    lines = [head, "|---" * (len(runs) + 2) + "|"]
    for name, cell, target in rows:
        lines.append(f"| {name} | " + " | ".join(cell(r) for _, r in runs) + f" | {target} |")
    return "\n".join(lines)


def _anaphora_table() -> str:
    """Referent recall@8 on every probe set, side by side (`make bench-anaphora`, one file each)."""
    sets = [("first set, split the rules were written on (5 domains)", "anaphora", "tune"),
            ("first set, held out (4 domains; read since 2026-12-06)", "anaphora", "held_out"),
            ("fresh_a (18 domains; blind when written, tuned on since)", "anaphora-fresh_a", "fresh"),
            ("fresh_b (19 domains; blind for three runs, tuned on since)", "anaphora-fresh_b", "fresh_b"),
            ("fresh_c (20 domains; blind for three runs, tuned on since)", "anaphora-fresh_c", "fresh_c"),
            ("fresh_d (20 domains; blind for two runs, tuned on since)", "anaphora-fresh_d", "fresh_d"),
            ("fresh_e (20 domains; blind for three runs, tuned on since)", "anaphora-fresh_e", "fresh_e"),
            ("fresh_f (20 domains; blind for two runs, tuned on since)", "anaphora-fresh_f", "fresh_f"),
            ("fresh_g (20 domains; blind for three runs, tuned on since)", "anaphora-fresh_g", "fresh_g"),
            ("fresh_h (20 domains; blind for four runs, tuned on since)", "anaphora-fresh_h", "fresh_h"),
            ("fresh_i (20 domains; blind for two runs, tuned on since; referents nearer)", "anaphora-fresh_i", "fresh_i"),
            ("fresh_j (20 domains, a voice agent's calls; blind for two runs, tuned on since)", "anaphora-fresh_j", "fresh_j"),
            ("fresh_k (20 domains, chat with agents in apps; blind for three runs, tuned on since)", "anaphora-fresh_k", "fresh_k"),
            ("**fresh_l (20 domains, messaging a business; never read)**", "anaphora-fresh_l", "fresh_l"),
            ("**fresh_m (20 domains, professionals' work assistants; never read)**", "anaphora-fresh_m", "fresh_m"),
            ("**fresh_n (20 domains, a phone assistant, non-native English; never read)**", "anaphora-fresh_n", "fresh_n")]  # fmt: skip
    lines = ["| probe set | probes | Handover | in the context at all | search | recent turns |",
             "|---|---|---|---|---|---|"]  # fmt: skip
    for label, name, split in sets:
        row = results(name)["recall"][split]
        lines.append(f"| {label} | {row['probes']} | {row['handover']:.3f} | "
                     f"{row['handover_in_context']:.3f} | {row['search']:.3f} | {row['recent']:.3f} |")  # fmt: skip
    return "\n".join(lines)


def _anaphora_kinds() -> str:
    """The never-read sets by kind of reference."""
    names = ["fresh_l", "fresh_m", "fresh_n"]
    runs = [results(f"anaphora-{name}")["recall"] for name in names]
    lines = [
        "| kind | probes (l / m / n) | Handover, l / m / n | search, l / m / n |",
        "|---|---|---|---|",
    ]
    for kind in runs[0]:
        if kind == "all" or kind.startswith("fresh_"):
            continue
        cells = [run[kind] for run in runs]
        probes = " / ".join(str(c["probes"]) for c in cells)
        handover = " / ".join(f"{c['handover']:.3f}" for c in cells)
        search = " / ".join(f"{c['search']:.3f}" for c in cells)
        lines.append(f"| {kind} | {probes} | {handover} | {search} |")
    return "\n".join(lines)


def _anaphora_detect() -> str:
    """Which rule each hand-written line reaches (`python -m bench.anaphora.detect`)."""
    found = results("anaphora-detect")
    kinds = list(found["detect_a"]["per_kind"])
    lines = ["| kind | " + " | ".join(f"{name} ({'read' if name == 'detect_a' else 'blind'})" for name in found) + " |",
             "|---" * (len(found) + 1) + "|"]  # fmt: skip
    for kind in kinds:
        cells = [
            f"{run['per_kind'][kind]['right']} / {run['per_kind'][kind]['lines']}"
            for run in found.values()
        ]
        label = "none (left alone)" if kind == "none" else kind
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    lines.append("| **all references, right kind** | " + " | ".join(
        f"**{run['right_kind']} / {run['references']}**" for run in found.values()) + " |")  # fmt: skip
    return "\n".join(lines)


BLOCKS: dict[str, Callable[[], str]] = {
    "anaphora-table": _anaphora_table,
    "anaphora-kinds": _anaphora_kinds,
    "anaphora-detect": _anaphora_detect,
    "scenarios-table": _scenarios_table,
    "extraction-table": _extraction_table,
    "locomo-table": _locomo_table,
    "faults-table": _faults_table,
    "latency-table": _latency_table,
}


# --- Rewriting and checking ------------------------------------------------------------------


def documents() -> list[Path]:
    return sorted({path for pattern in DOCUMENTS for path in ROOT.glob(pattern)})


def render(text: str) -> str:
    text = INLINE_SPAN.sub(
        lambda m: f"<!-- fig {m['args']} -->{inline(m['args'])}<!-- /fig -->", text
    )
    return BLOCK_SPAN.sub(lambda m: f"{m['open']}{BLOCKS[m['name']]()}\n{m['close']}", text)


def disagreements(text: str) -> list[str]:
    """Each span whose text is not what the results files say: 'found → expected'."""
    out = []
    for match in INLINE_SPAN.finditer(text):
        expected = inline(match["args"])
        if match["value"] != expected:
            out.append(f"fig {match['args']}: {match['value']!r} → {expected!r}")
    for match in BLOCK_SPAN.finditer(text):
        expected = BLOCKS[match["name"]]() + "\n"
        if match["body"] != expected:
            out.append(f"figs {match['name']}: the block differs from its results file")
    return out


def spans(text: str) -> int:
    return len(INLINE_SPAN.findall(text)) + len(BLOCK_SPAN.findall(text))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.docs_figures", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
    parser.add_argument(
        "--check", action="store_true", help="change nothing; exit 1 on a difference"
    )
    args = parser.parse_args(argv)
    differ = 0
    for path in documents():
        text = path.read_text()
        wrong = disagreements(text)
        differ += len(wrong)
        for line in wrong:
            print(f"{path.relative_to(ROOT)}: {line}")
        if wrong and not args.check:
            path.write_text(render(text))
    if args.check:
        return 1 if differ else 0
    print(f"{differ} figure(s) rewritten from {RESULTS.relative_to(ROOT)}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
