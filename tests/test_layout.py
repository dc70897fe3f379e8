"""The dependency order (STYLE.md): api → {memory, extraction, schemas} → tenants.

Concretely: api → console → extraction → memory → schemas → tenants; no app imports one above
it (the console, the operator's admin pages, composes every domain app; api never uses it).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ORDER = ["tenants", "schemas", "memory", "extraction", "console", "api"]


def _imports(app: str) -> set[str]:
    found: set[str] = set()
    for path in (ROOT / app).rglob("*.py"):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found.add(node.module.split(".")[0])
    return found


@pytest.mark.parametrize("app", ORDER)
def test_no_app_imports_one_above_it(app: str) -> None:
    above = set(ORDER[ORDER.index(app) + 1 :])
    assert not (_imports(app) & above), f"{app} imports {_imports(app) & above}"


def test_views_never_fetch_tenant_rows_by_primary_key_alone() -> None:
    offenders = []
    for path in (ROOT / "api").rglob("*.py"):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if re.search(r"\.objects\.(get|filter)\(", line):
                offenders.append(f"{path.relative_to(ROOT)}:{number}")
    assert offenders == [], "api/ reads through *_get_for_tenant selectors only"
