"""The README's API overview is the OpenAPI schema's (issue 19): every operation the schema has
is in the overview and nothing else, with the request body fields the schema names."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

from django.core.management import call_command

README = (Path(__file__).resolve().parent.parent / "README.md").read_text()
OVERVIEW = README[README.index("## API overview (v1)") : README.index("### Extraction schemas")]
NOT_IN_THE_OVERVIEW = {("GET", "/v1/schema"), ("GET", "/v1/docs")}  # named in its first lines


def _shape(path: str) -> str:
    return re.sub(r"\{[^}]+\}", "{}", path.split("?")[0])


def _overview() -> dict[tuple[str, str], set[str] | None]:
    """(method, path) → the body fields a row names (None: it names none)."""
    out: dict[tuple[str, str], set[str] | None] = {}
    for line in OVERVIEW.splitlines():
        if not line.startswith("| `"):
            continue
        cell = line.split("|")[1]
        body = re.search(r"`\{([^}`]*)\}`", cell)
        # {agent, user, session?} · {turns: [...]} · {query, k?=10}: the names
        names = body.group(1).split(",") if body else []
        fields = {re.split(r"[?:=]", f.strip())[0] for f in names} if body else None
        method = path = ""
        for token in re.findall(r"`([^`]+)`", cell):
            words = token.split()
            if words[0].isupper() and len(words) > 1:
                method, path = words[0], words[1]  # GET /v1/agents
            elif words[0].isupper():
                method = words[0]  # · `PATCH`: the same path
            elif token.startswith("/"):
                path = path.rsplit("/", 1)[0] + token  # · `/unpin`: a sibling
            else:
                continue
            out[(method, _shape(path))] = fields
    return out


def _schema() -> dict[str, Any]:
    out = io.StringIO()
    call_command("spectacular", "--format", "openapi-json", stdout=out)
    return dict(json.loads(out.getvalue()))


def _body_fields(schema: dict[str, Any], operation: dict[str, Any]) -> set[str]:
    node = operation["requestBody"]["content"]["application/json"]["schema"]
    while "$ref" in node:
        node = schema["components"]["schemas"][node["$ref"].rsplit("/", 1)[1]]
    return set(node.get("properties", {}))


def test_the_overview_lists_every_operation_of_the_schema_and_no_other(db: None) -> None:
    schema = _schema()
    operations = {
        (method.upper(), _shape(path)) for path, item in schema["paths"].items() for method in item
    } - NOT_IN_THE_OVERVIEW
    listed = set(_overview())
    assert operations - listed == set(), "in the schema, not in the README's API overview"
    assert listed - operations == set(), "in the README's API overview, not in the schema"


def test_the_body_fields_the_overview_names_are_the_schemas(db: None) -> None:
    schema = _schema()
    operations = {
        (method.upper(), _shape(path)): operation
        for path, item in schema["paths"].items()
        for method, operation in item.items()
    }
    wrong = {}
    for key, fields in _overview().items():
        if fields is None:
            continue
        named = _body_fields(schema, operations[key])
        if fields != named:
            wrong[key] = (sorted(fields - named), sorted(named - fields))
    assert wrong == {}, "(README only, schema only) per operation"
