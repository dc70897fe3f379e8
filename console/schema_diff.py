"""What changed between two versions of an extraction schema: pure, for the schema editor."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class SchemaDiff:
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    changed: dict[str, list[str]] = field(default_factory=dict)  # key → "option: old → new"
    reordered: bool = False

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.changed or self.reordered)


def _show(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return str(value)


def schema_diff(base: list[dict[str, Any]], other: list[dict[str, Any]]) -> SchemaDiff:
    """How ``other`` differs from ``base`` (usually: a version against the active one)."""
    before = {f["key"]: f for f in base}
    after = {f["key"]: f for f in other}
    diff = SchemaDiff(
        added=[k for k in after if k not in before],
        removed=[k for k in before if k not in after],
    )
    for key in after.keys() & before.keys():
        options = sorted(set(before[key]) | set(after[key]))
        changes = [
            f"{option}: {_show(before[key].get(option))} → {_show(after[key].get(option))}"
            for option in options
            if before[key].get(option) != after[key].get(option)
        ]
        if changes:
            diff.changed[key] = changes
    common_before = [k for k in before if k in after]
    common_after = [k for k in after if k in before]
    diff.reordered = common_before != common_after
    return diff
