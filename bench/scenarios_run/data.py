"""The scenario files (bench/scenarios/*.json, format in bench/scenarios/README.md): loading,
validation and a stable layout. Pure: no server, no Django settings (the value checks are
``schemas.validation``'s pure functions, the same rules the API applies).

    python -m bench.scenarios_run.data            # validate every file, print a coverage table
    python -m bench.scenarios_run.data --format   # rewrite the files in the canonical layout
    python -m bench.scenarios_run.data --show ID  # the turns of one conversation, numbered
    python -m bench.scenarios_run.data --dir bench/scenarios_holdout   # another folder
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from schemas.validation import ValidationFailed, fact_key_parse, fact_value_validate
from schemas.validation.fields import schema_fields_validate

DIRECTORY = Path(__file__).resolve().parent.parent / "scenarios"
TURN_STEP_SECONDS = 40  # a turn every 40 s: a 110-turn session lasts 73 minutes
ROLES = {"u": "user", "a": "assistant"}
PHENOMENA = (
    "plain", "supersession", "correction", "gradual", "confirmation", "hedge",
    "rejected_proposal", "relative_date", "qualifier", "reference", "distractor",
    "short_answer", "small_talk", "ephemeral", "long_session", "agent_stated",
)  # fmt: skip
CHECKS = ("current", "not_current", "as_of", "known_at", "source", "expired", "no_write")
KINDS = ("superseded", "foreign", "rejected")
SOURCES = ("explicit", "confirmed", "inferred")


@dataclass(frozen=True)
class Turn:
    session: int  # 1-based
    seq: int  # 1-based within the session
    role: str
    text: str
    occurred_at: datetime.datetime

    @property
    def ref(self) -> str:
        return f"s{self.session}:{self.seq}"


@dataclass
class Scenario:
    id: str
    domain: str
    title: str
    style: list[str]
    participants: dict[str, str]
    fields: list[dict[str, Any]]
    sessions: list[list[Turn]]
    expect: dict[str, list[dict[str, Any]]]

    def field(self, key: str) -> dict[str, Any]:
        return next(f for f in self.fields if f["key"] == key.partition(":")[0])

    @property
    def turns(self) -> list[Turn]:
        return [turn for session in self.sessions for turn in session]


def parse_time(text: str) -> datetime.datetime:
    moment = datetime.datetime.fromisoformat(text)
    if moment.tzinfo is None:
        raise ValueError(f"{text!r}: a time needs its UTC offset")
    return moment


def _sessions(raw: list[dict[str, Any]]) -> list[list[Turn]]:
    out = []
    for n, session in enumerate(raw, 1):
        start = parse_time(session["at"])
        step = datetime.timedelta(seconds=session.get("step_seconds", TURN_STEP_SECONDS))
        out.append([Turn(n, i + 1, ROLES[role], text, start + step * i)
                    for i, (role, text) in enumerate(session["turns"])])  # fmt: skip
    return out


def validate(scenario: Scenario, now: datetime.datetime | None = None) -> list[str]:
    """Every problem of one conversation, as messages naming the place (empty: valid)."""
    problems: list[str] = []
    here = scenario.id
    now = now or datetime.datetime.now(datetime.UTC)
    turns = {turn.ref: turn for turn in scenario.turns}
    previous: datetime.datetime | None = None
    for turn in scenario.turns:
        if previous and turn.occurred_at <= previous:
            problems.append(f"{here} {turn.ref}: sessions must follow each other in time")
        previous = turn.occurred_at
        if turn.occurred_at >= now - datetime.timedelta(days=2):
            problems.append(f"{here} {turn.ref}: must lie at least two days in the past")
    for check, items in scenario.expect.items():
        if check not in CHECKS:
            problems.append(f"{here}: unknown expectation {check!r}")
            continue
        for i, item in enumerate(items):
            place = f"{here} {check}[{i}]"
            tags = item.get("tags") or []
            if not tags or any(tag not in PHENOMENA for tag in tags):
                problems.append(f"{place}: tags must be a non-empty subset of PHENOMENA: {tags}")
            if check == "no_write":
                if item.get("turn") not in turns:
                    problems.append(f"{place}: no turn {item.get('turn')!r}")
                continue
            try:
                field, _ = fact_key_parse(item.get("key"), scenario.fields)
                for value in [item["value"], *item.get("accept", [])] if "value" in item else []:
                    fact_value_validate(field, value)
            except (ValidationFailed, KeyError) as exc:
                problems.append(f"{place}: {exc}")
                continue
            if check in ("current", "not_current", "as_of", "known_at") and "value" not in item:
                problems.append(f"{place}: needs a value")
            if check == "not_current" and item.get("kind", "superseded") not in KINDS:
                problems.append(f"{place}: kind must be one of {KINDS}")
            if check == "source" and item.get("source") not in SOURCES:
                problems.append(f"{place}: source must be one of {SOURCES}")
            if check == "expired" and field["category"] != "ephemeral":
                problems.append(f"{place}: {field['key']} is not ephemeral")
            if check == "as_of":
                try:
                    parse_time(item["at"])
                except (KeyError, ValueError) as exc:
                    problems.append(f"{place}: {exc}")
            if check == "known_at" and not 1 <= item.get("after_session", 0) <= len(
                scenario.sessions
            ):
                problems.append(f"{place}: after_session must name one of its sessions")
    return problems


def load(directory: Path = DIRECTORY, only: set[str] | None = None) -> list[Scenario]:
    """Every conversation of every file, validated; raise ValueError listing all problems."""
    scenarios, problems = [], []
    seen: set[str] = set()
    for path in sorted(directory.glob("*.json")):
        document = json.loads(path.read_text())
        for name, fields in document["schemas"].items():
            try:
                schema_fields_validate(fields)
            except ValidationFailed as exc:
                problems.append(f"{path.name} schema {name}: {exc.errors}")
        for raw in document["conversations"]:
            if only is not None and raw["id"] not in only:
                continue
            if raw["id"] in seen:
                problems.append(f"{raw['id']}: duplicate id")
            seen.add(raw["id"])
            scenario = Scenario(
                id=raw["id"], domain=document["domain"], title=raw["title"],
                style=raw.get("style", []), participants=raw["participants"],
                fields=document["schemas"][raw["schema"]], sessions=_sessions(raw["sessions"]),
                expect={check: raw["expect"].get(check, []) for check in CHECKS},
            )  # fmt: skip
            problems += validate(scenario)
            scenarios.append(scenario)
    if problems:
        raise ValueError("invalid scenarios:\n  " + "\n  ".join(problems))
    return scenarios


def coverage(scenarios: list[Scenario]) -> dict[str, Counter[str]]:
    """Domain → phenomenon → how many conversations exercise it."""
    table: dict[str, Counter[str]] = {}
    for scenario in scenarios:
        tags = {tag for items in scenario.expect.values() for item in items for tag in item["tags"]}
        table.setdefault(scenario.domain, Counter()).update(tags)
    return table


def dump(document: dict[str, Any]) -> str:
    """The canonical layout: one line per schema field, turn and expectation."""
    one = lambda value: json.dumps(value, ensure_ascii=False)  # noqa: E731
    lines = ["{", f'  "domain": {one(document["domain"])},', '  "schemas": {']
    schemas = list(document["schemas"].items())
    for i, (name, fields) in enumerate(schemas):
        lines.append(f"    {one(name)}: [")
        lines += [f"      {one(f)}," for f in fields]
        lines[-1] = lines[-1].rstrip(",")
        lines.append("    ]" + ("," if i < len(schemas) - 1 else ""))
    lines += ["  },", '  "conversations": [']
    for c, conversation in enumerate(document["conversations"]):
        lines.append("    {")
        for key in ("id", "title", "schema", "style", "participants"):
            lines.append(f"      {one(key)}: {one(conversation[key])},")
        lines.append('      "sessions": [')
        for s, session in enumerate(conversation["sessions"]):
            head = {k: v for k, v in session.items() if k != "turns"}
            lines.append(f"        {one(head)[:-1]}, " + '"turns": [')
            lines += [f"          {one(turn)}," for turn in session["turns"]]
            lines[-1] = lines[-1].rstrip(",")
            lines.append("        ]}" + ("," if s < len(conversation["sessions"]) - 1 else ""))
        lines += ["      ],", '      "expect": {']
        checks = [c for c in CHECKS if c in conversation["expect"]]
        for k, check in enumerate(checks):
            items = conversation["expect"][check]
            comma = "," if k < len(checks) - 1 else ""
            if not items:
                lines.append(f"        {one(check)}: []{comma}")
                continue
            lines.append(f"        {one(check)}: [")
            lines += [f"          {one(item)}," for item in items]
            lines[-1] = lines[-1].rstrip(",")
            lines.append(f"        ]{comma}")
        lines += ["      }", "    }" + ("," if c < len(document["conversations"]) - 1 else "")]
    lines += ["  ]", "}"]
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--format", action="store_true", help="rewrite files in canonical layout")
    parser.add_argument("--show", metavar="ID", help="print one conversation's numbered turns")
    parser.add_argument("--dir", type=Path, default=DIRECTORY, help="the folder of scenario files")
    args = parser.parse_args()
    if args.format:
        for path in sorted(args.dir.glob("*.json")):
            path.write_text(dump(json.loads(path.read_text())))
    if args.show:
        (scenario,) = load(args.dir, only={args.show})
        for turn in scenario.turns:
            print(f"{turn.ref:>7} {turn.occurred_at:%a %d %b %H:%M} {turn.role[0]}: {turn.text}")
        return 0
    try:
        scenarios = load(args.dir)
    except ValueError as exc:
        print(exc, file=sys.stderr)
        return 1
    table = coverage(scenarios)
    turns = [len(s.turns) for s in scenarios]
    print(f"{len(scenarios)} conversations, {sum(turns)} turns (longest {max(turns)}), "
          f"{len(table)} domains")  # fmt: skip
    print(f"{'domain':<22}{'n':>3} " + " ".join(f"{p[:6]:>6}" for p in PHENOMENA))
    for domain, counts in sorted(table.items()):
        n = sum(1 for s in scenarios if s.domain == domain)
        print(f"{domain:<22}{n:>3} " + " ".join(f"{counts[p]:>6}" for p in PHENOMENA))
    return 0


if __name__ == "__main__":
    sys.exit(main())
