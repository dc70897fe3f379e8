"""The probe dialogues (bench/dialogue_probes/) are well formed: each case names a schema of
its file, its turns are the agent's or the user's, and what it wants and knows are keys of that
schema with values its fields accept. The benchmark itself runs by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from schemas.validation import fact_key_parse, fact_value_validate
from schemas.validation.fields import schema_fields_validate

FILES = sorted(
    (Path(__file__).resolve().parent.parent / "bench" / "dialogue_probes").glob("*.json")
)


def test_there_are_probe_files() -> None:
    assert len(FILES) >= 7


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_a_probe_file_is_well_formed(path: Path) -> None:
    doc = json.loads(path.read_text())
    for fields in doc["schemas"].values():
        schema_fields_validate(fields)
    names = [c["name"] for c in doc["cases"]]
    assert len(names) == len(set(names)), "case names are unique in a file"
    for case in doc["cases"]:
        fields = doc["schemas"][case["schema"]]
        assert case["turns"] and all(role in ("a", "u") and text for role, text in case["turns"])
        for key in case.get("known", {}):
            fact_key_parse(key, fields)  # a key of the schema, or it raises
        for key, value in case["want"].items():
            field, _ = fact_key_parse(key, fields)
            fact_value_validate(field, value)
