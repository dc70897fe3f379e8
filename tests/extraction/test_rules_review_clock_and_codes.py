"""Exchanges an independent review wrote against the tenth session's readings (the user's clock,
numbers that name, readings near a held value, values said back, other occasions' dates), each
one the first version of those readings got wrong: a place named once beside the clock, "claim
£2500", "The whole order, £1250", "my policy is 1800 pounds", a date or a phone number in a
reply about a staff ID, letter-only booking references, "I can come in to try it on, but
deliver it", the engineer's "He can come on Thursday", "a deposit, $50. Sound good?", a dose,
a price or a temperature near a held weight, a contract's end said back as a start date …
(review_clock_and_codes.json keeps them, with their schemas, as the reviewer wrote them)."""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from typing import Any

import pytest

from extraction.extractors import Usage, WindowTurn
from extraction.extractors.rules import RulesExtractor
from schemas.validation import fact_key_parse, fact_value_validate

_DOC = json.loads((Path(__file__).parent / "review_clock_and_codes.json").read_text())
_START = "2026-03-10T10:00:00+00:00"


def _norm(value: Any) -> Any:
    if isinstance(value, dict):
        amount = value.get("amount")
        return ("money", None if amount is None else float(amount), value.get("currency"))
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        text = value.strip().lower().rstrip(".!")
        for lead in ("the ", "a ", "an ", "my "):
            text = text.removeprefix(lead)
        return text
    return value


@pytest.mark.parametrize("case", _DOC["cases"], ids=[c["name"] for c in _DOC["cases"]])
def test_the_reviewers_exchange_is_read_as_written(case: dict[str, Any]) -> None:
    fields = case.get("fields") or _DOC["schemas"][case["schema"]]
    start = datetime.datetime.fromisoformat(case.get("start") or _START)
    window = [
        WindowTurn(i, "s", i, "user" if role == "u" else "assistant", text,
                   start + datetime.timedelta(minutes=i), "Sam Lee" if role == "u" else "Divya",
                   "Divya" if role == "u" else "Sam Lee")
        for i, (role, text) in enumerate(case["turns"])
    ]  # fmt: skip
    known = case.get("known") or {}
    texts = {k: v if isinstance(v, str) else fact_value_validate(fact_key_parse(k, fields)[0], v)[1]
             for k, v in known.items()}  # fmt: skip
    wrote = {
        f.key: f.value
        for f in RulesExtractor().extract_facts(window, fields, Usage(), texts or None)
    }
    after, expected = {**known, **wrote}, {**known, **case["want"]}
    alternatives = case.get("alt") or {}
    for key in set(expected) | set(wrote):
        accepted = [expected.get(key), *alternatives.get(key, [])]
        got = after.get(key)
        assert any(
            (a is None and got is None)
            or (a is not None and got is not None and _norm(a) == _norm(got))
            for a in accepted
        ), f"{key}: {got!r}, expected one of {accepted!r}"
