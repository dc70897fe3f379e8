"""The anaphora benchmark's summary, for any probe file's splits (the blind sets have one)."""

from __future__ import annotations

from typing import Any

from bench.anaphora.__main__ import summarise


def _row(split: str, kind: str, handover: float) -> dict[str, object]:
    return {"split": split, "kind": kind,
            "recall": {"handover": handover, "handover_in_context": handover, "search": 0.0, "recent": 0.0}}  # fmt: skip


def test_a_file_with_one_split_of_its_own_is_summarised() -> None:
    out = summarise([_row("fresh_c", "other", 1.0), _row("fresh_c", "usual", 0.0)])
    assert list(out) == ["all", "fresh_c", "other", "usual"]
    assert out["fresh_c"] == out["all"] and out["all"]["handover"] == 0.5
    assert out["usual"]["probes"] == 1


def test_the_first_sets_splits_come_first() -> None:
    out = summarise([_row("held_out", "that", 1.0), _row("tune", "that", 0.0)])
    assert list(out)[:3] == ["all", "tune", "held_out"]


def test_a_file_with_more_fact_keys_than_one_schema_holds_is_split_across_agents() -> None:
    from bench.anaphora.__main__ import MAX_FIELDS, _agents

    def conversation(n: int) -> dict[str, Any]:
        return {"id": f"c{n}", "facts": [{"key": f"k{n}_{i}", "value": "v"} for i in range(60)]}

    small = {"fact_fields": ["a"], "conversations": [conversation(0), conversation(1)]}
    assert set(_agents(small).values()) == {"anaphora"}  # the sets so far: one agent, as before
    conversations = [conversation(n) for n in range(7)]  # 420 keys
    big = {"fact_fields": [f["key"] for c in conversations for f in c["facts"]], "conversations": conversations}  # fmt: skip
    agents = _agents(big)
    assert len(agents) == 7 and len(set(agents.values())) == 3
    for slug in set(agents.values()):
        keys = {f["key"] for c in conversations if agents[c["id"]] == slug for f in c["facts"]}
        assert len(keys) <= MAX_FIELDS


def test_the_runner_fit_weighs_the_feature_that_marks_the_referent() -> None:
    import numpy as np

    from bench.anaphora.fit import _fit

    rng = np.random.default_rng(3)
    X = rng.normal(size=(400, 3)) * [1.0, 5.0, 1.0]
    y = (X[:, 1] + rng.normal(scale=0.5, size=400) > 2.0).astype(float)  # the second says it
    w = _fit(X, y)
    assert w[1] > 0.5 and abs(w[0]) < w[1] / 3 and abs(w[2]) < w[1] / 3


def test_the_runner_fit_runs_on_a_probe_file(tmp_path: Any, capsys: Any) -> None:
    import json

    from bench.anaphora.fit import main
    from memory.search.reference_candidates import FACT_FEATURES, RUNNER_FEATURES

    talk = [("user", "Can you book the blue room for Friday at ten for our quarterly review meeting?"),
            ("assistant", "Booked: the blue room, Friday 10:00 to 12:00, with the projector and the coffee."),
            ("user", "thanks"), ("assistant", "Anything else?"), ("user", "no that's all, lovely weather today"),
            ("assistant", "It is!")]  # fmt: skip
    conversation = {"id": "c1", "split": "x", "domain": "rooms", "kind": "again",
                    "participants": {"user": "Ana", "assistant": "Desk"}, "prior": [],
                    "turns": [{"role": r, "text": t} for r, t in talk],
                    "probe": "do that again for the green room", "gold_turns": [{"session": "current", "index": 1}],
                    "gold_facts": [], "facts": []}  # fmt: skip
    other = dict(conversation, id="c2", gold_turns=[{"session": "current", "index": 4}])
    facts = [{"key": "payment_card", "value": "Visa ending 2210"}, {"key": "home_branch", "value": "Canal Street"}]  # fmt: skip
    usual = dict(conversation, id="c3", kind="usual", probe="put it on the card I normally use",
                 gold_turns=[], gold_facts=["payment_card"], facts=facts)  # fmt: skip
    for name, body in (("one", [conversation, usual]), ("two", [other, dict(usual, id="c4")])):
        (tmp_path / f"{name}.json").write_text(
            json.dumps({"fact_fields": [], "conversations": body})
        )
    assert main([str(tmp_path / "one.json"), str(tmp_path / "two.json")]) == 0
    out = capsys.readouterr().out
    assert "fitted without it" in out and all(f'"{name}"' in out for name in RUNNER_FEATURES)
    assert "FACT_WEIGHTS, fitted on" in out and all(f'"{name}"' in out for name in FACT_FEATURES)


def test_the_detection_benchmark_scores_lines_by_the_kind_of_rule(
    tmp_path: Any, capsys: Any
) -> None:
    import json

    from bench.anaphora.detect import score

    lines = [{"text": "do that again for the green room", "kind": "again", "style": "casual"},
             {"text": "what about the other one", "kind": "other", "style": "casual"},
             {"text": "what about the other one", "kind": "previous", "style": "casual"},
             {"text": "what's the weather in Leeds", "kind": "none", "style": "casual"}]  # fmt: skip
    (tmp_path / "d.json").write_text(json.dumps({"turns": lines}))
    result = score(tmp_path / "d.json")
    assert (result["right_kind"], result["references"]) == (2, 3)  # "the other one" is no previous
    assert (result["none_left_alone"], result["none"]) == (1, 1)
