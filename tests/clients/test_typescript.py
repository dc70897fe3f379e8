"""clients/typescript: its types are the server's schema, its node:test suite passes against the
live server, its README example runs, and it packs. node_modules comes from the committed
package-lock.json (`npm ci`, run by the Makefile before the tests)."""

from __future__ import annotations

import json
import os
import subprocess
import tarfile
from pathlib import Path
from typing import Any

import pytest

from tenants.models import Tenant
from tests.clients.adapters import (
    CLIENTS,
    agent_key,
    demo_agent,
    readme_example,
    run_example,
    turns_of,
)

TS = CLIENTS / "typescript"
pytestmark = pytest.mark.django_db(transaction=True)


def npm(*args: str, timeout: int = 180) -> str:
    done = subprocess.run(["npm", *args], cwd=TS, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout


@pytest.fixture(scope="module")
def built() -> None:
    assert (TS / "node_modules" / ".bin" / "tsc").exists(), "run `make test` (it runs npm ci)"
    npm("run", "build")


@pytest.fixture
def key(tenant_a: Tenant) -> str:
    demo_agent(tenant_a)
    return agent_key(tenant_a)


def test_types_are_generated_from_the_servers_schema(tmp_path: Path) -> None:
    from drf_spectacular.generators import SchemaGenerator
    from drf_spectacular.renderers import OpenApiJsonRenderer

    schema = SchemaGenerator().get_schema(request=None, public=True)
    served = json.loads(OpenApiJsonRenderer().render(schema))
    committed = json.loads((TS / "openapi.json").read_text())
    assert committed == served, (
        "clients/typescript/openapi.json is not the server's schema: run manage.py spectacular "
        "--format openapi-json --file clients/typescript/openapi.json, then npm run generate"
    )
    out = tmp_path / "schema.ts"
    subprocess.run(
        [str(TS / "node_modules" / ".bin" / "openapi-typescript"), "openapi.json", "-o", str(out)],
        cwd=TS, check=True, capture_output=True, timeout=120,
    )  # fmt: skip
    assert out.read_text() == (TS / "src" / "schema.ts").read_text(), "run npm run generate"


def test_node_suite_against_the_live_server(live_server: Any, key: str, built: None) -> None:
    done = subprocess.run(
        ["node", "--test", "--test-reporter=tap", "test/"], cwd=TS, capture_output=True,
        text=True, timeout=300,
        env={**os.environ, "HANDOVER_URL": live_server.url, "HANDOVER_API_KEY": key},
    )  # fmt: skip
    summary = [line for line in done.stdout.splitlines() if line.startswith("# ")]
    print("\n".join(summary))
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-3000:]
    assert "# fail 0" in summary and "# pass 0" not in summary


def test_readme_example_runs(live_server: Any, key: str, built: None) -> None:
    code = readme_example(TS / "README.md", "js")
    done = run_example(
        code,
        {"HANDOVER_URL": live_server.url, "HANDOVER_API_KEY": key},
        command=["node", "--input-type=module", "--eval", code],
        cwd=TS,  # the package imports itself by name from its own directory
    )
    assert "₹80 lakh" in done.stdout and "(confidence: high)" in done.stdout
    assert turns_of("call-1") == [(1, "user", "Our budget is 80 lakhs.")]


@pytest.mark.slow
def test_npm_pack_holds_the_build_and_no_sources(built: None, tmp_path: Path) -> None:
    packed = json.loads(npm("pack", "--json", "--pack-destination", str(tmp_path)))
    with tarfile.open(tmp_path / packed[0]["filename"]) as tarball:
        names = set(tarball.getnames())
    for name in ("package.json", "README.md", "dist/index.js", "dist/index.d.ts", "dist/ai.js",
                 "dist/schema.d.ts", "dist/errors.js"):  # fmt: skip
        assert f"package/{name}" in names
    assert not any(n.startswith(("package/src/", "package/test/", "package/node_modules/"))
                   for n in names)  # fmt: skip
