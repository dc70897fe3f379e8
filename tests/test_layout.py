"""The house plan (ADR 0023): layers, module sizes, no import cycles.

Layers, bottom to top: core → tenants → webhooks → schemas → memory → extraction → console → api; no
package imports one above it, ``core`` imports no app, no app imports ``config`` (it wires them),
services never import tasks (they enqueue by task name), and the console and the API read
through selectors, never the ORM.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ORDER = ["core", "tenants", "webhooks", "schemas", "memory", "extraction", "console", "api"]
APPS = ORDER[1:]
# Everything that is application code: the apps, the wiring, benchmarks and the client packages.
CLIENT_PACKAGES = [
    "clients/python/handover_client",
    "clients/openai_agents/handover_openai_agents",
    "clients/langgraph/handover_langgraph",
    "clients/pipecat/handover_pipecat",
    "clients/livekit/handover_livekit",
]
CODE_ROOTS = [*ORDER, "config", "bench", *CLIENT_PACKAGES, "examples"]

# The largest a module of application code may be (migrations and tests aside). This number
# only goes down: when a module shrinks below it for good, lower it.
MAX_MODULE_LINES = 400


def _modules() -> Iterator[tuple[str, Path]]:
    for root in CODE_ROOTS:
        for path in sorted((ROOT / root).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            rel = path.relative_to(ROOT)
            if root.startswith("clients/"):
                rel = path.relative_to(ROOT / Path(root).parent)
            parts = list(rel.with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            yield ".".join(parts), path


@cache
def _known() -> dict[str, Path]:
    return dict(_modules())


def _type_checking_only(tree: ast.Module) -> set[int]:
    """Line numbers inside ``if TYPE_CHECKING:`` blocks: imports there never run."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                for inner in ast.walk(child):
                    if hasattr(inner, "lineno"):
                        lines.add(inner.lineno)
    return lines


@cache
def _imported(module: str) -> frozenset[str]:
    """The project modules ``module`` imports, at any depth of its code (lazy imports count)."""
    path = _known()[module]
    tree = ast.parse(path.read_text(), str(path))
    skip = _type_checking_only(tree)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if getattr(node, "lineno", None) in skip:
            continue
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                candidate = f"{base}.{alias.name}"
                found.add(candidate if candidate in _known() else base)
    return frozenset(name for name in found if name in _known() and name != module)


def _top(name: str) -> str:
    return name.split(".")[0]


@pytest.mark.parametrize("app", ORDER)
def test_no_layer_imports_one_above_it(app: str) -> None:
    above = set(ORDER[ORDER.index(app) + 1 :])
    offenders = sorted(
        f"{module} → {target}"
        for module in _known()
        if _top(module) == app
        for target in _imported(module)
        if _top(target) in above
    )
    assert offenders == []


def test_core_imports_no_app_and_no_app_imports_config() -> None:
    offenders = sorted(
        f"{module} → {target}"
        for module in _known()
        if _top(module) in ORDER
        for target in _imported(module)
        if (_top(module) == "core" and _top(target) != "core") or _top(target) == "config"
    )
    assert offenders == []


def test_services_never_import_tasks() -> None:
    def is_service(name: str) -> bool:
        return ".services" in name or name.endswith(".queue")

    offenders = sorted(
        f"{module} → {target}"
        for module in _known()
        if is_service(module)
        for target in _imported(module)
        if target.endswith(".tasks") or ".tasks." in target
    )
    assert offenders == [], "services enqueue by task name (extraction/queue.py)"


def test_no_import_cycles() -> None:
    """Tarjan's strongly connected components over the module graph: each must be one module."""
    graph = {module: _imported(module) for module in _known()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph[node]:
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for module in graph:
        if module not in index:
            visit(module)
    assert cycles == []


def test_no_module_is_over_the_size_cap() -> None:
    assert MAX_MODULE_LINES <= 400
    sizes = {
        module: len(path.read_text().splitlines())
        for module, path in _known().items()
        if "tests" not in path.parts
    }
    over = {module: lines for module, lines in sizes.items() if lines > MAX_MODULE_LINES}
    assert over == {}


@pytest.mark.parametrize("layer", ["api", "console"])
def test_views_and_pages_read_through_selectors(layer: str) -> None:
    offenders = []
    for path in (ROOT / layer).rglob("*.py"):
        if "migrations" in path.parts or path.name == "selectors.py":
            continue  # console/selectors.py is where the console's reads live
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if re.search(r"\.objects\.", line):
                offenders.append(f"{path.relative_to(ROOT)}:{number}")
    assert offenders == [], f"{layer}/ reads through *_get_for_tenant and other selectors only"


def test_the_checks_see_the_code() -> None:
    """The checks above would pass vacuously on an empty graph."""
    assert len(_known()) > 100
    assert "memory.models" in _imported("memory.admin") or any(
        _top(target) == "memory" for target in _imported("memory.admin")
    )
