"""What the `openai` extractor asks for (a strict JSON Schema) and what it notes about answers it
refuses, at the extractor itself against the scripted server (no database)."""

from __future__ import annotations

import datetime
from collections.abc import Iterator
from typing import Any

import pytest

from core.outbound import ModelConnection
from extraction.extractors import ExtractionFailed, Usage, WindowTurn
from extraction.extractors.openai import OpenAIExtractor, facts_json_schema
from schemas.defaults import PROPERTY_ADVISOR
from tests.scripted_model import ScriptedModel

WHEN = datetime.datetime(2026, 3, 3, 10, 0, tzinfo=datetime.UTC)
WINDOW = [
    WindowTurn(1, "s1", 1, "user", "My budget is 80 lakhs.", WHEN, "Priya", "the assistant"),
    WindowTurn(2, "s1", 2, "user", "We move in on 1 June.", WHEN, "Priya", "the assistant"),
]


@pytest.fixture
def model() -> Iterator[ScriptedModel]:
    server = ScriptedModel()
    yield server
    server.close()


def _extractor(model: ScriptedModel) -> OpenAIExtractor:
    connection = ModelConnection("scripted", model.url, allow_private=True)
    return OpenAIExtractor(model="m", connection=connection, timeout=2)


def _objects(schema: Any) -> Iterator[dict[str, Any]]:
    if isinstance(schema, dict):
        if schema.get("type") == "object":
            yield schema
        for value in schema.values():
            yield from _objects(value)
    elif isinstance(schema, list):
        for value in schema:
            yield from _objects(value)


def test_the_facts_schema_is_strict_and_types_each_value_by_its_key() -> None:
    schema = facts_json_schema(PROPERTY_ADVISOR)
    objects = list(_objects(schema))
    assert len(objects) == 8  # the root, 6 fact branches (5 types, 1 enum field), money's value
    for node in objects:  # what strict mode demands of every object
        assert node["additionalProperties"] is False
        assert sorted(node["required"]) == sorted(node["properties"])
    branches = {
        tuple(b["properties"]["key"]["enum"]): b["properties"]["value"]
        for b in schema["properties"]["facts"]["items"]["anyOf"]
    }
    assert branches == {
        ("budget",): {"type": "object", "additionalProperties": False, "required": ["amount", "currency"],
                      "properties": {"amount": {"type": "number"}, "currency": {
                          "anyOf": [{"type": "string", "pattern": "^[A-Z]{3}$"}, {"type": "null"}],
                          "description": "ISO 4217 code (INR, USD), null when not said"}},
                      "description": "{amount, currency}"},
        ("family_size", "bedrooms"): {"type": "number", "description": "number"},
        ("move_in_date",): {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$", "description": "YYYY-MM-DD"},
        ("loan_preapproved",): {"type": "boolean", "description": "boolean"},
        ("name", "city", "pet", "site_visit_today"): {"type": "string", "description": "string"},
        ("property_type",): {"type": "string", "enum": ["apartment", "villa", "plot", "townhouse"],
                             "description": "a choice"},
    }  # fmt: skip


def test_each_refused_fact_is_noted_with_why(model: ScriptedModel) -> None:
    model.script("facts", ("ok", {"facts": [
        {"key": "budget", "qualifier": "", "value": {"amount": 8_000_000, "currency": "INR"}, "source": "explicit", "seq": 1},
        {"key": "budget", "qualifier": "", "value": "80 lakhs", "source": "explicit", "seq": 1},
        {"key": "move_in_date", "qualifier": "", "value": "20260601", "source": "explicit", "seq": 2},
        {"key": "move_in_date", "qualifier": "", "value": "2026-06-01", "source": "explicit", "seq": 7},
        {"key": "property_type", "qualifier": "", "value": "castle", "source": "inferred", "seq": 1},
        {"key": "salary", "qualifier": "", "value": 5, "source": "explicit", "seq": 1},
        {"key": "city", "qualifier": "", "value": "Pune", "source": "overheard", "seq": 1},
        "budget: 80 lakhs",
    ]}))  # fmt: skip
    usage = Usage()
    facts = _extractor(model).extract_facts(WINDOW, PROPERTY_ADVISOR, usage)
    assert [(f.key, f.value, f.source, f.source_turns) for f in facts] == [
        ("budget", {"amount": 8_000_000, "currency": "INR"}, "explicit", [{"session": "s1", "seq": 1}])
    ]  # fmt: skip
    assert usage.facts_invalid == 7 and usage.repairs == 0
    assert [(n["kind"], n["index"], n["key"], n["detail"]) for n in usage.notes] == [
        ("invalid_fact", 1, "budget", 'budget is money: expected a number or {"amount": number, "currency": "INR"} within ±1e+15'),
        ("invalid_fact", 2, "move_in_date", "move_in_date is date: expected YYYY-MM-DD"),
        ("invalid_fact", 3, "move_in_date", "seq 7 is not a turn of this window"),
        ("invalid_fact", 4, "property_type", "property_type is enum: expected one of apartment, villa, plot, townhouse"),
        ("invalid_fact", 5, "salary", "'salary' is not a field of the active schema (fields: name, city, family_size, pet, budget, bedrooms, property_type, move_in_date, loan_preapproved, site_visit_today)"),
        ("invalid_fact", 6, "city", 'source "overheard" is not one of explicit, confirmed, inferred'),
        ("invalid_fact", 7, None, "the fact is not an object"),
    ]  # fmt: skip
    assert usage.notes[0]["value"] == '"80 lakhs"'


def test_a_repair_and_a_fallback_are_noted(model: ScriptedModel) -> None:
    model.formats = {"json_object"}
    model.script("units", ("invalid", "On 3 March 2026, Priya's budget is 80 lakhs."),
                 ("ok", {"units": ["On 3 March 2026, Priya's budget is 80 lakhs.", 7]}))  # fmt: skip
    usage = Usage()
    units = _extractor(model).compress(WINDOW, usage)
    assert [u.text for u in units] == ["On 3 March 2026, Priya's budget is 80 lakhs."]
    assert [(n["kind"], n["detail"]) for n in usage.notes] == [
        ("fallback", "the endpoint refused response_format json_schema; using json_object+schema"),
        ("repair", "it is not JSON"),
        ("fallback", "the endpoint answered non-JSON under json_object+schema; using prompt"),
        ("invalid_item", "the unit is not a sentence"),
    ]
    assert usage.notes[1]["outcome"] == "repaired"
    assert (usage.model_calls, usage.repairs, usage.facts_invalid) == (3, 1, 0)


def test_a_malformed_answer_after_its_repair_raises_with_the_usage_and_notes(
    model: ScriptedModel,
) -> None:
    model.script("summary", ("ok", {"sentences": "Priya's budget is 80 lakhs."}),
                 ("ok", {"summary": "Priya's budget is 80 lakhs."}))  # fmt: skip
    usage = Usage()
    with pytest.raises(ExtractionFailed) as failed:
        _extractor(model).summarize(
            [], ["On 3 March 2026, Priya's budget is 80 lakhs."], 300, usage
        )
    assert str(failed.value) == (
        "the model's answer is not the JSON that was asked for (summary: 'sentences' is not a "
        "list; after one repair: it has no 'sentences' list)"
    )
    assert failed.value.usage is usage and usage.counts() == {
        "model_calls": 2, "tokens_in": 240, "tokens_out": 60, "facts_invalid": 0, "repairs": 1
    }  # fmt: skip
    assert [(n["kind"], n.get("outcome")) for n in usage.notes] == [
        ("repair", "still malformed"), ("malformed", "run failed")
    ]  # fmt: skip


def test_an_answer_cut_off_at_the_length_limit_says_so(
    model: ScriptedModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    cut = ScriptedModel.completion('{"units": ["On 3 March 2026, Priya', raw=True)
    cut["choices"][0]["finish_reason"] = "length"
    monkeypatch.setattr(ScriptedModel, "completion", staticmethod(lambda content, raw=False: cut))
    with pytest.raises(
        ExtractionFailed, match=r"units: it is not JSON \(cut off at the length limit\)"
    ):
        _extractor(model).compress(WINDOW, Usage())
    # Cut off is not the endpoint ignoring the format: the repair was asked the same way.
    assert [r["response_format"]["type"] for r in model.requests] == ["json_schema", "json_schema"]


def test_a_connection_closed_without_an_answer_is_retried() -> None:
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from extraction.extractors import RetryableError

    class Hangup(BaseHTTPRequestHandler):  # a server dying on the request (llama-cpp-python's
        def log_message(self, *args: Any) -> None:  # on a grammar it cannot parse)
            pass

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["Content-Length"]))
            self.close_connection = True

    server = ThreadingHTTPServer(("127.0.0.1", 0), Hangup)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/v1"
        extractor = OpenAIExtractor(
            model="m", connection=ModelConnection("x", url, allow_private=True)
        )
        with pytest.raises(RetryableError, match="closed the connection"):
            extractor.compress(WINDOW, Usage())
    finally:
        server.shutdown()
