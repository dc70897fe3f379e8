"""Exchanges an independent review wrote against the eleventh session's readings (a field's word
in a title or a name, answers cut at a verb, "where did you get …", a price "for 90", another
thing's price, what the agent told before a question the user turns down), each one read wrong
by the code before them or by their first version: "Office is in Reading now", "Let It Be", "Where
did you hear about us?", "Express at £9.99 please", "The car is £45 a day", "The extended
warranty costs £89. Would you like to add it?" — "No", "If you cancelled today, the refund would
be £120" … (review_titles_and_asides.json keeps them as the reviewer wrote them); and a second
review's of the date ranges ("from the 3rd to the 10th of April", decoys: "Induction is 1-3
April", "I'm on holiday 12-19 April", "It was 5-9 March last time"; review_ranges.json)."""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from typing import Any

import pytest

from extraction.extractors import Usage, WindowTurn
from extraction.extractors.rules import RulesExtractor

_HERE = Path(__file__).parent
_CASES = [case for name in ("review_titles_and_asides.json", "review_ranges.json")
          for case in json.loads((_HERE / name).read_text())["cases"]]  # fmt: skip
_START = "2026-03-02T10:00:00+00:00"
_CURRENCIES = ("GBP", "USD", "EUR", "INR", "AUD")


def _norm(value: Any) -> Any:
    if isinstance(value, dict) and "amount" in value:
        return f"{value.get('currency')} {float(value['amount']):g}".lower()
    if isinstance(value, str):
        if value.split(" ")[0] in _CURRENCIES:
            return f"{value.split(' ')[0]} {float(value.split(' ')[1]):g}".lower()
        return value.strip().rstrip(".").lower()
    return value


def _wrong(expect: dict[str, Any], got: dict[str, Any]) -> list[str]:
    """The keys read otherwise than the reviewer expects (None or "!": not written; "!x": not
    holding x; "~x": written, holding x)."""
    bad = []
    for key, want in expect.items():
        if want is None:
            bad += [key] if key in got else []
        elif isinstance(want, str) and want.startswith("!"):
            bad += (
                [key]
                if key in got and (want == "!" or want[1:].lower() in str(_norm(got[key])))
                else []
            )
        elif isinstance(want, str) and want.startswith("~"):
            bad += [key] if key not in got or want[1:].lower() not in str(_norm(got[key])) else []
        elif key not in got or _norm(got[key]) != _norm(want):
            bad.append(key)
    return bad


@pytest.mark.parametrize("case", _CASES, ids=[c["name"] for c in _CASES])
def test_the_reviewers_exchange_is_read_as_expected(case: dict[str, Any]) -> None:
    start = datetime.datetime.fromisoformat(case.get("start") or _START)
    window = [
        WindowTurn(i, "s", i, "user" if role == "u" else "assistant", text,
                   start + datetime.timedelta(seconds=30 * i), "User" if role == "u" else "Agent",
                   "Agent" if role == "u" else "User")
        for i, (role, text) in enumerate(case["turns"])
    ]  # fmt: skip
    facts = RulesExtractor().extract_facts(window, case["fields"], Usage(), case.get("known") or {})
    got = {f.key: f.value for f in facts}
    assert _wrong(case["expect"], got) == [], got
