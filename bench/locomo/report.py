"""The printed tables and the chart of a results dict (bench/results/locomo.json)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench.locomo.metrics import BUDGETS, CATEGORIES, KS

NAMES = {
    "handover": "Handover k=10",
    "handover_k50": "Handover k=50",
    "dense": "dense",
    "bm25": "BM25",
    "rrf": "RRF(dense,BM25)",
    "recent": "recent",
}
CATEGORY_NAMES = {"1": "multi-hop", "2": "temporal", "3": "open-domain", "4": "single-hop"}
COLUMNS = [
    *(f"recall@{k}" for k in KS),
    *(f"hit@{k}" for k in KS),
    *(f"all@{k}" for k in KS),
    *(f"recall@{b}t" for b in BUDGETS),
]
BASELINES = ("dense", "bm25", "rrf", "recent")


def short(column: str) -> str:
    """recall@8 → R@8, hit@8 → H@8, all@8 → A@8, recall@800t → R≤800t."""
    name, at = column.split("@")
    return f"R≤{at}" if at.endswith("t") else f"{name[0].upper()}@{at}"


def bucket(results: dict[str, Any], system: str, category: str) -> dict[str, Any]:
    scores = results["systems"].get(system, {})
    if not scores:
        return {}
    return scores if category == "all" else scores["by_category"].get(category, {})


def losses(results: dict[str, Any]) -> list[str]:
    """Every figure where a baseline beats the service: @k against Handover at k = 10, the
    budgets against Handover at k = 50 (the one asked for enough results)."""
    out = []
    for category in ("all", *CATEGORIES):
        for column in COLUMNS:
            ours = "handover_k50" if column.endswith("t") else "handover"
            mine = bucket(results, ours, category).get(column)
            if mine is None:
                continue
            better = [
                f"{NAMES[b]} {bucket(results, b, category)[column]:.3f}"
                for b in BASELINES
                if bucket(results, b, category).get(column, 0.0) > mine
            ]
            if better:
                where = "overall" if category == "all" else f"cat {category}"
                out.append(f"{where} {column}: Handover {mine:.3f} < " + ", ".join(better))
    return out


def report(results: dict[str, Any], out: Path) -> None:
    systems = list(results["systems"])
    for category in ("all", *CATEGORIES):
        first = bucket(results, systems[0], category)
        if not first:
            continue
        title = (
            "all categories" if category == "all" else f"cat {category} {CATEGORY_NAMES[category]}"
        )
        print(f"\n{title} ({first['questions']} questions)")
        print(f"{'':<16}" + "".join(f"{short(c):>8}" for c in COLUMNS))
        for system in systems:
            row = bucket(results, system, category)
            print(f"{NAMES.get(system, system):<16}" + "".join(f"{row[c]:>8.3f}" for c in COLUMNS))
    print("\nwithin a budget: mean results handed over / share of questions whose ranking "
          "held more than the budget")  # fmt: skip
    for system in systems:
        row = results["systems"][system]
        print(f"{NAMES.get(system, system):<16}" + "".join(
            f"  {b}t {row[f'results@{b}t']:5.1f} / {row[f'filled@{b}t']:.2f}" for b in BUDGETS))  # fmt: skip
    lost = losses(results)
    print(f"\nwhere a baseline beats Handover ({len(lost)} figures):")
    for line in lost:
        print(f"  {line}")
    s, s50 = results["search_ms"], results["search_k50_ms"]
    print(f"\nquestions {results['questions']} · {results['bm25']} · top 10 unchanged at k=50: "
          f"{results['same_top10_at_k50']:.1%}\nsearch k=10 p50 {s['p50']} ms, p95 {s['p95']} ms, "
          f"p99 {s['p99']} ms (target p95 ≤ 15 ms) · k=50 p50 {s50['p50']}, p95 {s50['p95']} ms"
          f"\nsession-start block / full history {results['context_tokens_ratio']:.2%} "
          f"(target ≤ 2 %) · prefix reuse {results['prefix_reuse_ratio']} (target ≥ 70 %) "
          f"· recall@8 target ≥ 0.80, every category above every baseline")  # fmt: skip
    cover = results["block_answer_coverage"]
    print(
        "answers in the session-start block (whole / their words): Handover "
        f"{cover['handover']['whole']:.1%} / {cover['handover']['words']:.1%}, the last turns in "
        f"as many tokens {cover['last_turns_same_tokens']['whole']:.1%} / "
        f"{cover['last_turns_same_tokens']['words']:.1%}"
    )
    print(f"wrote {out / 'locomo.json'}, {out / 'locomo.rankings.jsonl'} and {out / 'locomo.png'}")


def chart(results: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (left, right) = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    for system, r in results["systems"].items():
        name = NAMES.get(system, system)
        left.plot(KS, [r[f"recall@{k}"] for k in KS], marker="o", label=name)
        right.plot(BUDGETS, [r[f"recall@{b}t"] for b in BUDGETS], marker="o", label=name)
    left.set_xlabel("k")
    left.set_ylabel("evidence recall (cat 1-4)")
    left.set_xticks(KS)
    right.set_xlabel("token budget of returned text")
    right.set_xticks(BUDGETS)
    for axis in (left, right):
        axis.set_ylim(0, 1)
        axis.grid(alpha=0.3)
    right.legend(fontsize="small")
    figure.tight_layout()
    figure.savefig(path, dpi=110)


MARKDOWN_COLUMNS = ["recall@1", "recall@5", "recall@8", "recall@10", "hit@8", "all@8",
                    *(f"recall@{b}t" for b in BUDGETS)]  # fmt: skip
MARKDOWN_ROWS = {
    "handover": "**Handover search**",
    "dense": "dense (date + speaker + text)",
    "bm25": "BM25 (same text)",
    "rrf": "RRF of dense and BM25",
    "recent": "the last turns",
}


def markdown(results: dict[str, Any]) -> str:
    """The README's tables, overall then per category: Handover at k = 10 in the @k columns
    and at k = 50 in the budget columns, against each baseline; the best of each column bold."""
    head = [
        f"≤ {int(c.split('@')[1][:-1]):,} tok" if c.endswith("t") else short(c)
        for c in MARKDOWN_COLUMNS
    ]
    lines = ["| | " + " | ".join(head) + " |", "|---" * (len(head) + 1) + "|"]
    for category in ("all", *CATEGORIES):
        if not bucket(results, "handover", category):
            continue
        values = {
            system: [
                bucket(results, f"{system}_k50" if column.endswith("t") and system == "handover"
                       else system, category)[column]
                for column in MARKDOWN_COLUMNS
            ]
            for system in MARKDOWN_ROWS
        }  # fmt: skip
        best = [max(column) for column in zip(*values.values(), strict=True)]
        if category != "all":
            n = bucket(results, "handover", category)["questions"]
            title = f"cat {category} {CATEGORY_NAMES[category]} ({n})"
            lines.append(f"| *{title}* |" + " |" * len(head))
        for system, label in MARKDOWN_ROWS.items():
            cells = [
                f"**{v:.3f}**" if v == top else f"{v:.3f}"
                for v, top in zip(values[system], best, strict=True)
            ]
            lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    import json
    import sys

    from bench.locomo import RESULTS

    path = Path(sys.argv[1]) if len(sys.argv) > 1 else RESULTS / "locomo.json"
    print(markdown(json.loads(path.read_text())))
