"""Aggregating check records into the suite's figures (overall, per phenomenon, per domain,
per field type) and printing them. Pure."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from bench.scenarios_run.data import PHENOMENA

# Issue 15's targets for the rules extractor on this suite.
TARGETS = {
    "current_right_pct": (">=", 90.0),
    "superseded_shown_as_current": ("==", 0),
    "as_of_right_pct": (">=", 90.0),
    "source_right_pct": (">=", 90.0),
    "no_write_facts": ("==", 0),
    "contradiction_blocks_pct": ("<", 0.5),
}
VALUE_CHECKS = ("current", "not_current", "as_of", "known_at", "source", "expired", "no_write")


def _pct(right: int, n: int) -> float | None:
    return round(100 * right / n, 1) if n else None


def _tally(records: list[dict[str, Any]]) -> dict[str, Any]:
    right = sum(r["ok"] for r in records)
    return {"n": len(records), "right": right, "pct": _pct(right, len(records))}


def aggregate(records: list[dict[str, Any]]) -> dict[str, Any]:
    by_check: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for record in records:
        by_check[record["check"]].append(record)
    not_current = by_check["not_current"]
    shown = [r for r in not_current if not r["ok"]]
    blocks = by_check["block"]
    figures = {
        "current_right_pct": _tally(by_check["current"])["pct"],
        "current_in_session_start_right_pct": _tally(by_check["block_current"])["pct"],
        "superseded_shown_as_current": sum(r["kind"] == "superseded" for r in shown),
        "not_current_shown_as_current": len(shown),
        "not_current_shown_by_kind": {
            kind: sum(r["kind"] == kind for r in shown)
            for kind in ("superseded", "foreign", "rejected")
        },
        "as_of_right_pct": _tally(by_check["as_of"])["pct"],
        "known_at_right_pct": _tally(by_check["known_at"])["pct"],
        "source_right_pct": _tally(by_check["source"])["pct"],
        "no_write_facts": sum(r["facts"] for r in by_check["no_write"]),
        "no_write_turns_clean_pct": _tally(by_check["no_write"])["pct"],
        "expired_hidden_pct": _tally(by_check["expired"])["pct"],
        "expired_written": sum(r["written"] for r in by_check["expired"]),
        "blocks": len(blocks),
        "blocks_with_contradiction": sum(not r["ok"] for r in blocks),
        "contradiction_blocks_pct": _pct(sum(not r["ok"] for r in blocks), len(blocks)),
        "checks": {check: _tally(by_check[check]) for check in VALUE_CHECKS},
    }
    per_phenomenon = {}
    for tag in PHENOMENA:
        tagged = [r for r in records if r["check"] in VALUE_CHECKS and tag in r["tags"]]
        if tagged:
            per_phenomenon[tag] = {**_tally(tagged), "by_check": {
                check: _tally([r for r in tagged if r["check"] == check])
                for check in VALUE_CHECKS if any(r["check"] == check for r in tagged)}}  # fmt: skip
    domains = sorted({r["domain"] for r in records})
    per_domain = {d: {"current": _tally([r for r in by_check["current"] if r["domain"] == d]),
                      "all": _tally([r for r in records if r["domain"] == d and r["check"] in VALUE_CHECKS])}
                  for d in domains}  # fmt: skip
    types = sorted({r["type"] for r in by_check["current"]})
    per_type = {t: _tally([r for r in by_check["current"] if r["type"] == t]) for t in types}
    met = {}
    for name, (op, target) in TARGETS.items():
        value = figures[name]
        met[name] = value is not None and (
            value >= target if op == ">=" else value < target if op == "<" else value == target
        )
    return {"figures": figures, "targets": {k: f"{op} {t}" for k, (op, t) in TARGETS.items()},
            "targets_met": met, "per_phenomenon": per_phenomenon, "per_domain": per_domain,
            "per_type": per_type}  # fmt: skip


def _cell(tally: dict[str, Any] | None) -> str:
    return f"{tally['right']}/{tally['n']}" if tally else "—"


def render(summary: dict[str, Any]) -> str:
    f = summary["figures"]
    met = summary["targets_met"]
    mark = lambda name: ("✓" if met[name] else "✗") if name in met else ""  # noqa: E731
    lines = ["", "Write-lane correctness on the scenario suite", ""]
    rows = [
        ("current value right", f"{f['current_right_pct']} %", "current_right_pct"),
        ("  … in the session-start payload", f"{f['current_in_session_start_right_pct']} %", ""),
        ("superseded values shown as current", f"{f['superseded_shown_as_current']}", "superseded_shown_as_current"),
        ("  all not-current values shown (superseded / foreign / rejected)",
         f"{f['not_current_shown_as_current']} ({' / '.join(str(v) for v in f['not_current_shown_by_kind'].values())})", ""),
        ("as_of right", f"{f['as_of_right_pct']} %", "as_of_right_pct"),
        ("known_at right", f"{f['known_at_right_pct']} %", ""),
        ("source right", f"{f['source_right_pct']} %", "source_right_pct"),
        ("facts written from no-write turns", f"{f['no_write_facts']} ({f['no_write_turns_clean_pct']} % of turns clean)", "no_write_facts"),
        ("ephemeral facts hidden after expiry", f"{f['expired_hidden_pct']} % ({f['expired_written']} of them ever written)", ""),
        ("blocks with a contradiction", f"{f['blocks_with_contradiction']}/{f['blocks']} = {f['contradiction_blocks_pct']} %", "contradiction_blocks_pct"),
    ]  # fmt: skip
    for label, value, name in rows:
        target = f"target {summary['targets'][name]} {mark(name)}" if name else ""
        lines.append(f"{label:<66}{value:>24}   {target}")
    lines += [
        "",
        f"{'phenomenon':<18}{'right':>9}{'%':>7}  " + "".join(f"{c:>12}" for c in VALUE_CHECKS),
    ]
    for tag, tally in summary["per_phenomenon"].items():
        cells = "".join(f"{_cell(tally['by_check'].get(c)):>12}" for c in VALUE_CHECKS)
        lines.append(f"{tag:<18}{_cell(tally):>9}{tally['pct']:>7}  {cells}")
    lines += ["", f"{'domain':<22}{'current':>10}{'all checks':>12}"]
    for domain, tally in summary["per_domain"].items():
        lines.append(f"{domain:<22}{_cell(tally['current']):>10}{_cell(tally['all']):>12}")
    lines.append("current right by type: " + ", ".join(
        f"{t} {_cell(v)}" for t, v in summary["per_type"].items()))  # fmt: skip
    return "\n".join(lines)
