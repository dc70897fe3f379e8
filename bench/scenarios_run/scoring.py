"""Scoring one conversation's reads against its expectations, and the contradiction check.
Pure: the runner hands in what the API returned.

**A contradiction** is a value the conversation says is no longer current (a ``not_current``
expectation) stated as current in an assembled context: the session-start block or a
``/v1/context`` pack. Only the parts that speak for memory count — pinned, profile, current
facts, possibilities and the summary; the recent-conversation and retrieved sections quote
dated turns and memory units, which are history by construction.

- A fact line (``- budget: ₹50 lakh (as of …)``) contradicts when its key is the expectation's
  key (qualifier case-insensitive) and its value text states the value (any kind: superseded,
  someone else's, or a proposal never accepted).
- A summary sentence contradicts when it states a *superseded* value of the user's own (a
  distractor rightly summarised as the cousin's is no contradiction), unless the sentence marks
  it as history ("until 9 March", "previously", "changed from ₹50 lakh to ₹80 lakh", …).
  Values that are not distinctive alone ("3", "IB") and dates need a word of the field's key
  in the sentence; the "On 2 March 2026," that dates a summary sentence is not a value; a
  value negated in place ("90 days, not 60") is history; booleans are never looked for in
  prose; a stale value equal to a current expected value of the conversation, or (a string)
  part of the same key's current value ("Bandra West" in "Bandra West and Khar West"), is
  skipped: the sentence may be about that one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from bench.scenarios_run.compare import (
    distinctive,
    norm_key,
    value_equal,
    value_matches,
    value_spans,
)
from bench.scenarios_run.data import Scenario

ASSERTING = {"Pinned", "Profile", "Current facts", "Possibilities"}
SUMMARY = "Summary of earlier conversations"
FACT_LINE = re.compile(r"^- (?P<label>.+?): (?P<value>.+) \(as of \d{4}-\d{2}-\d{2}[^)]*\)$")
HISTORY = re.compile(
    r"\b(until|till|previously|formerly|earlier|originally|initially|at first|no longer|"
    r"used to|not any ?more|instead of|rather than|changed from|replaced|superseded|"
    r"revised from|before that|was once|old value)\b",
    re.I,
)
# How the summary dates its sentences ("On 2 March 2026, Priya said: …"): not a stated value.
DATED = re.compile(r"^\s*On \d{1,2} [A-Z][a-z]+ \d{4}, ")


@dataclass
class Reads:
    """What the runner read for one conversation after its last extraction run."""

    sessions: dict[int, str]  # session number → session uuid
    current: list[dict[str, Any]]
    timeline: list[dict[str, Any]]  # status=any: every version ever written
    as_of: dict[str, list[dict[str, Any]]]  # the expectation's "at" → entities then
    known_at: dict[int, list[dict[str, Any]]]  # after_session → entities known then
    start: dict[str, Any]  # the session-start payload
    blocks: dict[str, str] = field(default_factory=dict)  # name → assembled text


def sections(text: str) -> dict[str, list[str]]:
    """``## Heading`` → its lines (a block's sections)."""
    out: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        if line.startswith("## "):
            name = re.sub(r"\s*\(.*\)$", "", line[3:]).strip()
            current = out.setdefault(name, [])
        elif current is not None and line.strip():
            current.append(line)
    return out


def fact_lines(text: str) -> list[tuple[str, str, str]]:
    """(section, key, value text) of every fact line in the asserting sections."""
    out = []
    for name, lines in sections(text).items():
        if name not in ASSERTING:
            continue
        for line in lines:
            match = FACT_LINE.match(line)
            if match:
                label = match.group("label")
                qualified = re.fullmatch(r"(.+?) \((.+)\)", label)
                key = f"{qualified.group(1)}:{qualified.group(2)}" if qualified else label
                out.append((name, norm_key(key), match.group("value")))
    return out


def _history_marked(sentence: str, start: int, end: int) -> bool:
    if HISTORY.search(sentence):
        return True
    before = sentence[:start]
    if re.search(r"\bnot\W*$", before):
        return True
    return bool(re.search(r"\bfrom\W*$", before) and re.match(r"\s*to\b", sentence[end:]))


def contradictions(
    text: str,
    stale: list[dict[str, Any]],
    types: dict[str, str],
    keep: list[tuple[str, str, Any]] | None = None,
) -> list[dict[str, Any]]:
    """Findings in one assembled block. ``stale``: not_current expectations; ``types``: field
    key → type; ``keep``: (key, type, value) of the conversation's current expectations."""
    found = []
    lines = fact_lines(text)
    summary = " ".join(sections(text).get(SUMMARY, []))
    sentences = [s for s in re.split(r"(?<=[.!?])\s+", summary) if s.strip()]
    for item in stale:
        key = norm_key(item["key"])
        type_ = types[item["key"].partition(":")[0]]
        value = item["value"]
        for section, line_key, line_value in lines:
            if line_key == key and value_spans(type_, value, line_value):
                found.append({"key": item["key"], "value": value, "where": section,
                              "text": line_value})  # fmt: skip
        if item.get("kind", "superseded") != "superseded" or type_ == "boolean":
            continue
        if any(_covers(key, type_, value, k, t, v) for k, t, v in keep or []):
            continue
        words = [w for w in re.split(r"[_:\s]+", item["key"].lower()) if len(w) >= 3]
        for sentence in sentences:
            sentence = DATED.sub("", sentence)
            needs_word = type_ == "date" or not distinctive(type_, value)
            if needs_word and not any(re.search(rf"\b{w}", sentence, re.I) for w in words):
                continue
            spans = value_spans(type_, value, sentence)
            if any(not _history_marked(sentence, s, e) for s, e in spans):
                found.append({"key": item["key"], "value": value, "where": SUMMARY,
                              "text": sentence})  # fmt: skip
    return found


def _covers(key: str, type_: str, value: Any, k: str, t: str, v: Any) -> bool:
    """Whether current expectation (k, t, v) makes stale (key, type_, value) ambiguous in prose."""
    if t == type_ and value_equal(t, v, value):
        return True
    return type_ == "string" and norm_key(k) == key and bool(value_spans(t, value, str(v)))


def _find(entities: list[dict[str, Any]], key: str) -> dict[str, Any] | None:
    want = norm_key(key)
    return next((e for e in entities if norm_key(e["key"]) == want), None)


def _same_fact(key: str, expected: str) -> bool:
    if ":" in expected:
        return norm_key(key) == norm_key(expected)
    return key.partition(":")[0] == expected


def _block_facts(start: dict[str, Any]) -> list[dict[str, Any]]:
    profile = start.get("profile") or {}
    return [*profile.values(), *start.get("facts", []), *start.get("possibilities", []),
            *start.get("pinned", [])]  # fmt: skip


def score(scenario: Scenario, reads: Reads) -> list[dict[str, Any]]:
    """One record per check: check, key or turn, tags, ok, and what was expected and found."""
    types = {f["key"]: f["type"] for f in scenario.fields}
    type_of = lambda key: types[key.partition(":")[0]]  # noqa: E731
    out: list[dict[str, Any]] = []

    def record(check: str, item: dict[str, Any], ok: bool, got: Any, **extra: Any) -> None:
        out.append({"scenario": scenario.id, "domain": scenario.domain, "check": check,
                    "key": item.get("key") or item.get("turn"), "tags": item["tags"],
                    "ok": bool(ok), "expected": item.get("value", item.get("source")),
                    "got": got, **extra})  # fmt: skip

    def value_check(check: str, item: dict[str, Any], entities: list[dict[str, Any]]) -> None:
        entity = _find(entities, item["key"])
        got = entity["value"] if entity else None
        ok = entity is not None and value_matches(type_of(item["key"]), got, item)
        record(check, item, ok, got, type=type_of(item["key"]))

    block = _block_facts(reads.start)
    for item in scenario.expect["current"]:
        value_check("current", item, reads.current)
        value_check("block_current", item, block)
    shown_in_blocks = {name: fact_lines(text) for name, text in reads.blocks.items()}
    for item in scenario.expect["not_current"]:
        entity = _find(reads.current, item["key"])
        type_ = type_of(item["key"])
        in_api = entity is not None and value_equal(type_, entity["value"], item["value"])
        in_block = any(k == norm_key(item["key"]) and value_spans(type_, item["value"], v)
                       for lines in shown_in_blocks.values() for _, k, v in lines)  # fmt: skip
        record("not_current", item, not (in_api or in_block), entity["value"] if entity else None,
               kind=item.get("kind", "superseded"))  # fmt: skip
    for item in scenario.expect["as_of"]:
        value_check("as_of", item, reads.as_of.get(item["at"], []))
    for item in scenario.expect["known_at"]:
        value_check("known_at", item, reads.known_at.get(item["after_session"], []))
    for item in scenario.expect["source"]:
        entity = _find(reads.current, item["key"])
        got = entity["source"] if entity else None
        record("source", item, got == item["source"], got)
    for item in scenario.expect["expired"]:
        # A key without a qualifier stands for every qualified key of its field.
        shown = [e for e in [*reads.current, *block] if _same_fact(e["key"], item["key"])]
        written = any(_same_fact(e["key"], item["key"]) for e in reads.timeline)
        record("expired", item, not shown, [e["value"] for e in shown], written=written)
    for item in scenario.expect["no_write"]:
        session, seq = item["turn"][1:].split(":")
        ref = {"session": reads.sessions[int(session)], "seq": int(seq)}
        citing = [e for e in reads.timeline
                  if any(t.get("session") == ref["session"] and t.get("seq") == ref["seq"]
                         for t in e.get("source_turns") or [])]  # fmt: skip
        record("no_write", item, not citing, [f"{e['key']}={e['value_text']}" for e in citing],
               facts=len(citing))  # fmt: skip
    keep = [(i["key"], type_of(i["key"]), i["value"]) for i in scenario.expect["current"]]
    for name, text in reads.blocks.items():
        findings = contradictions(text, scenario.expect["not_current"], types, keep)
        tags = sorted({t for f in findings for i in scenario.expect["not_current"]
                       if i["key"] == f["key"] and i["value"] == f["value"] for t in i["tags"]})  # fmt: skip
        out.append({"scenario": scenario.id, "domain": scenario.domain, "check": "block",
                    "key": name, "tags": tags, "ok": not findings, "findings": findings})  # fmt: skip
    return out
