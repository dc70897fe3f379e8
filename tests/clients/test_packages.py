"""The Python client packages build as wheels: the client and each framework adapter, from a copy
of its directory (no build isolation: setuptools from the project's own environment, nothing
downloaded). The TypeScript package is packed by test_typescript.py."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.clients.adapters import CLIENTS

pytestmark = pytest.mark.slow
PACKAGES = {
    "python": ("handover_client", None),
    "openai_agents": ("handover_openai_agents", "openai-agents"),
    "langgraph": ("handover_langgraph", "langgraph"),
    "pipecat": ("handover_pipecat", "pipecat-ai"),
    "livekit": ("handover_livekit", "livekit-agents"),
}


@pytest.mark.parametrize("directory", sorted(PACKAGES))
def test_wheel_builds_with_the_package_and_its_dependencies(directory: str, tmp_path: Path) -> None:
    module, framework = PACKAGES[directory]
    source = tmp_path / directory
    shutil.copytree(CLIENTS / directory, source,
                    ignore=shutil.ignore_patterns("*.egg-info", ".ruff_cache", "__pycache__", "build"))  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
         "--disable-pip-version-check", "-w", str(tmp_path / "dist"), str(source)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    (wheel,) = (tmp_path / "dist").glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        metadata = next(archive.read(n).decode() for n in names if n.endswith("/METADATA"))
    assert {f"{module}/__init__.py", f"{module}/py.typed"} <= names
    requires = [line for line in metadata.splitlines() if line.startswith("Requires-Dist:")]
    if framework is not None:
        assert any("handover-client" in r for r in requires)
        assert any(framework in r for r in requires)
