"""The benchmark figures the README and docs/ quote are those of bench/results/*.json: each sits
in a span that ``python -m bench.docs_figures`` writes from its results file (issue 19)."""

from __future__ import annotations

import pytest

from bench import docs_figures


def test_every_quoted_figure_is_its_results_files() -> None:
    found = {
        str(path.relative_to(docs_figures.ROOT)): docs_figures.disagreements(path.read_text())
        for path in docs_figures.documents()
    }
    assert {path: wrong for path, wrong in found.items() if wrong} == {}, (
        "run `python -m bench.docs_figures` after a benchmark, or fix the span"
    )


def test_the_figures_of_the_sizing_and_fault_docs_are_spans() -> None:
    # The figures these pages once copied by hand are written from the results files now.
    spans = {
        str(path.relative_to(docs_figures.ROOT)): docs_figures.spans(path.read_text())
        for path in docs_figures.documents()
    }
    assert spans["docs/faults.md"] >= 39
    assert spans["docs/deploy.md"] >= 15
    assert spans["README.md"] >= 30


def test_a_span_that_disagrees_is_found_and_rewritten() -> None:
    text = (
        'p50 <!-- fig latency session_start.p50_ms .2f " ms" -->1.00 ms<!-- /fig --> and\n'
        "<!-- figs faults-table -->\n| old table |\n<!-- /figs -->\n"
    )
    expected = docs_figures.inline('latency session_start.p50_ms .2f " ms"')
    assert docs_figures.disagreements(text) == [
        f"fig latency session_start.p50_ms .2f \" ms\": '1.00 ms' → {expected!r}",
        "figs faults-table: the block differs from its results file",
    ]
    rendered = docs_figures.render(text)
    assert docs_figures.disagreements(rendered) == []
    assert f"-->{expected}<!--" in rendered and "| old table |" not in rendered


@pytest.mark.parametrize(
    ("path", "value"),
    [
        ("rows[scenario=redis].extra.caches_current_after", "16/16"),
        ("rows[scenario=appends].acknowledged", 20_000),
        ("rows.0.scenario", "appends"),
    ],
)
def test_paths_select_list_items_by_field_or_index(path: str, value: object) -> None:
    assert docs_figures.lookup("faults", path) == value


def test_the_faults_results_are_a_full_run() -> None:
    # A --quick or partial run writes var/faults-partial.json, never the file the docs quote.
    faults = docs_figures.results("faults")
    assert faults["quick"] is False
    assert [r["scenario"] for r in faults["rows"]] == [
        "appends", "worker_kill", "redis", "postgres", "model",
    ]  # fmt: skip
