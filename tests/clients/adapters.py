"""What the framework adapters' tests share (clients/openai_agents, langgraph, pipecat, livekit,
typescript): the agent and key they run as, and the README example each adapter's tests run."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from schemas.models import Agent
from schemas.services import agent_create
from tenants.models import KeyRole, Tenant
from tenants.services import api_key_create

ROOT = Path(__file__).resolve().parents[2]
CLIENTS = ROOT / "clients"
EXAMPLE_MARK = "<!-- example: run by "


def demo_agent(tenant: Tenant) -> Agent:
    """The agent the READMEs' examples name: ``demo``, with the property-advisor schema."""
    from schemas.defaults import PROPERTY_ADVISOR

    return agent_create(
        tenant_id=tenant.pk, slug="demo", name="Demo", schema_fields=PROPERTY_ADVISOR, actor="t"
    )


def agent_key(tenant: Tenant) -> str:
    return api_key_create(tenant=tenant, name="adapter", role=KeyRole.AGENT, actor="t")[1]


def readme_example(readme: Path, language: str) -> str:
    """The code block right after the README's ``<!-- example: run by … -->`` line: the
    example a user copies is the one the test runs. It stays about ten lines."""
    text = readme.read_text()
    start = text.index(EXAMPLE_MARK)
    match = re.compile(rf"```{language}\n(.*?)```", re.S).search(text, start)
    assert match, f"{readme}: no {language} block after the example mark"
    code = match.group(1)
    lines = [line for line in code.splitlines() if line.strip()]
    assert len(lines) <= 14, f"{readme}: the example has {len(lines)} lines"
    return code


def run_example(
    code: str, env: dict[str, str], *, command: list[str] | None = None, cwd: Path = ROOT
) -> subprocess.CompletedProcess[str]:
    """Run an example as a user would: a fresh process, configured by the environment only."""
    done = subprocess.run(
        command or [sys.executable, "-c", code], capture_output=True, text=True, cwd=cwd,
        env={**os.environ, **env}, timeout=180,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    return done


def turns_of(session_key: str | None = None) -> list[tuple[int, str, str]]:
    """Every stored turn as (seq, role, text), in order (one session, or all)."""
    from memory.models import Turn

    rows: Any = Turn.objects.order_by("session__started_at", "seq")
    if session_key is not None:
        rows = rows.filter(session__external_id=session_key)
    return list(rows.values_list("seq", "role", "text"))
