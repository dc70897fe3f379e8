"""The README's receiver example (verify a signature) runs against a real delivery."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Key
from tests.webhooks.receiver import Receiver
from tests.webhooks.test_delivery import create, write_fact

README = (Path(__file__).resolve().parents[2] / "README.md").read_text()


def _verify() -> Any:
    blocks = re.findall(r"```python\n(.*?)```", README, re.S)
    [code] = [b for b in blocks if "def verify(secret" in b]
    assert len(code.strip().splitlines()) <= 14  # a ten-line example, give or take
    namespace: dict[str, Any] = {}
    exec(compile(code, "README.md", "exec"), namespace)  # noqa: S102 (our own README)
    return namespace["verify"]


def test_the_readme_verifies_a_real_delivery_and_refuses_forgeries(
    operator_key_a: Key, agent_a: Any, receiver: Receiver, django_capture_on_commit_callbacks: Any
) -> None:
    verify = _verify()
    hook = create(operator_key_a, receiver.url, ["fact.created"])
    with django_capture_on_commit_callbacks(execute=True):
        write_fact(agent_a, "Pune")
    [request] = receiver.requests
    event = verify(hook["secret"], request.headers, request.body)
    assert event["type"] == "fact.created" and event["data"]["user"] == "u1"
    with pytest.raises(ValueError, match="bad signature"):
        verify(hook["secret"], request.headers, request.body.replace(b"u1", b"u2"))
    other = create(operator_key_a, receiver.url, ["fact.created"])["secret"]
    with pytest.raises(ValueError, match="bad signature"):
        verify(other, request.headers, request.body)
    stale = {
        **request.headers,
        "webhook-timestamp": str(int(request.headers["webhook-timestamp"]) - 600),
    }
    with pytest.raises(ValueError, match="timestamp"):
        verify(hook["secret"], stale, request.body)
